"""The question of the day on SQLite and PostgreSQL with an injected clock, across two
simulated days and a restart: posted once and revealed once a day (even when its job runs
twice), participation streaks, Sunday's week, admins only, bad times, one per chat, and a
chat that removed the bot switched off."""

from __future__ import annotations

import logging

import pytest

from bot.app.compose import build_engine
from bot.domain.errors import BadDaily, NotChatAdmin, RoundsAreForGroups
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.domain.round_results import RoundQuestion, RoundReveal
from bot.features.jobs import Scheduler
from bot.present import render
from bot.present.i18n import Catalogue, strip_isolates
from bot.present.round_plan import RoundPlanner
from bot.store import open_url
from bot.store.commands import daily_sql, jobs_sql, rounds_sql
from tests.bot.features.test_rounds import GROUP, HOST, Clock, right, wrong
from tests.helpers import due

HOUR = 3600.0
M0, M1, M2 = (Actor("telegram", str(100 + i), GROUP, f"M{i}") for i in range(3))


def answer(quizzes: dict[str, Quiz], q: RoundQuestion, ok: bool) -> int:
    for quiz in quizzes.values():  # the daily's quiz is the one named; look it up by text
        if any(x.text.get("en") == q.text for x in quiz.questions):
            break
    return (right if ok else wrong)({"parallelism": quiz}, q)


