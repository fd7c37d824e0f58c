"""The quiz model: frozen dataclasses the loader builds and the engine reads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.domain.pipeline import ScheduleSpec
from bot.domain.quiz.computed_spec import Computed
from bot.domain.quiz.formula import Number
from bot.domain.results import Reference


@dataclass(frozen=True, slots=True)
class Text:
    """A string in every language the quiz ships."""

    values: tuple[tuple[str, str], ...]
    # lang -> text, built once: every prompt reads several texts
    table: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "table", dict(self.values))

    def get(self, lang: str, fallback: str = "en") -> str:
        """The text in `lang`, else in `fallback`, else the first one present."""
        table = self.table
        return table.get(lang) or table.get(fallback) or self.values[0][1]


@dataclass(frozen=True, slots=True)
class Option:
    text: Text
    why_not: Text | None = None
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: Text
    options: tuple[Option, ...]
    correct: int
    explanation: Text
    references: tuple[Reference, ...] = ()
    line: int = field(default=0, compare=False)  # where it starts in its file
    image: Path | None = None  # a picture for the explanation, resolved from the YAML's folder
    # The pipeline schedule the image shows, when its name says (gpipe-p4-m4.png): lets a
    # terminal show the same schedule as a text timeline.
    schedule: ScheduleSpec | None = None
    # A computed question (numbers drawn per attempt, `bot.domain.quiz.computed.draw`): its
    # text, options and explanation above are then the undrawn templates.
    computed: Computed | None = field(default=None, compare=False, repr=False)
    drawn: tuple[tuple[str, Number], ...] = ()  # a drawn question's parameters: (("p", 8),)
    # The one line a learner keeps, shown before the explanation (at most ~140 characters).
    takeaway: Text | None = None
    # Topic ids (declared in the quiz's `topics:` or the content folder's topics.yaml).
    topics: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Quiz:
    id: str
    title: Text
    description: Text
    difficulty: str
    languages: tuple[str, ...]
    questions: tuple[Question, ...]
    shuffle_questions: bool = False
    source: str = ""
    # How far along a learner should be (LEVELS); derived from `difficulty` when not declared.
    level: str = ""
    next: str | None = None  # the quiz suggested after this one (a quiz id)
    # The names of the topics this quiz's questions carry: ((topic id, name), ...).
    topics: tuple[tuple[str, Text], ...] = ()
    # question id -> question, built once: every tap looks questions up by id
    by_id: dict[str, Question] = field(init=False, repr=False, compare=False)
    # question id -> its number of options, built once: every tap checks `fits`
    option_counts: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {q.id: q for q in self.questions})
        object.__setattr__(self, "option_counts",
                           {q.id: len(q.options) for q in self.questions})
        if not self.level:
            object.__setattr__(self, "level", LEVEL_OF_DIFFICULTY.get(self.difficulty,
                                                                      "intermediate"))

    def topic_name(self, topic: str, lang: str) -> str:
        """A topic's name in `lang` (its id when the quiz does not name it)."""
        for tid, name in self.topics:
            if tid == topic:
                return name.get(lang)
        return topic

    def fits(self, question_ids: Sequence[str], option_orders: Sequence[Sequence[int]]) -> bool:
        """False when the file changed under a stored session: a question gone, or its
        number of options different (its stored option order would no longer apply)."""
        counts = self.option_counts
        for qid, order in zip(question_ids, option_orders, strict=True):
            if counts.get(qid) != len(order):  # None: the question is gone
                return False
        return True

    def question(self, question_id: str) -> Question | None:
        """The question with this id, or None if the file no longer has it."""
        return self.by_id.get(question_id)


DIFFICULTY_ORDER = ("easy", "medium", "hard")
# A quiz's level, from first steps to specialist: the catalogue shows it and orders by it.
LEVELS = ("introduction", "intermediate", "advanced", "expert")
LEVEL_OF_DIFFICULTY = {"easy": "introduction", "medium": "intermediate", "hard": "advanced"}


def entry_quiz(quizzes: Mapping[str, Quiz]) -> str:
    """The quiz to start when none is named: the easiest one, then the first id, so that
    adding a hard quiz whose id sorts first does not change where newcomers begin."""
    def rank(quiz: Quiz) -> tuple[int, str]:
        known = quiz.difficulty in DIFFICULTY_ORDER
        return (DIFFICULTY_ORDER.index(quiz.difficulty) if known else len(DIFFICULTY_ORDER),
                quiz.id)
    return min(quizzes.values(), key=rank).id
