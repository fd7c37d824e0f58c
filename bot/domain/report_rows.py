"""What a results report reads: per-question accuracy, learners' records, a deployment's
overview. The store's read commands (`bot.store.commands.report_sql`) return these; the
CLI and the dashboard format them (`bot.present.reporting`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class QuestionAccuracy:
    """A question's answers in full attempts, and its most chosen wrong option."""

    quiz_id: str
    question_id: str
    answered: int
    correct: int
    wrong_choice: int | None  # file index of the most chosen wrong option (ties: the lower)
    wrong_count: int


@dataclass(frozen=True, slots=True)
class LearnerAnswers:
    """One learner's answers to one question over their full attempts of a quiz."""

    question_id: str
    answered: int
    correct: int
    last_choice: int  # file index of the latest answer's option
    last_correct: bool
    last_seed: int  # that attempt's seed: a computed question's numbers


@dataclass(frozen=True, slots=True)
class LearnerRecord:
    """A learner's full attempts of one quiz."""

    platform: str
    user_id: str
    display_name: str
    quiz_id: str
    sessions_started: int
    attempts_finished: int
    best_score: int | None
    last_score: int | None
    questions: tuple[LearnerAnswers, ...] = ()


@dataclass(frozen=True, slots=True)
class GroupRow:
    platform: str
    chat_id: str
    title: str  # '' when the bot never saw its name
    learners: int


@dataclass(frozen=True, slots=True)
class OpenReport:
    quiz_id: str
    question_id: str
    reason: str
    note: str
    created_at: float


@dataclass(frozen=True, slots=True)
class Overview:
    """`quizbot stats`: counts, every question's accuracy, the busiest groups, open reports."""

    users: int
    sessions: dict[str, int]  # status -> count
    answers: int
    questions: list[QuestionAccuracy]
    groups: list[GroupRow] = field(default_factory=list)
    reports: list[OpenReport] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ExportRows:
    """`quizbot export`: the chat exported (None: every chat), its learners and questions."""

    platform: str | None
    chat_id: str | None
    title: str | None
    learners: list[LearnerRecord]
    questions: list[QuestionAccuracy]


__all__ = ["ExportRows", "GroupRow", "LearnerAnswers",
           "LearnerRecord", "OpenReport", "Overview", "QuestionAccuracy"]
