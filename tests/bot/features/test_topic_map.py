"""The topic mastery map with calibration, for a fixture learner, against values worked by
hand; the confident misses; the map on /stats and the finished summary (real SQLite)."""

from __future__ import annotations

import random

from bot.app.compose import build_engine
from bot.domain.results import Actor, AnswerResult
from bot.present.i18n import Catalogue, strip_isolates
from bot.present.render import progress_text
from bot.present.summary import summary_text
from bot.store.sqlite import SQLiteStore
from tests.bot.features.test_confidence_schedule import QUIZ, pick
from tests.clock import FakeClock

ANA = Actor("telegram", "7", display_name="Ana")


async def test_mastery_and_calibration_per_topic_by_hand(store: SQLiteStore, quizzes,
                                                         catalogue: Catalogue) -> None:
    clock = FakeClock()  # never moves: each card's chance of recall is 1 at its review
    engine = build_engine(store, quizzes, rng=random.Random(5), clock=clock)
    await engine.set_confidence(ANA, True)
    first = await engine.start(ANA, QUIZ)
    # q1 [fundamentals, memory] right and sure; q2 [tensor-parallelism, communication]
    # wrong though sure; q3 [bubble, pipeline-parallelism] right, a guess
    await pick(engine, store, ANA, first.session_id, 0, right=True, sure=True)
    await pick(engine, store, ANA, first.session_id, 1, right=False, sure=True)
    await pick(engine, store, ANA, first.session_id, 2, right=True, sure=False)
    progress = await engine.progress(ANA)
    # a question's score: smoothed accuracy (right + 1)/(answered + 2), or the chance of
    # recall when lower (here 1: never lower); right once: 2/3 = 67 %; wrong once: 1/3 =
    # 33 %, not lifted by the answer having just been seen
    got = {t.topic: (t.percent, t.answered, t.sure, t.sure_right) for t in progress.topics}
    assert got == {"fundamentals": (67, 1, 1, 1), "memory": (67, 1, 1, 1),
                   "tensor-parallelism": (33, 1, 1, 0), "communication": (33, 1, 1, 0),
                   "bubble": (67, 1, 0, 0), "pipeline-parallelism": (67, 1, 0, 0)}
    assert [t.percent for t in progress.topics][:2] == [33, 33]  # weakest first
    assert all(t.name and t.name != t.topic for t in progress.topics)  # names, not ids
    [miss] = progress.confident_misses
    assert miss.question_id.endswith(quizzes[QUIZ].questions[1].id)
    assert (miss.answered, miss.correct) == (1, 0)
    for lang in ("en", "ur"):
        text = strip_isolates(progress_text(catalogue, await engine.progress(
            Actor("telegram", "7", display_name="Ana", locale=lang)), ))
        assert "33%" in text and "67%" in text and len(text) < 4096
    text = progress_text(catalogue, progress)
    assert "Mastery by topic" in text and "sure: 0/1 right" in text
    assert "Sure, but wrong" in text

    result = None
    for position in range(3, first.total):  # finish: the summary maps the quiz's topics
        result = await pick(engine, store, ANA, first.session_id, position, right=True,
                            sure=True)
    assert isinstance(result, AnswerResult) and result.summary is not None
    topics = {t for q in quizzes[QUIZ].questions for t in q.topics}
    assert {t.topic for t in result.summary.topics} == topics
    assert "Your weakest topics here:" in summary_text(catalogue, result.summary)
    # weeks later the cards have faded: the score is the chance of recall, below accuracy
    fresh = {t.topic: t.percent for t in (await engine.progress(ANA)).topics}
    clock.advance(120 * 86400)
    faded = {t.topic: t.percent for t in (await engine.progress(ANA)).topics}
    assert all(faded[t] < fresh[t] for t in fresh), (fresh, faded)
