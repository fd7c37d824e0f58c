"""The store's rows: what commands take and hand back, and reading them from database rows.

Every dataclass here is plain data; the commands (`bot.store.commands`) are the only code
that builds them from rows, with `from_row`: a row's columns are named as the fields (same
column types on SQLite and PostgreSQL). Round rows are in `bot.store.round_rows`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, TypeVar

from bot.domain.results import SessionKind

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
    topic: str | None = None  # the topic a practice session (/review topic:NAME) was for
    lang_set_at: float | None = None  # when the owner last changed language (None: never)

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
    topic: str | None = field(default=None, kw_only=True)  # a practice session's topic


@dataclass(frozen=True, slots=True)
class NewAnswer:
    """One answer the engine judged; `record_answer` decides whether it counts."""

    session_id: int
    position: int
    question_id: str
    chosen: int
    correct: bool
    finished: bool  # the last question of the session
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


def chat_scope(platform: str, chat_id: str) -> str:
    """A chat's leaderboard scope (`best_scores.scope`): its board and its members' bests."""
    return f"{platform}:{chat_id}"


def scopes_of(platform: str, chat_id: str | None) -> list[str]:
    """The leaderboard scopes a finished attempt counts in: global, and its chat if any."""
    return [""] + ([chat_scope(platform, chat_id)] if chat_id else [])


@dataclass(frozen=True, slots=True)
class BestRow:
    """One line of a leaderboard (solo best scores and round boards alike)."""

    platform: str
    user_id: str
    display_name: str
    score: int
    total: int
    finished_at: float


@dataclass(frozen=True, slots=True)
class BoardPlace:
    """How many members a leaderboard ranks, and one member's row and place on it."""

    members: int
    row: BestRow | None  # None: the member is not on this board
    rank: int  # 0 when not on it


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
    remind_stopped_at: float | None = None  # the platform refused them: tell the learner once


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


def review_key(session_id: int, position: int) -> str:
    """The idempotency key of a solo answer's review."""
    return f"s:{session_id}:{position}"


def reminder_key(platform: str, user_id: str) -> str:
    return f"remind:{platform}:{user_id}"


@dataclass(frozen=True, slots=True)
class InboxRow:
    update_id: int
    body: str  # the update as received (JSON text)
    attempts: int  # claims so far, this one included


# The owner's language, confidence setting and UTC offset come with the session: a tap
# needs one read.
SESSION_COLUMNS = (
    "s.id, s.platform, s.user_id, s.chat_id, s.quiz_id, s.kind, s.status, s.question_ids, "
    "s.option_orders, s.position, s.score, s.started_at, s.finished_at, u.lang, "
    "COALESCE(ls.confidence, 0) AS confidence, COALESCE(ls.utc_offset, 0) AS utc_offset, "
    "s.seed, s.topic, u.lang_set_at")
SESSION_FROM = (
    "FROM sessions s JOIN users u ON u.platform = s.platform AND u.user_id = s.user_id "
    "LEFT JOIN learner_settings ls ON ls.platform = s.platform AND ls.user_id = s.user_id ")
SESSION_SQL = f"SELECT {SESSION_COLUMNS} {SESSION_FROM}"


def columns(cls: type[Any], alias: str = "") -> str:
    """The dataclass's fields as a column list (`alias.` before each): a row type whose
    fields are its table's columns is selected by it."""
    return ", ".join(f"{alias}{f.name}" for f in dataclasses.fields(cls))


def from_row(cls: type[T], row: Any, **given: Any) -> T:
    """A row dataclass from a database row whose columns are named as its fields (those in
    `given` come from the caller), each converted by its annotation: int, float, bool or
    an enum by calling it, a tuple or dict from its JSON text. NULL stays None."""
    for name, read in _readers(cls):
        if name not in given:
            value = row[name]
            given[name] = value if value is None or read is None else read(value)
    return cls(**given)


def first(cls: type[T], rows: list[Any]) -> T | None:
    """The first row as a `cls` (`from_row`), or None when there is none."""
    return from_row(cls, rows[0]) if rows else None


_READERS: dict[type[Any], tuple[tuple[str, Callable[[Any], Any] | None], ...]] = {}


def _readers(cls: type[Any]) -> tuple[tuple[str, Callable[[Any], Any] | None], ...]:
    """Each field's name and reader, worked out once per class."""
    if cls not in _READERS:
        hints = typing.get_type_hints(cls)
        _READERS[cls] = tuple((f.name, _reader(hints[f.name])) for f in dataclasses.fields(cls))
    return _READERS[cls]


def _reader(hint: Any) -> Callable[[Any], Any] | None:
    """How a column becomes a field of this type (None: as it is)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    if hint is str or hint is Any:
        return None
    if hint in (int, float, bool):
        return hint  # type: ignore[no-any-return]
    if isinstance(hint, type) and issubclass(hint, Enum):
        members = {m.value: m for m in hint}  # a dict lookup: every session read makes one
        return lambda value: members.get(value) or hint(value)
    if typing.get_origin(hint) is tuple:
        return _tuple_of
    if typing.get_origin(hint) is dict:
        return lambda text: _frozen(json.loads(text))
    raise TypeError(f"no column reader for {hint!r}")


# A session's question ids and option orders are read on every tap of it (the ids are the
# same text for every unshuffled session of a quiz): decoded once per text while in use.
# Tuples of JSON scalars, so sharing them is safe.
@functools.lru_cache(maxsize=2048)
def _tuple_of(text: str) -> Any:
    return _frozen(json.loads(text))


def _frozen(value: Any) -> Any:
    """JSON lists as (nested) tuples; anything else as it is."""
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value
