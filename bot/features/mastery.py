"""How well a learner knows each topic: one small score per question and per topic, from
their answers (accuracy) and their memory cards (FSRS's chance of recall now).

One function other features reuse: the finished summary's next step, `/review topic:NAME`,
and anything that wants "the weakest topic" (`weakest`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.domain.learning import Memory
from bot.store.commands import learning_sql
from bot.store.protocol import Store
from bot.store.rows import CardRow, ReviewTotal

# A question answered once right is not yet known: accuracy counts one right and one wrong
# answer more than were given (Laplace's rule), so 1 of 1 is 67%, 5 of 5 is 86%.
PRIOR_RIGHT, PRIOR_ANSWERED = 1, 2
WEAK = 0.7  # below this a topic is worth practising before moving on


@dataclass(frozen=True, slots=True)
class TopicMastery:
    """A topic's score (0..1, the mean of its answered questions') and how many of its
    questions the learner has answered."""

    topic: str
    score: float
    answered: int


@dataclass(frozen=True, slots=True)
class Mastery:
    """Per question ((quiz id, question id) -> score) and per topic, for one learner."""

    questions: dict[tuple[str, str], float]
    topics: dict[str, TopicMastery]

    def weakest(self, among: Iterable[str] | None = None) -> TopicMastery | None:
        """The answered topic with the lowest score (of `among`, when given)."""
        wanted = None if among is None else set(among)
        found = [t for t in self.topics.values() if wanted is None or t.topic in wanted]
        return min(found, key=weakest_first, default=None)


def weakest_first(t: TopicMastery) -> tuple[float, str]:
    """The one order of topics, weakest first: by score, ties by topic id (the same in
    every language), so a list shown and the "practise X" under it never disagree."""
    return t.score, t.topic


async def mastery(store: Store, topics_of: Mapping[tuple[str, str], tuple[str, ...]],
                  memory: Memory, platform: str, user_id: str, now: float, *,
                  totals: Sequence[ReviewTotal] | None = None,
                  cards: Sequence[CardRow] | None = None) -> Mastery:
    """The learner's mastery: a question's score is its smoothed accuracy, or the card's
    chance of recall now when that is lower (every counted answer makes a card): a question
    is known as well as the weaker of the two says. Right after an answer recall is near 1,
    so the score is the accuracy (a miss 33 %, not lifted by having just seen the answer);
    as the card fades, the score fades with it. `totals` and `cards`, when the caller has
    read them already, save two reads."""
    if totals is None:
        totals = await store.read(learning_sql.review_totals, platform, user_id)
    if cards is None:
        cards = await store.read(learning_sql.cards, platform, user_id)
    answered: dict[tuple[str, str], list[int]] = {}
    for t in totals:
        acc = answered.setdefault((t.quiz_id, t.question_id), [0, 0])
        acc[0] += t.answered
        acc[1] += t.correct
    recall = {(c.quiz_id, c.question_id): memory.retrievability(c.card, now)
              for c in cards}
    questions: dict[tuple[str, str], float] = {}
    for key, (n, right) in answered.items():
        accuracy = (right + PRIOR_RIGHT) / (n + PRIOR_ANSWERED)
        questions[key] = min(accuracy, recall[key]) if key in recall else accuracy
    sums: dict[str, list[float]] = {}
    for key, tags in topics_of.items():  # in quiz order: the same sums every time
        score = questions.get(key)
        if score is None:
            continue
        for topic in tags:
            acc_ = sums.setdefault(topic, [0.0, 0.0])
            acc_[0] += score
            acc_[1] += 1
    topics = {topic: TopicMastery(topic, total / n, int(n)) for topic, (total, n) in sums.items()}
    return Mastery(questions, topics)
