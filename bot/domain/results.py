"""Plain, frozen values the engine returns and adapters render."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from bot.domain.pipeline import ScheduleSpec
from bot.domain.round_results import Joined, LockedIn, PressRefused, WhoAnswered
from bot.domain.stats_results import TopicLine


@dataclass(frozen=True, slots=True)
class Actor:
    """Who did something, and where: the only identity the engine knows."""

    platform: str  # "telegram", "discord", "terminal"
    user_id: str
    chat_id: str | None = None  # group chat / guild; None in private chats
    display_name: str = ""
    locale: str | None = None  # platform's language hint, e.g. Telegram's language_code

    def __post_init__(self) -> None:
        # A name can carry half a character: a lone UTF-16 surrogate from a client that cut
        # an emoji, or a byte that is not UTF-8 in a terminal user's name (Python decodes it
        # as one). Neither can be stored or sent as UTF-8, so it becomes U+FFFD here, once.
        for name in ("user_id", "display_name"):
            value = getattr(self, name)
            if not value.isascii():  # O(1) in CPython: the common case costs nothing
                object.__setattr__(self, name, whole_text(value))


_SURROGATE = re.compile("[\ud800-\udfff]")


def whole_text(text: str) -> str:
    """`text` with every unpaired UTF-16 surrogate replaced by U+FFFD (paired ones are
    already one character in a Python str), so that it encodes as UTF-8."""
    return _SURROGATE.sub("\ufffd", text)


class SessionKind(StrEnum):
    FULL = "full"
    REVIEW = "review"
    DUE = "due"  # spaced review: the learner's due questions across every quiz


@dataclass(frozen=True, slots=True)
class Reference:
    title: str
    url: str


@dataclass(frozen=True, slots=True)
class QuestionPrompt:
    """One question as the learner sees it: options already in this session's order."""

    session_id: int
    quiz_id: str
    quiz_title: str
    lang: str
    kind: SessionKind
    position: int  # 0-based position in this session
    total: int
    question_id: str
    text: str
    options: tuple[str, ...]
    resumed: bool = False  # True when an unfinished session was picked up again
    joined: bool = False  # another start made it seconds ago: its question is already shown
    confidence: bool = False  # ask "sure or guess" with the answer (the learner opted in)
    score: int = 0  # right answers before this question (the header's running score)
    # A computed question takes a typed number too: an example of one ("1.2 GB"), else None.
    typed_example: str | None = None
    topic: str | None = None  # practice of one topic (/review topic:NAME): its name, shown
    # the quiz's languages when the learner's is not one of them (said above question 1)
    only_in: tuple[str, ...] = ()

    @property
    def number(self) -> int:
        """1-based question number, for display."""
        return self.position + 1


@dataclass(frozen=True, slots=True)
class MissedQuestion:
    position: int  # 0-based position in the session
    question_id: str
    text: str
    correct_option: str


@dataclass(frozen=True, slots=True)
class NextStep:
    """What to do after a quiz: practise the weakest topic, or the quiz the content names
    next."""

    kind: str  # "topic" or "quiz"
    id: str  # the topic id or the quiz id
    name: str  # its name in the learner's language
    percent: int | None = None  # a topic's mastery, 0..100


@dataclass(frozen=True, slots=True)
class Summary:
    """A finished session."""

    session_id: int
    quiz_id: str
    quiz_title: str
    lang: str
    kind: SessionKind
    score: int
    total: int
    missed: tuple[MissedQuestion, ...]
    best_score: int | None = None  # best full-attempt score, after this one
    best_total: int | None = None  # the questions that best was out of (None: `total`)
    next_step: NextStep | None = None
    topics: tuple[TopicLine, ...] = ()  # the mastery of this quiz's topics, weakest first
    topic: str | None = None  # practice of one topic: its name, shown
    # spaced review: when the next question falls due, (unit, amount), ("now", 0) when one
    # is due already; None when none is (or for any other session)
    next_due: tuple[str, int] | None = None


