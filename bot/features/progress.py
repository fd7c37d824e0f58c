"""A learner's progress, computed once from what the store holds: cards due, the streak,
how often "sure" and "a guess" were right, answers per question, the days' history.

/stats (`SpacedReview.progress`) and the dashboard's page of the learner both read their
figures from here, so the two never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.domain import learning
from bot.domain.stats_results import Wait
from bot.store.rows import CardRow, DayTotal, ReviewTotal


@dataclass(frozen=True, slots=True)
class Standing:
    """The learner's figures at one moment (`today` is their local day number)."""

    today: int
    cards: int
    due_now: int
    next_due: Wait | None  # how long until the next card, when none is due now
    streak: int
    sure: tuple[int, int]  # (answers marked "sure", of them right)
    guess: tuple[int, int]  # (answers marked "a guess", of them right)
    per_question: Mapping[tuple[str, str], tuple[int, int]]  # (quiz, question): answered, right
    days: Mapping[int, DayTotal]  # the days with a review, by local day number

    def history(self, count: int) -> list[tuple[int, int, int]]:
        """(day, answered, right) for the last `count` days up to today, quiet days as 0."""
        out = []
        for day in range(self.today - count + 1, self.today + 1):
            d = self.days.get(day)
            out.append((day, d.answered if d else 0, d.correct if d else 0))
        return out


def standing(now: float, utc_offset: int, cards: Sequence[CardRow],
             totals: Iterable[ReviewTotal], days: Iterable[DayTotal]) -> Standing:
    """The learner's figures at `now` from their cards, review totals and review days."""
    due_now = sum(c.due_at <= now for c in cards)
    upcoming = [c.due_at for c in cards if c.due_at > now]
    next_due = learning.wait_of(min(upcoming) - now) if upcoming and not due_now else None
    per: dict[tuple[str, str], tuple[int, int]] = {}
    sure, guess = (0, 0), (0, 0)
    for t in totals:
        answered, right = per.get((t.quiz_id, t.question_id), (0, 0))
        per[(t.quiz_id, t.question_id)] = (answered + t.answered, right + t.correct)
        if t.sure is True:
            sure = (sure[0] + t.answered, sure[1] + t.correct)
        elif t.sure is False:
            guess = (guess[0] + t.answered, guess[1] + t.correct)
    by_day = {d.day: d for d in days}
    today = learning.local_day(now, utc_offset)
    return Standing(today, len(cards), due_now, next_due, learning.streak(by_day, today),
                    sure, guess, per, by_day)


def retention(memory: learning.Memory, cards: Sequence[CardRow], now: float) -> float | None:
    """The mean chance, as FSRS estimates it, that the learner recalls a card now."""
    if not cards:
        return None
    return sum(memory.retrievability(c.card, now) for c in cards) / len(cards)
