"""The store port for spaced review and due jobs: rows and the methods behind them.

`Store` extends `LearningStore`, which extends `JobStore` (the scheduler needs only that);
the commands behind them are `bot.store.commands.learning` and `bot.store.commands.jobs`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class NewReview:
    """An answer that counted, applied to the learner's card once (keyed by `answer_key`)."""

    answer_key: str  # "s:<session>:<position>" for solo answers; rounds use their own prefix
    platform: str
    user_id: str
    quiz_id: str
    question_id: str
    correct: bool
    sure: bool | None
    rating: int  # fsrs.Rating
    reviewed_at: float
    # Stored card JSON (None for a new card) -> (new card JSON, due time); pure, so it may run
    # inside the transaction and again after a rollback.
    update: Callable[[str | None], tuple[str, float]] = field(compare=False)
    # The learner's UTC offset in seconds when the caller knows it (read with the session),
    # else None and the store looks it up: it decides the local day a streak counts.
    utc_offset: int | None = None


@dataclass(frozen=True, slots=True)
class CardRow:
    quiz_id: str
    question_id: str
    card: str  # fsrs.Card JSON
    due_at: float
    reviews: int


@dataclass(frozen=True, slots=True)
class ReviewTotal:
    """Reviews of one question with one confidence mark (None: not asked)."""

    quiz_id: str
    question_id: str
    sure: bool | None
    answered: int
    correct: int


@dataclass(frozen=True, slots=True)
class DayTotal:
    day: int  # the learner's local day number
    answered: int
    correct: int


@dataclass(frozen=True, slots=True)
class LearnerSettings:
    platform: str
    user_id: str
    confidence: bool = False
    utc_offset: int = 0  # minutes east of UTC
    remind_at: int | None = None  # minutes after local midnight; None: reminders off
    chat_id: str | None = None  # where reminders go


def settings_of(platform: str, user_id: str, row: Any) -> LearnerSettings:
    """A learner's settings from a `learner_settings` row (defaults when there is none)."""
    if row is None:
        return LearnerSettings(platform, user_id)
    return LearnerSettings(platform, user_id, bool(row["confidence"]), int(row["utc_offset"]),
                           row["remind_at"], row["chat_id"])


@dataclass(frozen=True, slots=True)
class NewJob:
    kind: str
    key: str  # one live job per key; scheduling a key again replaces its job
    due_at: float
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class JobRow:
    id: int
    kind: str
    key: str
    due_at: float
    payload: dict[str, Any]
    claimed_at: float
    claimed_by: str
    attempts: int  # claims so far, this one included


class JobStore(Protocol):
    """Due jobs, claimed so that of any number of processes exactly one runs each."""

    async def schedule_job(self, job: NewJob) -> None:
        """Insert the job, or replace the live job with the same key (unclaimed again)."""

    async def cancel_job(self, key: str) -> bool:
        """Delete the job with this key; True if there was one."""

    async def claim_due(self, now: float, limit: int, worker: str, lease: float,
                        kinds: Sequence[str] | None = None) -> list[JobRow]:
        """Claim up to `limit` jobs due by `now` (of `kinds`, if given: what this process can
        run), oldest first, by one conditional UPDATE ... RETURNING: unclaimed ones, and ones
        whose claim is older than `lease` seconds (their runner died)."""

    async def next_job_due(self, kinds: Sequence[str], lease: float) -> float | None:
        """When the earliest job of `kinds` can next be claimed (due, or its lease over);
        None when there is none. A read: asking it writes nothing."""

    async def finish_job(self, job: JobRow, next_due_at: float | None) -> bool:
        """Done: delete the job, or move it to `next_due_at` unclaimed. Only while `job` is
        still our claim (claimed_by and claimed_at unchanged); False otherwise."""


class LearningStore(JobStore, Protocol):
    """Cards, reviews and learner settings."""

    async def apply_review(self, review: NewReview) -> bool:
        """In one transaction: log the review unless its key was seen (its day is the local
        day at the learner's stored offset), and if it was new move the card. True if it
        applied. `record_answer` does the same inside its own transaction."""

    async def due_cards(self, platform: str, user_id: str, now: float, limit: int
                        ) -> list[CardRow]:
        """The learner's cards due by `now`, most overdue first."""

    async def cards(self, platform: str, user_id: str) -> list[CardRow]:
        """Every card of the learner."""

    async def next_due(self, platform: str, user_id: str) -> tuple[int, float | None]:
        """(cards the learner has, earliest due time or None)."""

    async def due_count(self, platform: str, user_id: str, now: float) -> int:
        """How many of the learner's cards are due by `now`."""

    async def review_totals(self, platform: str, user_id: str) -> list[ReviewTotal]:
        """Reviews per (quiz, question, confidence mark)."""

    async def review_days(self, platform: str, user_id: str, since_day: int) -> list[DayTotal]:
        """Reviews per local day from `since_day` on, in day order."""

    async def learner_settings(self, platform: str, user_id: str) -> LearnerSettings:
        """The learner's settings (defaults when never set)."""

    async def save_settings(self, settings: LearnerSettings, *, job: NewJob | None = None,
                            cancel_job: str | None = None) -> None:
        """In one transaction: store the settings (creating the user if needed), and
        schedule `job` or cancel the job keyed `cancel_job`."""


def review_key(session_id: int, position: int) -> str:
    """The idempotency key of a solo answer's review."""
    return f"s:{session_id}:{position}"


def reminder_key(platform: str, user_id: str) -> str:
    return f"remind:{platform}:{user_id}"


__all__ = ["CardRow", "DayTotal", "JobRow", "JobStore", "LearnerSettings", "LearningStore",
           "NewJob", "NewReview", "ReviewTotal", "reminder_key", "review_key"]
