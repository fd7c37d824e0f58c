"""The `Store` methods, each bound once to its command; executors supply `read` and `write`.

`SQLiteStore` and `PostgresStore` are this class plus an executor: how to run a command's
statements on their connections. Everything a method does is in its command
(`bot.store.commands`), written once for both dialects.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

from bot.store.command import Command
from bot.store.commands import (
    daily,
    inbox,
    jobs,
    learning,
    rewards,
    round_teams,
    rounds,
    sessions,
)

P = ParamSpec("P")
T = TypeVar("T")
Method = Callable[Concatenate["CommandStore", P], Coroutine[Any, Any, T]]


def _reader(fn: Callable[P, Command[T]]) -> Method[P, T]:
    async def method(self: CommandStore, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.read(fn, *args, **kwargs)

    method.__name__, method.__doc__ = fn.__name__, fn.__doc__
    return method


def _writer(fn: Callable[P, Command[T]]) -> Method[P, T]:
    async def method(self: CommandStore, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.write(fn, *args, **kwargs)

    method.__name__, method.__doc__ = fn.__name__, fn.__doc__
    return method


class CommandStore(abc.ABC):
    """Every `Store` method as a command run by `read` (one snapshot, no writes) or `write`
    (one transaction, retried whole when the executor must)."""

    on_commit: Callable[[float], None] | None

    @abc.abstractmethod
    async def read(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run the read-only command `fn(*args, **kwargs)`."""

    @abc.abstractmethod
    async def write(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs
                    ) -> T:
        """Run `fn(*args, **kwargs)` in one write transaction; the executor may call `fn`
        again (a retry), so a command decides only from what it reads."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Finish writes in flight and close every connection."""

    async def touch_user(self, platform: str, user_id: str, display_name: str) -> str | None:
        """Create the user or update their name; return their chosen language, if any."""
        row = await self.read(sessions.user, platform, user_id)
        if row is not None and (row["display_name"] == display_name or not display_name):
            return None if row["lang"] is None else str(row["lang"])
        return await self.write(sessions.save_user, platform, user_id, display_name)

    set_language = _writer(sessions.set_language)
    get_session = _reader(sessions.get_session)
    active_session = _reader(sessions.active_session)
    open_session = _reader(sessions.open_session)
    last_finished = _reader(sessions.last_finished)
    start_session = _writer(sessions.start_session)
    session_and_answer = _reader(sessions.session_and_answer)
    answers = _reader(sessions.answers)
    record_answer = _writer(sessions.record_answer)
    attempts = _reader(sessions.attempts)
    question_stats = _reader(sessions.question_stats)
    best = _reader(sessions.best)
    best_of = _reader(sessions.best_score)
    reset_user = _writer(sessions.reset_user)
    prune_abandoned = _writer(sessions.prune_abandoned)

    apply_review = _writer(learning.apply_review_alone)
    due_cards = _reader(learning.due_cards)
    cards = _reader(learning.cards)
    next_due = _reader(learning.next_due)
    due_count = _reader(learning.due_count)
    review_totals = _reader(learning.review_totals)
    review_days = _reader(learning.review_days)
    learner_settings = _reader(learning.learner_settings)
    save_settings = _writer(learning.save_settings)

    schedule_job = _writer(jobs.schedule)
    cancel_job = _writer(jobs.cancel_job)
    claim_due = _writer(jobs.claim_due)
    next_job_due = _reader(jobs.next_job_due)
    finish_job = _writer(jobs.finish_job)

    inbox_put = _writer(inbox.inbox_put)
    inbox_claim = _writer(inbox.inbox_claim)
    inbox_renew = _writer(inbox.inbox_renew)
    inbox_done = _writer(inbox.inbox_done)
    inbox_prune = _writer(inbox.inbox_prune)

    create_round = _writer(rounds.create_round)
    get_round = _reader(rounds.get_round)
    active_round = _reader(rounds.active_round)
    set_reward = _writer(rewards.set_reward)
    drop_reward = _writer(rewards.drop_reward)
    earn_reward = _writer(rewards.earn_reward)
    get_reward = _reader(rewards.get_reward)
    set_daily = _writer(daily.set_daily)
    drop_daily = _writer(daily.drop_daily)
    get_daily = _reader(daily.get_daily)
    start_daily = _writer(daily.start_daily)
    join_round = _writer(round_teams.join_round)
    round_members = _reader(round_teams.members)
    open_due_questions = _writer(rounds.open_due_questions)
    press_round = _writer(rounds.press_round)
    reveal_due_questions = _writer(rounds.reveal_due_questions)
    skip_round = _writer(rounds.skip_round)
    stop_round = _writer(rounds.stop_round)
    set_round_message = _writer(rounds.set_round_message)
    round_message = _reader(rounds.round_message)
    round_answers = _reader(rounds.round_answers)
    round_post = _reader(rounds.round_post)
    job_live = _reader(rounds.job_live)
    retry_post = _writer(rounds.retry_post)
    claimers = _reader(rounds.claimers)
    release_claims = _writer(rounds.release_claims)
    next_round_due = _reader(rounds.next_round_due)
    board = _reader(rounds.board)
