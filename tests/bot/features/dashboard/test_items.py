"""Item statistics against values worked by hand (bot.features.dashboard.items).

Ten members, totals 8 7 7 6 5 5 4 3 2 1 (u0..u9). 27 % of 10 is 2.7, so the upper group is
the top 3 (u0 u1 u2) and the lower group the bottom 3 (u7 u8 u9).

q1, key A (0): picks u0 B, u1 B, u2 A, u3 A, u4 A, u5 C, u6 A, u7 A, u8 D, u9 C.
  right: u2 u3 u4 u6 u7 = 5 of 10 -> difficulty 0.5
  upper: A 1/3 (u2), B 2/3 (u0 u1), C 0, D 0; lower: A 1/3 (u7), B 0, C 1/3 (u9), D 1/3 (u8)
  D = 1/3 - 1/3 = 0; B draws 2 of the upper 3 against the key's 1: flagged.
q2, key B (1): u0..u4 pick B, u5..u9 pick A.
  difficulty 5/10 = 0.5; upper all right (1), lower none (0): D = 1.0; nothing flagged.
"""

from __future__ import annotations

import pytest

from bot.domain.product_limits import ITEM_MIN_LEARNERS as MIN_LEARNERS
from bot.features.dashboard.items import Response, groups, item_stats

TOTALS = [8, 7, 7, 6, 5, 5, 4, 3, 2, 1]
Q1 = [1, 1, 0, 0, 0, 2, 0, 0, 3, 2]
Q2 = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
QUESTIONS = [("q1", 4, 0), ("q2", 4, 1)]


def responses(n: int = 10) -> list[Response]:
    return [Response(f"u{i}", TOTALS[i], {"q1": Q1[i], "q2": Q2[i]}) for i in range(n)]


def test_upper_and_lower_groups_are_the_27_percent() -> None:
    upper, lower = groups(responses())
    assert [r.user_id for r in upper] == ["u0", "u1", "u2"]
    assert [r.user_id for r in lower] == ["u7", "u8", "u9"]


def test_values_worked_by_hand() -> None:
    q1, q2 = item_stats(responses(), QUESTIONS)
    assert (q1.question_id, q1.answered, q1.difficulty) == ("q1", 10, 0.5)
    assert q1.discrimination == pytest.approx(0.0)
    assert [o.picks for o in q1.options] == [5, 2, 2, 1]
    assert [o.upper * 3 for o in q1.options] == pytest.approx([1, 2, 0, 0])  # of 3
    assert [o.lower * 3 for o in q1.options] == pytest.approx([1, 0, 1, 1])
    assert [o.key for o in q1.options] == [True, False, False, False]
    assert q1.suspect == 1  # B: a likely bad key
    assert (q2.difficulty, q2.discrimination, q2.suspect) == (0.5, 1.0, None)
    assert [(o.upper, o.lower) for o in q2.options] == [(0, 1), (1, 0), (0, 0), (0, 0)]


def test_nothing_below_the_minimum() -> None:
    assert MIN_LEARNERS == 10
    assert item_stats(responses(9), QUESTIONS) == []