@dataclass(frozen=True, slots=True)
class AnswerResult:
    """The outcome of one accepted (or repeated) answer."""

    session_id: int
    lang: str
    question: QuestionPrompt  # the question that was answered
    chosen: int  # displayed option index the learner picked
    correct: int  # displayed option index of the right answer
    is_correct: bool
    explanation: str
    rationale: str | None  # "why not" for the chosen wrong option
    references: tuple[Reference, ...]
    answered: int  # questions answered so far in this session
    score: int  # correct answers so far
    next: QuestionPrompt | None
    summary: Summary | None
    duplicate: bool = False  # True when this tap had already been recorded
    sure: bool | None = None  # the confidence mark given with this answer, if asked
    image: Path | None = None  # a picture for the explanation (Telegram photo, Discord embed)
    timeline: str | None = None  # the same schedule as monospace text, for the terminal
    # the schedule the explanation shows, drawn for a computed question's numbers (no image)
    schedule: ScheduleSpec | None = None
    takeaway: str | None = None  # the one line a learner keeps, shown before the explanation
    typed: str | None = None  # the number typed instead of a tap, as shown ("1.2 GB")

    @property
    def is_last(self) -> bool:
        return self.summary is not None


@dataclass(frozen=True, slots=True)
class StaleAnswer:
    """A tap on a question that is no longer the current one (or a finished session)."""

    session_id: int
    lang: str
    current: QuestionPrompt | None  # where the session really is, if still active
    # the quiz (id, title) changed under this unfinished attempt (a question gone, its
    # options changed): it cannot go on, the new version starts afresh
    changed: tuple[str, str] | None = None
    removed: bool = False  # the quiz of this unfinished attempt is no longer offered


@dataclass(frozen=True, slots=True)
class NotYours:
    """A tap on someone else's session or button; nothing changed."""

    session_id: int
    lang: str
    command: str = "/quiz"  # what gives the presser their own (`OwnedPayload.command`)


AnswerOutcome = AnswerResult | StaleAnswer | NotYours


@dataclass(frozen=True, slots=True)
class TypedRefused:
    """A typed answer that could not be read as a number in the question's unit; nothing
    was recorded. `key` names the locale string (typed.not_number, typed.wrong_unit,
    typed.too_long), `fields` fill it."""

    session_id: int
    lang: str
    key: str
    fields: tuple[tuple[str, str], ...] = ()


TypedOutcome = AnswerOutcome | TypedRefused


@dataclass(frozen=True, slots=True)
class LanguageSet:
    """The learner chose a language (its Start goes on with the quiz left unfinished)."""

    lang: str


@dataclass(frozen=True, slots=True)
class ReportAsked:
    """"Report a problem" pressed: the learner picks a reason next."""

    lang: str
    session_id: int
    position: int


@dataclass(frozen=True, slots=True)
class ReportDone:
    """A report stored, or refused: `outcome` is "stored", "limit" (too many today) or
    "gone" (not the presser's answered question)."""

    lang: str
    outcome: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ResetDone:
    """The learner confirmed /reset: their sessions and scores are gone."""

    lang: str
    sessions: int


@dataclass(frozen=True, slots=True)
class ResetCancelled:
    lang: str


@dataclass(frozen=True, slots=True)
class UnknownButton:
    """A button this version does not understand (forged, or from an old release).
    `of_round`: pressed on a message the whole chat sees, where only a round's buttons (and
    group-wide ones) live, or on a round's own page: /quiz is no way on from there."""

    lang: str
    of_round: bool = False


@dataclass(frozen=True, slots=True)
class SettingsView:
    """A learner's learning settings as shown by /settings."""

    lang: str
    confidence: bool
    remind_at: str | None  # "19:30" local, None: off
    utc_offset: str  # "UTC+05:00"


