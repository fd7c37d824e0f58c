"""The echo of a typed number is written as the options write theirs ("You typed: 60.0 ms"
beside "60.0 ms", "p = 32" beside "p = 32"), through the options' own template, in English
and Urdu; where their rounding would read as another verdict, the typed digits stay."""

from __future__ import annotations

import random
from dataclasses import replace

from bot.app.compose import build_engine
from bot.domain import numeric
from bot.domain.quiz.computed import draw, drawn_values, seed_of
from bot.domain.results import Actor, AnswerResult, SessionKind, TypedRefused
from bot.features.engine import Engine
from bot.features.library import new_session, typed_shown
from bot.present.i18n import Catalogue
from bot.present.render import PLAIN, feedback_head, typed_refusal
from bot.store.commands import sessions_sql
from bot.store.sqlite import SQLiteStore

NUMBERS = "parallelism-numbers"
ALICE = Actor("telegram", "1", display_name="Alice")


async def test_the_echo_is_written_as_the_options_are(engine: Engine, store: SQLiteStore,
                                                      quizzes, catalogue: Catalogue) -> None:
    quiz = quizzes[NUMBERS]
    for n, lang in enumerate(("en", "ur")):
        actor = Actor("telegram", str(10 + n), display_name="Learner")
        await engine.set_language(actor, lang)
        prompt = await engine.start(actor, NUMBERS)
        labels = set()
        for position in range(prompt.total):
            row = await store.read(sessions_sql.get_session, prompt.session_id)
            assert row is not None
            question = quiz.question(row.question_ids[position])
            assert question is not None and question.computed is not None
            _env, values = drawn_values(question, seed_of(row.seed, row.id))
            bare = numeric.shown(float(values[0]), question.computed.unit).split()[0]
            result = await engine.answer_typed(actor, prompt.session_id, position, bare)
            assert isinstance(result, AnswerResult) and result.is_correct, question.id
            option = result.question.options[result.correct]
            assert result.typed == option, (question.id, lang)  # "60.0 ms", "p = 32"
            said = catalogue.t(lang, "answer.your_typed", value=option)
            assert said in feedback_head(catalogue, result, PLAIN)
            labels.add(option.split("=")[0] if "=" in option else None)
        assert {"p ", "m "} <= labels  # the learner typed "32"; the options read "p = 32"


async def test_the_options_rounding_never_reads_as_another_verdict(
        engine: Engine, store: SQLiteStore, quizzes) -> None:
    """p + 0.3 stages is wrong (tolerance 0.5 %), yet "p = {value:d}" writes it as the
    answer, and 4.096 micro-batches as "m = 4": the echo keeps the digits typed."""
    quiz = quizzes[NUMBERS]
    position = next(i for i, q in enumerate(quiz.questions) if q.id == "n12-smallest-pipeline")
    prompt = await engine.start(Actor("telegram", "1", display_name="Alice"), NUMBERS)
    row = await store.read(sessions_sql.get_session, prompt.session_id)
    assert row is not None
    question = quiz.questions[position]
    _env, values = drawn_values(question, seed_of(row.seed, row.id))
    answer = draw(question, seed_of(row.seed, row.id)).options[0].text.get("en")
    off = float(values[0]) + 0.3
    for lang in ("en", "ur"):
        assert typed_shown(quiz, row, position, float(values[0]), lang) == answer
        assert typed_shown(quiz, row, position, off, lang) == numeric.shown(off, "")
    # a wrong number either way, but "m = 4" is not what the learner typed (the fake
    # Telegram showed "You typed: m = 4" for "4.096")
    m = next(i for i, q in enumerate(quiz.questions) if q.id == "n04-micro-batches-for-bubble")
    for lang in ("en", "ur"):
        assert typed_shown(quiz, row, m, 4.096, lang) == "4.096"
    # an option's value typed reads as that option, however far its rounding moves it
    # ("3.84615%" is the option "3.8%", 1.2 % off: the fake Telegram's draw p = 8, m = 19)
    bubble = quiz.questions[0]

    def moved(seed: int) -> bool:
        v = float(drawn_values(bubble, seed)[1][1])
        return abs(round(v * 100, 1) / 100 - v) > v * 0.01

    seed = next(s for s in range(1, 2000) if moved(s))
    far = replace(row, seed=seed)
    v = float(drawn_values(bubble, seed)[1][1])
    for lang in ("en", "ur"):
        option = draw(bubble, seed).options[1].text.get(lang)
        assert typed_shown(quiz, far, 0, v, lang) == option


async def test_a_thousands_dot_is_asked_about_and_nothing_is_recorded(
        store: SQLiteStore, quizzes, catalogue: Catalogue) -> None:
    """'1.057' typed for an all-to-all of 1057 MB (a European thousands dot) is asked about,
    in both languages, and the answer typed again is judged."""
    quiz = quizzes[NUMBERS]
    position = next(i for i, q in enumerate(quiz.questions) if q.id == "n13-moe-all-to-all")
    question = quiz.questions[position]

    def answer_of(s: int) -> float:
        new = new_session(ALICE, quiz, SessionKind.FULL, list(quiz.questions),
                          random.Random(s), now=0.0)
        return float(drawn_values(question, seed_of(new.seed, 0))[1][0])

    s = next(s for s in range(500) if 1000 <= round(answer_of(s)) < 10000)
    whole = round(answer_of(s))
    dotted = f"{whole // 1000}.{whole % 1000:03d}"
    for n, lang in enumerate(("en", "ur")):
        engine = build_engine(store, quizzes, rng=random.Random(s))
        actor = Actor("telegram", str(20 + n), display_name="Learner")
        await engine.set_language(actor, lang)
        prompt = await engine.start(actor, NUMBERS)
        for k in range(position):
            assert isinstance(await engine.answer(actor, prompt.session_id, k, 0), AnswerResult)
        asked = await engine.answer_typed(actor, prompt.session_id, position, dotted)
        assert isinstance(asked, TypedRefused) and asked.key == "typed.thousands_dot"
        said = typed_refusal(catalogue, asked)
        assert str(whole) in said and dotted in said and ("1000" in said)
        row = await store.read(sessions_sql.get_session, prompt.session_id)
        assert row is not None and row.position == position  # nothing recorded
        right = await engine.answer_typed(actor, prompt.session_id, position, str(whole))
        assert isinstance(right, AnswerResult) and right.is_correct


async def test_an_option_letter_typed_is_told_to_tap_it(engine: Engine, store: SQLiteStore,
                                                        catalogue: Catalogue) -> None:
    """'B' typed in the private chat was 'I can't read that as a number': the learner chose
    B, in the text box. The reply names the letter and where to tap it; nothing is recorded."""
    for n, lang in enumerate(("en", "ur")):
        actor = Actor("telegram", str(30 + n), display_name="Learner")
        await engine.set_language(actor, lang)
        prompt = await engine.start(actor, NUMBERS)
        for typed in ("B", "b)", " c. "):
            told = await engine.answer_typed(actor, prompt.session_id, 0, typed)
            assert isinstance(told, TypedRefused) and told.key == "typed.letter", typed
            said = typed_refusal(catalogue, told)
            assert typed.strip(" .)").upper() in said and prompt.typed_example in said
        beyond = "ABCDEFGH"[len(prompt.options)]  # no such option: not a letter answer
        other = await engine.answer_typed(actor, prompt.session_id, 0, beyond)
        assert isinstance(other, TypedRefused) and other.key == "typed.not_number"
        row = await store.read(sessions_sql.get_session, prompt.session_id)
        assert row is not None and row.position == 0
