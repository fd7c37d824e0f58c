"""Abandoned attempts without answers are pruned after a day (issue 18), and processed
webhook updates after two, on SQLite and PostgreSQL; the prune is a daily scheduler job."""

from __future__ import annotations

import time

from bot.domain.errors import UnknownQuiz
from bot.domain.results import SessionKind
from bot.features.housekeeping import EVERY, KEEP_UPDATES, PRUNE_KEY, PRUNE_KIND, Housekeeping
from bot.features.jobs import Scheduler
from bot.store.commands import inbox_sql, jobs_sql, sessions_sql
from bot.store.protocol import Store
from bot.store.rows import NewAnswer, NewSession

QUESTIONS = ("a", "b", "c")


def attempt() -> NewSession:
    return NewSession("t", "1", None, "quiz", SessionKind.FULL, QUESTIONS,
                      ((0, 1), (1, 0), (0, 1)), started_at=time.time())


async def test_two_hundred_try_agains_leave_nothing_after_a_day(any_store: Store):
    store = any_store
    await sessions_sql.touch_user(store, "t", "1", "T", time.time())
    answered = await store.write(sessions_sql.start_session, attempt(), replace=True)
    await store.write(sessions_sql.record_answer,
                      NewAnswer(answered.id, 0, "a", 0, True, False, answered_at=time.time()))
    tries = [await store.write(sessions_sql.start_session,
                               attempt(), replace=True) for _ in range(200)]
    clock = [time.time()]
    job = Housekeeping(store, clock=lambda: clock[0])
    await job.schedule()
    scheduler = Scheduler(store, {PRUNE_KIND: job}, clock=lambda: clock[0])
    assert await scheduler.tick() == 1  # at once: nothing is a day old yet
    assert await store.read(sessions_sql.get_session, tries[0].id) is not None
    clock[0] += EVERY + 60  # a day later the job is due again, and the attempts are old
    assert await scheduler.tick() == 1
    assert [await store.read(sessions_sql.get_session,
                             t.id) is None for t in tries[:-1]] == [True] * 199
    kept = await store.read(sessions_sql.get_session,
                            answered.id)  # abandoned, but answered: /stats reads it
    assert kept is not None and kept.status == "abandoned"
    live = await store.read(sessions_sql.get_session, tries[-1].id)  # the one being played
    assert live is not None and live.status == "active"
    claims = await store.write(jobs_sql.claim_due, clock[0] + EVERY + 1, 10, "w", 60.0)
    assert [c.key for c in claims] == [PRUNE_KEY]  # it keeps running daily


async def test_the_daily_job_forgets_webhook_updates_processed_two_days_ago(any_store: Store):
    store = any_store
    now = time.time()
    for uid, age in ((1, KEEP_UPDATES + 60), (2, KEEP_UPDATES - 60), (3, KEEP_UPDATES + 60)):
        await store.write(inbox_sql.inbox_put, "telegram", uid, "{}", now - age, now - age)
    for uid, age in ((1, KEEP_UPDATES + 30), (2, KEEP_UPDATES - 90)):
        await store.write(inbox_sql.inbox_done, "telegram", uid, now - age)
    job = Housekeeping(store, clock=lambda: now)
    await job.schedule()
    assert await Scheduler(store, {PRUNE_KIND: job}, clock=lambda: now).tick() == 1
    # 1 is forgotten (a repeat now counts as new); 2 is recent, 3 never done: both kept
    assert [await store.write(inbox_sql.inbox_put, "telegram", uid, "{}", now, now)
            for uid in (1, 2, 3)] == [True, False, False]


def test_an_echoed_argument_is_clipped():
    error = UnknownQuiz(quiz="x" * 5000)
    assert len(error.params["quiz"]) == 64 and error.params["quiz"].endswith("…")
