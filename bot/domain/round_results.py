"""Plain, frozen values `bot.features.rounds` returns and adapters render."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.domain.pipeline import ScheduleSpec


@dataclass(frozen=True, slots=True)
class RoundStarted:
    round_id: int
    lang: str
    quiz_title: str
    total: int  # questions in the round
    seconds: int
    host_name: str
    scoring: str = "accuracy"  # bot.domain.round_rules.SCORINGS
    teams: int = 0  # 0: no teams
    untimed: bool = False
    lobby: int = 0  # seconds to join before question 1 (team and untimed rounds)


@dataclass(frozen=True, slots=True)
class RoundQuestion:
    """An opened question, to post publicly in the chat."""

    round_id: int
    platform: str
    chat_id: str
    lang: str
    quiz_title: str
    host_name: str
    qindex: int  # 0-based
    total: int
    text: str
    options: tuple[str, ...]  # in this round's order
    seconds: int
    deadline: float  # epoch seconds
    untimed: bool = False  # open until every joined member answered (at most `seconds`)
    daily: bool = False  # a question of the day (open `seconds`, hours long)

    @property
    def number(self) -> int:
        return self.qindex + 1


# What a round's sink returns for a question it may have posted: the platform took the post
# and no answer came back (a time-out after sending). It is never posted again (a group
# shown the same question twice presses either copy); the round keeps its clock; the first
# press on it says which message it is, else its reveal is a message of its own.
MAYBE_POSTED = "?"


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    user_id: str
    display_name: str
    score: int  # correct answers so far
    time: float  # total seconds to the correct answers (lower wins a tie)
    points: int = 0  # the round's scoring mode's points (accuracy: the right answers)


@dataclass(frozen=True, slots=True)
class TeamStanding:
    """A team's place: its members' mean points (so a bigger team does not win by size)."""

    rank: int
    team: int  # 0-based; the presenter names it
    members: int
    score: float  # mean points (accuracy: mean right answers) over its members
    best: str  # its best member's name ("" while nobody scored)


@dataclass(frozen=True, slots=True)
class DailySet:
    """The chat's question of the day as it now stands (`on` False: switched off)."""

    lang: str
    on: bool
    quiz_title: str = ""
    post_minute: int = 0
    utc_offset: int = 0
    close_hours: float = 0.0
    next_at: float = 0.0
    stopped: str | None = None  # off by itself: 'forbidden' (no right to post), 'gone'


@dataclass(frozen=True, slots=True)
class PostingStopped:
    """The platform no longer lets the bot post in a chat (`reason`: 'forbidden', 'gone'):
    whom to tell what ended there (None: nothing ended now, or it was told already)."""

    platform: str
    chat_id: str
    reason: str
    round_host: str | None = None  # who started the round that ended
    daily_host: str | None = None  # who turned on the question of the day, now off


@dataclass(frozen=True, slots=True)
class RewardSet:
    """A quiz's reward in a server as it now stands (`removed`: there is none now)."""

    lang: str
    quiz_title: str
    role_name: str
    score: int
    total: int  # questions in the quiz
    removed: bool = False


@dataclass(frozen=True, slots=True)
class WeekRow:
    """A member's week of questions of the day: right answers of those answered."""

    rank: int
    name: str
    right: int
    answered: int


@dataclass(frozen=True, slots=True)
class DailyNotes:
    """What a question of the day's reveal adds: participation streaks (days in a row
    answered, the longest first) and, on Sundays, the week's standing."""

    streaks: tuple[tuple[str, int], ...]
    week: tuple[WeekRow, ...] = ()
    days: int = 0  # questions of the day in the week (Sunday's standing)


@dataclass(frozen=True, slots=True)
class RoundReveal:
    """A question's reveal: the answer, the spread, who got it, the standings.

    `question` is None when a round was stopped between questions; `final` when the round
    is over (then `standings` is the podium).
    """

    round_id: int
    platform: str
    chat_id: str
    lang: str
    quiz_title: str
    question: RoundQuestion | None
    correct: int  # shown index of the right option (-1 without a question)
    counts: tuple[int, ...]  # answers per shown option
    right: tuple[str, ...]  # who got it right, fastest first
    explanation: str
    standings: tuple[Standing, ...]
    message_ref: str | None  # the question message to edit into this reveal
    final: bool
    stopped: bool
    next_at: float | None  # when the next question opens
    revealed_at: float = 0.0
    last_qindex: int = -1  # the round's last opened question (the "Who answered?" list's)
    scoring: str = "accuracy"
    untimed: bool = False
    teams: tuple[TeamStanding, ...] = ()  # team rounds: the teams' standings
    daily: DailyNotes | None = None  # a question of the day's reveal
    takeaway: str = ""  # shown in the group instead of the explanation, when the quiz has it
    quiz_id: str = ""  # the round's quiz (rewards are per quiz)
    joined: int = 0  # members who joined by button (team and untimed rounds), answered or not
    idle: int = 0  # the round ended by itself after this many questions nobody answered
    # the lobby message whose join buttons come off: set on the reveal that ends the round
    lobby_ref: str | None = None


@dataclass(frozen=True, slots=True)
class LockedIn:
    """The member's answer is locked in (nothing about whether it is right)."""

    round_id: int
    lang: str
    letter: int  # shown index
    repeat: bool = False  # True: they had locked in before; this press changed nothing
    team: int | None = None  # the team this first answer put them on (joined late)
    joined: bool = False  # this answer joined them: an untimed round now waits for them too


@dataclass(frozen=True, slots=True)
class Joined:
    """A press of a round's join button: on a team (or in), already on one, or too late."""

    round_id: int
    lang: str
    outcome: str  # "joined", "already", "closed", "gone" (bot.store.round_rows.JoinWrite)
    team: int | None  # the member's team (None: drawn when question 1 opens, or no teams)
    drafted: bool = False  # a team round: a member without a team is drafted at question 1


@dataclass(frozen=True, slots=True)
class PressRefused:
    round_id: int
    lang: str
    reason: str  # "late" (deadline passed), "stale" (an earlier question), "gone"


RoundEvent = RoundQuestion | RoundReveal


@dataclass(frozen=True, slots=True)
class WhoRow:
    """One member in the private "Who answered?" list: their standing so far, and how
    they did on this question ("right", "wrong", or "" when they did not answer it)."""

    rank: int
    name: str
    score: int
    time: float
    mark: str
    points: int = 0  # the round's scoring mode's points (as in its standings)


@dataclass(frozen=True, slots=True)
class WhoAnswered:
    """One page of a question's full list, shown only to whoever asked."""

    round_id: int
    qindex: int
    chat_id: str  # the round's chat: only its members may read the list
    lang: str
    quiz_title: str
    number: int  # the question's number (1-based)
    total: int  # questions in the round
    page: int  # 0-based
    pages: int
    members: int  # everyone on the list
    answered: int  # of them, who answered this question
    rows: tuple[WhoRow, ...]
    takeaway: str = ""  # the question's point and its full explanation, shown privately
    explanation: str = ""
    scoring: str = "accuracy"  # how the round scores: the rows read as its standings do
    untimed: bool = False
    image: Path | None = None  # the explanation's picture ("The picture shows p = 4")
    schedule: ScheduleSpec | None = None  # the schedule it pictures


PressOutcome = LockedIn | PressRefused | WhoAnswered | Joined
