"""The rows of study-group rounds (and questions of the day, and rewards), and reading them.

Who locks in, who reveals, who opens the next question is decided in SQL by the commands in
`bot.store.commands.rounds_sql`: a guarded statement whose row count decides, so two
processes on one database agree: a press counts once, a question is revealed once.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.store.rows import NewReview, columns


@dataclass(frozen=True, slots=True)
class NewRound:
    platform: str
    chat_id: str  # where the round's messages go (a Telegram group, a Discord channel)
    board_chat: str  # whose leaderboard it counts on (the group, the Discord server)
    host_id: str
    host_name: str
    quiz_id: str
    lang: str
    question_ids: tuple[str, ...]
    option_orders: tuple[tuple[int, ...], ...]  # per question: shown index -> file index
    seconds: int
    reveal_pause: float
    seed: int | None = None  # one draw for every member (computed questions)
    scoring: str = "accuracy"  # bot.domain.round_rules.SCORINGS
    teams: int = 0  # 0: no teams
    untimed: bool = False  # reveal once every joined member answered
    lobby: float = 0.0  # seconds members may join (team, untimed rounds) before question 1
    kind: str = "round"  # "daily": a question of the day


@dataclass(frozen=True, slots=True)
class RoundRow:
    id: int
    platform: str
    chat_id: str
    board_chat: str
    host_id: str
    host_name: str
    quiz_id: str
    lang: str
    question_ids: tuple[str, ...]
    option_orders: tuple[tuple[int, ...], ...]
    seconds: int
    reveal_pause: float
    status: str  # "active", "finished", "stopped"
    position: int  # the last opened question; -1 before the first
    next_open_at: float | None  # when the next question opens; None while one is open
    started_at: float
    finished_at: float | None
    seed: int | None = None  # one draw for every member (computed questions)
    scoring: str = "accuracy"
    teams: int = 0
    untimed: bool = False
    kind: str = "round"  # "daily": a question of the day
    ended_idle: int = 0  # it ended after this many questions in a row nobody answered
    lobby_ref: str | None = None  # the lobby message (join buttons), once posted

    @property
    def lobby(self) -> bool:
        """True for a round members join before it starts (teams, untimed)."""
        return self.teams > 0 or self.untimed

    @property
    def total(self) -> int:
        return len(self.question_ids)

    @property
    def active(self) -> bool:
        return self.status == "active"


@dataclass(frozen=True, slots=True)
class RoundAnswer:
    user_id: str
    display_name: str
    qindex: int
    chosen: int  # index in the quiz file
    correct: bool
    elapsed: float  # seconds from the question opening to the press


@dataclass(frozen=True, slots=True)
class RoundMember:
    """A member who joined a team (or untimed) round; team None: not drawn yet."""

    user_id: str
    display_name: str
    team: int | None


@dataclass(frozen=True, slots=True)
class NewPress:
    round_id: int
    qindex: int
    user_id: str
    display_name: str
    chosen: int  # index in the quiz file
    correct: bool
    now: float
    teams: int = 0  # the round's: a member's first press places them on the smallest team
    untimed: bool = False  # the round's: every press joins, and any question reveals early
    # the member's card update, applied in the lock-in's transaction (as a solo answer's is)
    review: NewReview | None = None


class JoinWrite(StrEnum):
    """What `join_round` did."""

    JOINED = "joined"  # on the team asked for (None: drawn when question 1 opens)
    ALREADY = "already"  # joined before; their team stands for the whole round
    CLOSED = "closed"  # question 1 is out: answering joins (the smallest team)
    GONE = "gone"  # no such running round


@dataclass(frozen=True, slots=True)
class Joining:
    outcome: JoinWrite
    team: int | None  # the member's team as stored (None: not drawn yet)


class PressWrite(StrEnum):
    """What `press_round` did."""

    LOCKED = "locked"  # stored: the member's answer to this question
    REPEAT = "repeat"  # already locked in; the stored answer stands
    LATE = "late"  # the question's deadline passed (or it was revealed)
    STALE = "stale"  # an earlier question, or a finished round
    GONE = "gone"  # no such round or question


@dataclass(frozen=True, slots=True)
class Pressed:
    outcome: PressWrite
    chosen: int | None  # the stored answer (LOCKED and REPEAT), a file index
    early: bool = False  # every member has answered: the deadline was moved to now
    team: int | None = None  # the team this answer put its member on (a late joiner's)
    joined: bool = False  # this answer joined its member (a team or untimed round)


@dataclass(frozen=True, slots=True)
class RoundPost:
    """What a round's post job shows (a question, its reveal, a stop), read afresh when it
    runs (after a restart too), and what a stop shows at once."""

    round: RoundRow  # as it stands now
    qindex: int  # -1: a round stopped before any question
    deadline: float | None  # None: no such question (a stop between questions shows none)
    revealed_at: float | None
    message_ref: str | None
    answers: tuple[RoundAnswer, ...]  # every answer up to this question
    members: tuple[RoundMember, ...] = ()  # who joined (team and untimed rounds)
    history: DailyHistory | None = None  # a question of the day's: the chat's recent ones

    @property
    def final(self) -> bool:
        return not self.round.active


def post_kind(platform: str) -> str:
    """The job kind of one platform's round posts (its driver claims only these)."""
    return f"round:{platform}"


def post_key(round_id: int, qindex: int, what: str) -> str:
    """One job per post: "q" a question, "r" its reveal, "s" a stop between questions."""
    return f"round:{round_id}:{qindex}:{what}"


def post_keys_like(round_id: int) -> str:
    """A LIKE pattern matching every post key of the round (`post_key`)."""
    return f"round:{round_id}:%"


@dataclass(frozen=True, slots=True)
class DailyRow:
    """A chat's question of the day: when it is posted (local time) and for how long."""

    platform: str
    chat_id: str
    board_chat: str
    quiz_id: str | None  # None: the default quiz
    lang: str
    post_minute: int  # minutes after local midnight
    utc_offset: int  # minutes east of UTC
    close_hours: float
    host_id: str
    host_name: str


@dataclass(frozen=True, slots=True)
class DailyAnswer:
    """A member's answer to one of a chat's questions of the day (for streaks, the week)."""

    round_id: int
    started_at: float
    user_id: str
    display_name: str
    correct: bool


@dataclass(frozen=True, slots=True)
class DailyHistory:
    """A chat's recent questions of the day, newest first, and who answered them."""

    days: tuple[tuple[int, float], ...]  # (round id, started at), newest first
    answers: tuple[DailyAnswer, ...]
    utc_offset: int  # the chat's (minutes east of UTC): which day is Sunday


@dataclass(frozen=True, slots=True)
class RewardRow:
    """A server's reward for a quiz: the role granted on reaching `score` right answers."""

    platform: str
    guild_id: str
    quiz_id: str
    role_id: str
    role_name: str
    score: int
    set_by: str


ROUND_SQL = f"SELECT {columns(RoundRow)} FROM rounds "
