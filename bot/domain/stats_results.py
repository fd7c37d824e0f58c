"""Plain, frozen values of a learner's record the engine returns and adapters render:
/stats (per quiz and spaced-review progress), the leaderboard, the mastery map, reminders."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace


@dataclass(frozen=True, slots=True)
class TopicLine:
    """One topic on the learner's mastery map: its score (0-100, `bot.features.mastery`),
    the questions answered, and how often an answer marked "sure" there was right."""

    topic: str
    name: str
    percent: int
    answered: int
    sure: int = 0
    sure_right: int = 0


@dataclass(frozen=True, slots=True)
class QuestionStat:
    question_id: str
    text: str
    answered: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0


@dataclass(frozen=True, slots=True)
class UserStats:
    lang: str
    quiz_id: str
    quiz_title: str
    display_name: str
    attempts: int
    best_score: int | None
    last_score: int | None
    total: int  # questions in the quiz
    questions: tuple[QuestionStat, ...] = field(default_factory=tuple)
    own: bool = True  # False when someone looks at another member's stats
    # questions in the best and the last attempt (a round's may be fewer); None: `total`
    best_total: int | None = None
    last_total: int | None = None


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    rank: int
    display_name: str
    platform: str
    user_id: str
    score: int
    total: int
    finished_at: float


def ranked(rows: Iterable[LeaderboardRow]) -> tuple[LeaderboardRow, ...]:
    """Board rows, best first, with their places: members level on score who finished at the
    same moment (a round's members all finish at its end) share a place, and the next place
    counts them ("1, 1, 3"); else the earlier finish is placed first."""
    out: list[LeaderboardRow] = []
    for i, row in enumerate(rows, 1):
        level = out and (out[-1].score, out[-1].finished_at) == (row.score, row.finished_at)
        out.append(replace(row, rank=out[-1].rank if level else i))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Leaderboard:
    lang: str
    quiz_id: str
    quiz_title: str
    scope: str  # "global" or "chat"
    rows: tuple[LeaderboardRow, ...]
    questions: int  # in the quiz: a row's badge needs an attempt that asked them all
    kind: str = "all"  # "all", or only "solo" attempts, or only "rounds"
    members: int = 0  # ranked on the board; `rows` shows the first of them
    mine: LeaderboardRow | None = None  # the asker's line, when `rows` leaves them out
    absent: bool = False  # the asker is not on the board (which is not empty)


# --- spaced review, reminders, progress ---------------------------------------------------

@dataclass(frozen=True, slots=True)
class Wait:
    """How long until something, in the largest whole unit that fits ("in 3 days")."""

    unit: str  # "minutes", "hours", "days"
    amount: int


@dataclass(frozen=True, slots=True)
class ReminderNote:
    """A reminder to send: the platform adapter renders and delivers it."""

    platform: str
    user_id: str
    chat_id: str | None  # None: the user's private chat (same id as the user)
    lang: str
    due: int  # questions due now


@dataclass(frozen=True, slots=True)
class DayStat:
    label: str  # "03-14"
    answered: int
    correct: int


@dataclass(frozen=True, slots=True)
class Progress:
    """Spaced-review progress across every quiz, for /stats (text and chart)."""

    lang: str
    display_name: str
    cards: int  # questions the learner has a memory card for
    due_now: int
    next_due: Wait | None  # when the next card falls due, if none is due now
    streak: int  # local days in a row with at least one review
    retention: float | None  # mean FSRS recall probability now, over their cards
    sure_answered: int
    sure_correct: int
    guess_answered: int
    guess_correct: int
    questions: tuple[QuestionStat, ...]  # every answer that counted, per question
    history: tuple[DayStat, ...]  # the last days, oldest first
    topics: tuple[TopicLine, ...] = ()  # the mastery map, weakest first
    # questions answered wrong though marked "sure" (answered/correct: the "sure" answers),
    # most misses first
    confident_misses: tuple[QuestionStat, ...] = ()
    # (quiz id, its title in `lang`) for each quiz of `questions`: the chart's headings
    titles: tuple[tuple[str, str], ...] = ()

    @property
    def calibration(self) -> float | None:
        """How often "sure" was right."""
        return self.sure_correct / self.sure_answered if self.sure_answered else None