@dataclass(frozen=True, slots=True)
class Where:
    """Where a button was pressed, as the platform says: the chat and the message the
    button sits on, and whether everyone in that chat sees the message (a Telegram group
    message, a Discord channel message that is not ephemeral). Clients lie about a button's
    data, never about these (Telegram's docs: bind every press to its chat and message)."""

    chat_id: str
    message_id: str | None
    shared: bool
    # the data of every button on the message as it stands, where the platform says
    # (Telegram sends the message with each press); None: not known
    buttons: frozenset[str] | None = None

    def carries(self, data: str) -> bool:
        """False when the message's buttons are known and `data` is none of them."""
        return self.buttons is None or data in self.buttons

    @classmethod
    def nowhere(cls) -> Where:
        """A press the platform attached no message to (a forged update: Telegram attaches
        the message of every button the bot sent): it is on no chat's message."""
        return cls("", None, shared=True)

    def on(self, chat_id: str) -> bool:
        """True when the press is on a message in `chat_id` (a press on no message is on
        none): the one rule every round button is bound by."""
        return self.message_id is not None and self.chat_id == chat_id


@dataclass(frozen=True, slots=True)
class Misplaced:
    """A press of a button that does not belong on the message it was pressed on (a round's
    button from another chat or message, a solo answer on a shared message): refused."""

    lang: str


@dataclass(frozen=True, slots=True)
class QuizCount:
    """The quizzes on offer, as the welcome and /help count them: quizbot's own (on model
    and pipeline parallelism) and those added here (a maintainer's files, admins' uploads),
    which may be on any subject."""

    built_in: int
    own: int = 0


@dataclass(frozen=True, slots=True)
class QuizInfo:
    id: str
    title: str
    description: str
    difficulty: str
    questions: int
    languages: tuple[str, ...]
    level: str = "intermediate"  # introduction | intermediate | advanced | expert
    next: str | None = None  # the quiz the content suggests after this one


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    """One quiz as the catalogue lists it, with the learner's best full score."""

    info: QuizInfo
    best: int | None = None
    best_total: int | None = None  # the questions the best was out of (a round's may be fewer)
    answered: int | None = None  # an unfinished attempt: the questions answered so far


@dataclass(frozen=True, slots=True)
class QuizList:
    """The catalogue (/quizzes, `quizbot list`): every quiz, easiest level first."""

    lang: str
    entries: tuple[CatalogueEntry, ...]
    default_id: str  # the quiz a newcomer is pointed at first

    def only(self, ids: Collection[str] | None) -> QuizList:
        """Just the quizzes with these ids (a typed name several titles hold), in order;
        every one for None."""
        if ids is None:
            return self
        return replace(self, entries=tuple(e for e in self.entries if e.info.id in ids))


PressOutcome = (AnswerOutcome | QuestionPrompt | LanguageSet | ResetDone | ResetCancelled
                | UnknownButton | SettingsView | LockedIn | PressRefused | WhoAnswered
                | Joined | Misplaced | QuizList | ReportAsked | ReportDone)


@dataclass(frozen=True, slots=True)
class InstallOutcome:
    """An installed quiz: what the admin is told."""

    quiz_id: str
    title: str
    questions: int
    version: int
    warnings: tuple[str, ...] = ()
    unchanged: bool = False  # the very content installed already: its version stands
    # a new version of an installed quiz: the title it had, and its questions kept (by id,
    # so with learners' progress), new and gone; None for a first install
    before: str | None = None
    kept: int = 0
    added: int = 0
    removed: int = 0


@dataclass(frozen=True, slots=True)
class GroupView:
    """A group's own settings, for /settings there: the quiz rounds and /quiz start
    (`chosen`: the admins chose it; else the bot's default) and the round language (None:
    each starter's own)."""

    lang: str  # the reader's
    quiz_id: str
    quiz_title: str
    chosen: bool
    group_lang: str | None
    gone: bool = False  # the admins chose a quiz since removed: the default stands in