async def test_a_daily_across_two_days_and_a_restart(store_url: str, quizzes: dict[str, Quiz],
                                                     catalogue: Catalogue,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()  # Friday 2027-01-15 08:00 UTC (13:00 at +05:00)
    store = await open_url(store_url)
    engine = build_engine(store, quizzes, clock=clock)
    dailies = engine.dailies
    with pytest.raises(NotChatAdmin):
        await dailies.switch_on(M0, GROUP, "09:00", "+05:00", may_manage=False)
    with pytest.raises(BadDaily):
        await dailies.switch_on(HOST, GROUP, "25:00", may_manage=True)
    with pytest.raises(BadDaily):
        await dailies.switch_on(HOST, GROUP, "09:00", "+99:00", may_manage=True)
    with pytest.raises(RoundsAreForGroups):
        await dailies.switch_on(Actor("telegram", "1", None, "Hana"), None, "09:00",
                                may_manage=True)
    await dailies.switch_on(HOST, GROUP, "07:00", "+05:00", "parallelism", may_manage=True)
    done = await dailies.switch_on(HOST, GROUP, "09:00", "+05:00", "parallelism",
                                   may_manage=True)  # one per chat: this replaces it
    assert done.next_at == clock.now + 20 * HOUR  # Saturday 09:00 at +05:00 = 04:00 UTC
    scheduler = Scheduler(store, {dailies.kind: dailies}, clock=clock, lease=600)
    assert await scheduler.tick() == 0

    # Saturday: the job is claimed and runs, and the process dies before it is finished.
    clock.now = done.next_at
    (job,) = await store.write(jobs_sql.claim_due, clock.now, 10, "dead:1", 600, (dailies.kind,))
    await dailies(job)
    (q,) = await due(engine.rounds, "telegram")
    assert isinstance(q, RoundQuestion) and q.daily and q.seconds == 8 * HOUR
    await store.close()

    store = await open_url(store_url)  # the restart
    try:
        engine = build_engine(store, quizzes, clock=clock)
        dailies, rounds = engine.dailies, engine.rounds
        scheduler = Scheduler(store, {dailies.kind: dailies}, clock=clock, lease=600)
        clock.advance(601)  # the dead claim's lease runs out: the job runs again
        assert await scheduler.tick() == 1
        assert await due(rounds, "telegram") == []  # no second question that day
        await rounds.press(M0, q.round_id, 0, answer(quizzes, q, True))
        await rounds.press(M1, q.round_id, 0, answer(quizzes, q, False))
        clock.advance(8 * HOUR - 601)
        (reveal,) = await due(rounds, "telegram")
        assert isinstance(reveal, RoundReveal) and reveal.final and reveal.daily is not None
        assert reveal.right == ("M0",) and reveal.daily.streaks == ()
        assert reveal.daily.week == ()  # Saturday: no week yet
        assert await due(rounds, "telegram") == []  # revealed once
        # a question of the day is no quiz attempt: no 1/1 on the boards, in /stats
        assert (await engine.stats(M0)).attempts == 0
        assert (await engine.leaderboard(M0)).rows == ()

        # Sunday: M0 again (right), M1 silent, M2 new (right).
        clock.now = done.next_at + 24 * HOUR
        assert await scheduler.tick() == 1
        (q,) = await due(rounds, "telegram")
        assert isinstance(q, RoundQuestion)
        await rounds.press(M0, q.round_id, 0, answer(quizzes, q, True))
        await rounds.press(M2, q.round_id, 0, answer(quizzes, q, True))
        clock.advance(8 * HOUR)
        (reveal,) = await due(rounds, "telegram")
        assert isinstance(reveal, RoundReveal) and reveal.daily is not None
        assert reveal.daily.streaks == (("M0", 2),)
        assert [(w.rank, w.name, w.right, w.answered) for w in reveal.daily.week] == \
            [(1, "M0", 2, 2), (2, "M2", 1, 1), (3, "M1", 0, 1)]
        card = RoundPlanner(catalogue, render.PLAIN, lambda q: "").reveal(reveal)
        text = strip_isolates(card.body)
        assert card.title == "📅 Question of the day"
        assert "🔥 Days in a row: M0 2" in text and "This week (2 questions):" in text
        assert "🥇 1. M0: 2/2" in text

        # The group removed the bot: switched off once, with a log line; nothing retried.
        with caplog.at_level(logging.INFO, logger="bot.features.daily"):
            await dailies.chat_gone("telegram", GROUP)
            await dailies.chat_gone("telegram", GROUP)
        assert sum("switched off" in r.message for r in caplog.records) == 1
        assert await store.read(daily_sql.get_daily, "telegram", GROUP) is None
        clock.now = done.next_at + 48 * HOUR
        assert await scheduler.tick() == 0 and await due(rounds, "telegram") == []
        # a /round still runs beside the daily's history (one running round per kind)
        await rounds.start(HOST, GROUP, questions=1)
        assert (await store.read(rounds_sql.active_round, "telegram", GROUP)) is not None
    finally:
        await store.close()


async def test_daily_off_and_a_round_beside_an_open_daily(store_url: str,
                                                          quizzes: dict[str, Quiz]) -> None:
    clock = Clock()
    store = await open_url(store_url)
    try:
        engine = build_engine(store, quizzes, clock=clock)
        done = await engine.dailies.switch_on(HOST, GROUP, "13:30", "+05:00", may_manage=True)
        clock.now = done.next_at
        await Scheduler(store, {"daily": engine.dailies}, clock=clock).tick()
        (q,) = await due(engine.rounds, "telegram")
        assert isinstance(q, RoundQuestion) and q.daily
        # the daily question is open all day; a /round may run beside it, and stop it only
        await engine.rounds.start(HOST, GROUP, questions=1)
        await engine.rounds.stop(HOST, GROUP)
        assert (await store.read(rounds_sql.get_round,
                                 q.round_id)).status == "active"  # type: ignore[union-attr]
        off = await engine.dailies.switch_off(HOST, GROUP, may_manage=True)
        assert not off.on and await store.read(daily_sql.get_daily, "telegram", GROUP) is None
        clock.advance(8 * HOUR)  # the open one still gets its reveal
        # the open one's reveal, and the stopped round's podium (two rounds: side by side)
        shown = await due(engine.rounds, "telegram")
        assert sorted((e.round_id, type(e)) for e in shown) == [
            (q.round_id, RoundReveal), (q.round_id + 1, RoundReveal)]
    finally:
        await store.close()
