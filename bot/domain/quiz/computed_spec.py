"""What a computed question declares (parameters, formulas, templates), as read from its
file: the part of `bot.domain.quiz.computed` that `Question` holds, so the quiz model needs
nothing from the drawing code."""

from __future__ import annotations

import random
from collections import OrderedDict
from dataclasses import dataclass, field
from threading import Lock
from typing import Any

from bot.domain.quiz.formula import Formula, Number
from bot.domain.quiz.template import Template


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter: drawn from `choices`, or from low..high in steps of `step`."""

    name: str
    choices: tuple[Number, ...]
    line: int = field(default=0, compare=False)

    def draw(self, rng: random.Random) -> Number:
        """One value, uniformly among the declared ones."""
        return self.choices[rng.randrange(len(self.choices))]


@dataclass(frozen=True, slots=True)
class Let:
    name: str
    formula: Formula
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Choice:
    """The answer (index 0) or one named mistake: its value and its templates per language."""

    name: str
    value: Formula
    text: tuple[tuple[str, Template], ...]
    why_not: tuple[tuple[str, Template], ...] = ()
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Bound:
    """A physical limit every draw must keep: `name` (a parameter, a `let` or `answer`)
    within low..high, themselves formulas ("per_gpu within the GPU the question names")."""

    name: str
    low: Formula
    high: Formula
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Field:
    """A localized template and where it stands (for messages)."""

    path: str
    templates: tuple[tuple[str, Template], ...]
    lines: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Computed:
    params: tuple[Param, ...]
    lets: tuple[Let, ...]
    where: tuple[tuple[Formula, int], ...]
    choices: tuple[Choice, ...]  # choices[0] is the answer
    text: Field
    explanation: Field
    bounds: tuple[Bound, ...] = ()
    digits: int = 3
    schedule: tuple[str, Formula, Formula, Formula | None] | None = None  # kind, p, m, v
    # A typed answer within this relative distance of the answer counts as right.
    tolerance: float = 0.02
    # Or within this absolute distance (`absolute_tolerance:`, as Moodle and GIFT give it);
    # it replaces `tolerance` when set.
    absolute: float | None = None
    # The unit a typed answer is read in (`bot.domain.numeric.QUESTION_UNITS`): "GB", "%".
    unit: str = ""
    schedule_line: int = 0
    # Any two options differ by at least this much, relative (`validate` warns otherwise).
    min_gap: float = 0.05
    # drawn Questions by (seed, language-free key); typed Any so this module needs no model
    _cache: OrderedDict[tuple[int, str], Any] = field(
        default_factory=OrderedDict, init=False, repr=False, compare=False, hash=False)
    _lock: Lock = field(default_factory=Lock, init=False, repr=False, compare=False,
                        hash=False)


@dataclass(frozen=True, slots=True)
class Rejected:
    """Why one attempt was not used: `fatal` for a formula or template that failed."""

    reason: str
    line: int
    fatal: bool = False


class DrawFailed(Exception):
    """No attempt within MAX_TRIES gave usable numbers (validate reports it)."""

    def __init__(self, rejected: Rejected) -> None:
        super().__init__(rejected.reason)
        self.rejected = rejected
