"""The store port: what the engine needs from storage, and the rows it gets back.

Every method is one database transaction (or one read). The rules that decide what a tap
does live in SQL, in the commands `record_answer` and `start_session`
(`bot.store.commands.sessions`, one body for both dialects), so that any number of processes
on one database agree: the database is the only truth. `bot.store.base.CommandStore` binds
each method to its command; `SQLiteStore` and `PostgresStore` only run commands.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ParamSpec, Protocol, TypeVar

from bot.domain.results import SessionKind
from bot.store.command import Command
from bot.store.inbox import InboxStore
from bot.store.learning import LearningStore, NewReview
from bot.store.round_rows import BestRow, RoundStore

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SessionRow:
    """A session as stored: its questions in order and how far it got."""

    id: int
    platform: str
    user_id: str
    chat_id: str | None
    quiz_id: str
    kind: SessionKind
    status: str  # "active", "finished", "abandoned"
    question_ids: tuple[str, ...]
    option_orders: tuple[tuple[int, ...], ...]  # per question: shown index -> file index
    position: int  # questions answered so far
    score: int
    started_at: float
    finished_at: float | None
    lang: str | None  # the owner's chosen language
    confidence: bool = False  # the owner asked to mark answers sure / guess
    utc_offset: int | None = None  # the owner's UTC offset in seconds (None: not read)
    seed: int | None = None  # the attempt's random seed for computed questions (None: none)

    @property
    def active(self) -> bool:
        return self.status == "active"


@dataclass(frozen=True, slots=True)
class AnswerRow:
    session_id: int
    position: int
    question_id: str
    chosen: int  # index in the quiz file; TYPED_OTHER for a typed number matching no option
    correct: bool
    typed: float | None = None  # the number typed instead of a tap, in the question's unit


@dataclass(frozen=True, slots=True)
class NewSession:
    platform: str
    user_id: str
    chat_id: str | None
    quiz_id: str
    kind: SessionKind
    question_ids: tuple[str, ...]
    option_orders: tuple[tuple[int, ...], ...]
    seed: int | None = None  # per-attempt random seed for computed questions
    started_at: float = field(kw_only=True)  # the engine's clock: the store keeps none


@dataclass(frozen=True, slots=True)
class NewAnswer:
    """One answer the engine judged; `record_answer` decides whether it counts."""

    session_id: int
    position: int
    question_id: str
    chosen: int
    correct: bool
    finished: bool  # the last question of the session
    quiz_id: str
    platform: str
    user_id: str
    chat_id: str | None
    total: int
    kind: SessionKind
    review: NewReview | None = None  # applied to the learner's card in the same transaction
    typed: float | None = None  # the number typed instead of a tap (computed questions)
    answered_at: float = field(kw_only=True)  # the engine's clock, as the review's stamp


class Write(StrEnum):
    """What `record_answer` did."""

    APPLIED = "applied"  # stored; the session moved on
    REPEAT = "repeat"  # this position was answered before; the stored answer stands
    STALE = "stale"  # the session is not at this position any more (or is gone)


@dataclass(frozen=True, slots=True)
class Recorded:
    outcome: Write
    answer: AnswerRow | None  # the stored answer (APPLIED and REPEAT)
    score: int  # the session's score right after the answer (APPLIED), else 0


class Store(LearningStore, RoundStore, InboxStore, Protocol):
    """What the engine needs from storage; SQLite and PostgreSQL implement it."""

    # Called with the duration in seconds of each committed write transaction (metrics).
    on_commit: Callable[[float], None] | None

    async def touch_user(self, platform: str, user_id: str, display_name: str) -> str | None:
        """Create the user or update their name; return their chosen language, if any."""

    async def set_language(self, platform: str, user_id: str, lang: str) -> None:
        """Persist the user's language choice (creating the user if needed)."""

    async def get_session(self, session_id: int) -> SessionRow | None:
        """The session with this id, or None."""

    async def active_session(self, platform: str, user_id: str, quiz_id: str
                             ) -> SessionRow | None:
        """The user's unfinished session of this quiz, if any."""

    async def open_session(self, platform: str, user_id: str) -> SessionRow | None:
        """The user's most recently started unfinished session in a private chat."""

    async def last_finished(self, platform: str, user_id: str, quiz_id: str
                            ) -> SessionRow | None:
        """The user's most recently finished full attempt of this quiz."""

    async def start_session(self, new: NewSession, *, replace: bool,
                            keep_since: float | None = None) -> SessionRow:
        """In one transaction: return the user's active session of the quiz unless `replace`,
        else abandon it (kept in history) and store `new`; with `keep_since`, an active
        session of the same kind started since then and not yet answered is returned. Two concurrent
        starts of one user end with one active session."""

    async def session_and_answer(self, session_id: int, position: int
                                 ) -> tuple[SessionRow | None, AnswerRow | None]:
        """The session and its answer at `position` (if any), in one read."""

    async def answers(self, session_id: int) -> list[AnswerRow]:
        """Every answer of the session, in position order."""

    async def record_answer(self, answer: NewAnswer) -> Recorded:
        """In one transaction: advance the session by a guarded update (only if it is active
        and at `answer.position`), store the answer, and on the last question finish the
        session and keep the best score. Whatever the interleaving, a position counts once."""

    async def attempts(self, platform: str, user_id: str, quiz_id: str
                       ) -> tuple[int, int | None, int | None]:
        """(finished full attempts, best score, last score) of the user on the quiz."""

    async def question_stats(self, platform: str, user_id: str, quiz_id: str
                             ) -> dict[str, tuple[int, int]]:
        """question id -> (times answered, times right), over the user's full attempts."""

    async def best(self, quiz_id: str, scope: str, limit: int) -> list[BestRow]:
        """Top best scores in a scope ('' global, '<platform>:<chat>'), earlier finish first
        among equals."""

    async def best_of(self, quiz_id: str, platform: str, user_id: str) -> int | None:
        """The user's global best score on this quiz."""

    async def reset_user(self, platform: str, user_id: str) -> int:
        """Delete the user's sessions, answers, scores, cards and reviews (the language and
        learning settings stay); return how many sessions went."""

    async def prune_abandoned(self, before: float) -> int:
        """Delete abandoned sessions without a single answer started before `before`;
        return how many went (the rule of `bot.features.housekeeping`)."""

    async def read(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a read-only store command (`bot.store.commands`), e.g. the dashboard's."""

    async def write(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs
                    ) -> T:
        """Run a store command in one write transaction (e.g. the dashboard's used links,
        installing a quiz); it may be run again after a rollback, so it decides only from
        what it reads."""

    async def close(self) -> None:
        """Finish queued writes and close every connection."""


def scopes_of(platform: str, chat_id: str | None) -> list[str]:
    """The leaderboard scopes a finished attempt counts in: global, and its chat if any."""
    return [""] + ([f"{platform}:{chat_id}"] if chat_id else [])


__all__ = ["AnswerRow", "BestRow", "NewAnswer", "NewSession", "Recorded", "SessionRow", "Store",
           "Write", "scopes_of"]
