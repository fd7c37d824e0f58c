"""Helpers shared by tests: find answers through the quiz file, not through the engine."""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable

from bot.app.compose import build_engine
from bot.domain.product_limits import DEFAULT_REVEAL_SECONDS, DEFAULT_SECONDS
from bot.domain.quiz import Quiz
from bot.domain.results import Actor, AnswerResult, QuestionPrompt
from bot.domain.round_results import RoundEvent
from bot.features.engine import Engine
from bot.features.jobs import Scheduler
from bot.features.round_jobs import RoundJobs
from bot.features.rounds import Rounds


def right_option(quizzes: dict[str, Quiz], prompt: QuestionPrompt) -> int:
    """The shown index of the right answer, found through the quiz file, not the engine."""
    question = quizzes[prompt.quiz_id].question(prompt.question_id)
    assert question is not None
    text = question.options[question.correct].text.get(prompt.lang)
    return prompt.options.index(text)


def wrong_option(quizzes: dict[str, Quiz], prompt: QuestionPrompt) -> int:
    return (right_option(quizzes, prompt) + 1) % len(prompt.options)


async def play_through(engine: Engine, actor: Actor, quiz_id: str, *, miss: int = 0
                       ) -> AnswerResult:
    """Finish `quiz_id` for `actor` through the engine, missing the first `miss` questions;
    the last answer's result (with the summary)."""
    quizzes = dict(engine.library.quizzes)
    prompt: QuestionPrompt | None = await engine.restart(actor, quiz_id)
    while True:
        assert prompt is not None
        pick = wrong_option if prompt.position < miss else right_option
        result = await engine.answer(actor, prompt.session_id, prompt.position,
                                     pick(quizzes, prompt))
        assert isinstance(result, AnswerResult)
        if result.summary is not None:
            return result
        prompt = result.next


async def due(rounds: Rounds, platform: str) -> list[RoundEvent]:
    """What `platform`'s rounds show now: one look of the scheduler, through a sink that
    keeps each event (in the order the posts are shown)."""
    shown: list[RoundEvent] = []

    async def sink(event: RoundEvent) -> str | None:
        shown.append(event)
        return None

    scheduler = Scheduler(rounds.store, clock=rounds.clock)
    RoundJobs(rounds, scheduler).serve(platform, sink)
    await scheduler.tick()
    return shown


def rounds_of(engine: Engine, *, clock: Callable[[], float],
              default_seconds: int = DEFAULT_SECONDS,
              reveal_seconds: float = DEFAULT_REVEAL_SECONDS, rng: random.Random | None = None,
              wake: Callable[[], None] = lambda: None) -> Rounds:
    """Rounds of their own (a clock, lengths, a seed) on `engine`'s store and quizzes: those
    of an engine built the one way (`build_engine`) with these options."""
    return build_engine(engine.store, engine.library.quizzes, clock=clock,
                        round_seconds=default_seconds, reveal_seconds=reveal_seconds,
                        rng=rng, wake=wake).rounds


def old_rule_quiz(quiz_id: str) -> str:
    """A quiz file written under the first id rule: two questions with one text ("Which is
    true?") told apart by their order, q-old and q-old-2 (GPipe's, then 1F1B's)."""
    return (f"id: {quiz_id}\ntitle: Sheet\ndescription: d\ndifficulty: medium\n"
            "languages: [en]\nquestions:\n"
            + "".join(f"- id: {qid}\n  text: Which is true?\n  options:\n"
                      f"  - text: {right}\n  - text: {wrong}\n  correct: 0\n"
                      f"  explanation: {right}.\n"
                      for qid, right, wrong in (("q-old", "GPipe splits layers", "ZeRO splits"),
                                                ("q-old-2", "1F1B bounds memory", "No bubble"))))


def first_strong_direction(text: str) -> str:
    """The direction a phone gives a one-line label (Unicode's P2: the first strong letter,
    isolated runs skipped whole): "R" or "L"."""
    depth = 0
    for ch in text:
        if ch in "\u2066\u2067\u2068":
            depth += 1
        elif ch == "\u2069":
            depth = max(0, depth - 1)
        elif depth == 0 and unicodedata.bidirectional(ch) in ("L", "R", "AL"):
            return "L" if unicodedata.bidirectional(ch) == "L" else "R"
    return "L"
