"""The rules of a study-group round, in one place: how each scoring mode scores, how teams are
drawn and what earns a badge. Its limits (how long, how many teams) are in
`bot.domain.product_limits`.

Scoring modes (chosen per round, accuracy by default):

- ``accuracy``: one point per right answer; ties go to less time spent on right answers.
- ``speed`` (Kahoot's rule): a right answer given t seconds into a question of T seconds
  earns round(1000 x (1 - t / 2T)) points, so 1,000 at once and never under 500; wrong or
  silent earns 0.
- ``streak``: 1,000 points per right answer plus a streak bonus of +100 for each right
  answer in a row after the first, capped at +500 (the 6th right in a row and later earn
  1,500). A wrong answer or a question left unanswered starts the streak again.

An *untimed* round (for learners who need time) keeps each question open up to 30 minutes
and reveals as soon as every joined member has answered; it scores accuracy without a time
tie-break, or streak.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from bot.domain.product_limits import BADGE_SHARE

SCORINGS = ("accuracy", "speed", "streak")
DEFAULT_SCORING = "accuracy"
SPEED_TOP = 1000  # points for a right answer given at once (speed); half of it at the bell
STREAK_BASE, STREAK_STEP, STREAK_CAP = 1000, 100, 500

BADGE = "🏅"


def badge_score(total: int) -> int:
    """Right answers (of `total`) one attempt needs for the quiz's badge."""
    return max(1, math.ceil(BADGE_SHARE * total - 1e-9))


def earns_badge(score: int | None, total: int, of: int | None = None) -> bool:
    """True when a best score of `score` carries the badge of a quiz of `total` questions:
    an attempt that asked all of them (`of`, the attempt's questions, None: all; a round of
    3 questions, or one stopped after 3, is no full attempt) with BADGE_SHARE of them right."""
    return (score is not None and total > 0 and (of is None or of == total)
            and score >= badge_score(total))


def speed_points(elapsed: float, seconds: float) -> int:
    """Kahoot's points for a right answer `elapsed` seconds into a `seconds`-long question."""
    t = min(max(elapsed, 0.0), float(seconds))
    return round(SPEED_TOP * (1 - t / (2 * seconds)))


def streak_points(in_a_row: int) -> int:
    """Points for a right answer that is the `in_a_row`-th right answer in a row (>= 1)."""
    return STREAK_BASE + min(STREAK_CAP, STREAK_STEP * (in_a_row - 1))


def points(scoring: str, answers: Iterable[tuple[int, bool, float]], seconds: float) -> int:
    """One member's points from their (question index, right, seconds taken) answers.

    Accuracy counts right answers; a question missing from `answers` breaks a streak.
    """
    total, in_a_row, last = 0, 0, None
    for qindex, right, elapsed in sorted(answers):
        if not right:
            in_a_row, last = 0, qindex
            continue
        in_a_row = in_a_row + 1 if last is not None and qindex == last + 1 and in_a_row else 1
        last = qindex
        if scoring == "speed":
            total += speed_points(elapsed, seconds)
        elif scoring == "streak":
            total += streak_points(in_a_row)
        else:
            total += 1
    return total


def draft(teams: int, sizes: Sequence[int], strengths: Mapping[str, float]) -> dict[str, int]:
    """Place members (id -> past accuracy) on `teams` teams that already hold `sizes`.

    The strongest goes first, each to the smallest team and, among equals, the one whose
    drafted strength is lowest so far: with empty teams this is a snake draft (1-2-3-4,
    4-3-2-1, ...), so sizes differ by at most one and strengths even out.
    """
    size = list(sizes) + [0] * (teams - len(sizes))
    strength = [0.0] * teams
    placed: dict[str, int] = {}
    for member in sorted(strengths, key=lambda m: (-strengths[m], m)):
        team = min(range(teams), key=lambda t: (size[t], strength[t], t))
        placed[member] = team
        size[team] += 1
        strength[team] += strengths[member]
    return placed


def smallest_team(teams: int, sizes: Mapping[int, int]) -> int:
    """The team a late joiner goes to: the smallest (the first among equals)."""
    return min(range(teams), key=lambda t: (sizes.get(t, 0), t))
