"""Computed questions: load-time checks with file:line, validate's sampling, and one draw per
attempt through the engine (resume, double tap, restart, /stats, /review, export)."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pytest

from adapters.cli.main import main
from bot.app.compose import build_engine
from bot.domain.errors import ContentError
from bot.domain.quiz import Quiz, load_file, quality_warnings
from bot.domain.quiz.computed import draw, named_option, shown_text
from bot.domain.quiz.sampling import drawn_warnings, sample_problems
from bot.domain.results import Actor, AnswerResult, QuestionPrompt
from bot.features.engine import Engine
from bot.ops.reader import open_reader
from bot.present import reporting
from bot.present.i18n import strip_isolates
from bot.store.commands import learning_sql, sessions_sql
from bot.store.commands.report_sql import Scope, export_rows
from bot.store.sqlite import SQLiteStore
from tests.clock import FakeClock

HEAD = """\
id: tiny-numbers
title: {en: Tiny numbers}
description: {en: Drawn numbers.}
difficulty: hard
languages: [en]
questions:
"""
GOOD = """\
  - id: bubble
    params:
      p: [4, 8]
      m: {min: 8, max: 16}
    answer: (p-1)/(m+p-1)
    bounds: [0, 1]
    option: "{value:.1%}"
    text: "GPipe, p = {p}, m = {m}: the bubble?"
    mistakes:
      - name: ideal-time
        value: (p-1)/m
        why_not: "{value:.1%} is (p-1)/m = {p-1}/{m}."
      - name: naive
        value: (p-1)/p
        why_not: "{value:.1%} is naive, {p-1}/{p}."
    explanation: "(p-1)/(m+p-1) = {p-1}/{m+p-1} = {answer:.1%}."
    schedule: {kind: gpipe, p: p, m: m}
"""


def write(tmp_path: Path, body: str, name: str = "q.yaml") -> Path:
    path = tmp_path / name
    path.write_text(HEAD + textwrap.dedent(body), encoding="utf-8")
    return path


def problems_of(path: Path) -> list[str]:
    with pytest.raises(ContentError) as info:
        load_file(path, display=path.name)
    return info.value.problems


def sampled(path: Path) -> list[str]:
    """The problems loading finds in `path` (its sampled draws included), or []."""
    try:
        load_file(path)
    except ContentError as exc:
        return exc.problems
    return []


def line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


# --- load-time checks ---------------------------------------------------------------------

def test_a_good_computed_question_loads(tmp_path: Path) -> None:
    quiz = load_file(write(tmp_path, GOOD))
    q = quiz.questions[0]
    assert q.computed is not None and q.correct == 0 and len(q.options) == 3
    assert [c.name for c in q.computed.choices] == ["answer", "ideal-time", "naive"]
    assert sample_problems(quiz) == []


def test_undefined_names_bad_formulas_and_leaks_are_named_with_their_line(
        tmp_path: Path) -> None:
    body = (GOOD.replace("GPipe, p = {p}, m = {m}: the bubble?", "p = {p}, h = {h}, {answer}?")
            .replace("value: (p-1)/m", "value: (p-1).real")
            .replace('why_not: "{value:.1%} is naive, {p-1}/{p}."',
                     'why_not: "{value:.1%} is {eval(p)}."')
            .replace("m: {min: 8, max: 16}", "m: {min: 16, max: 8}"))
    path = write(tmp_path, body)
    problems = problems_of(path)
    text_line, value_line = line_of(path, "h = {h}"), line_of(path, ".real")
    assert f"q.yaml:{line_of(path, 'm: {min: 16')}: questions[0].params.m needs numbers " \
        "min <= max and step > 0, got {'min': 16, 'max': 8}" in problems
    assert any(p.startswith(f"q.yaml:{value_line}: questions[0].mistakes[0].value ")
               and "attribute access" in p for p in problems), problems
    assert any(p.startswith(f"q.yaml:{line_of(path, 'eval(p)')}: ")
               and "calls eval" in p for p in problems), problems
    # the question may not show the answer, nor a name nobody defined
    assert any(p.startswith(f"q.yaml:{text_line}: questions[0].text.en uses answer, h, "
                            "not defined here") for p in problems), problems


def test_reserved_names_and_missing_why_not_are_refused(tmp_path: Path) -> None:
    body = (GOOD.replace("      p: [4, 8]", "      p: [4, 8]\n      answer: [1, 2]")
            .replace('        why_not: "{value:.1%} is naive, {p-1}/{p}."\n', ""))
    path = write(tmp_path, body)
    problems = problems_of(path)
    assert f"q.yaml:{line_of(path, 'answer: [1, 2]')}: questions[0].params.answer 'answer' " \
        "is reserved (value, answer and the function names)" in problems
    assert any("questions[0].mistakes[1].why_not is missing" in p for p in problems), problems


# --- loading samples the draws -----------------------------------------------------------------

def test_a_mistake_that_always_equals_the_answer_is_reported_at_its_line(
        tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("value: (p-1)/p", "value: (p-1)/(p-1+m)"))
    problems = sampled(path)
    at = line_of(path, "- name: naive")
    assert problems and all(p.startswith(f"{path}:{at}: questions[0] (bubble): ")
                            for p in problems), problems
    assert "no usable draw in 50 tries: options 'answer' and 'naive' have the same value" \
        in problems[0]


def test_options_that_coincide_sometimes_are_drawn_again(tmp_path: Path) -> None:
    # (p-1)/m and p/(m+p) agree when m = p(p-1): with p = 4 and m = 12 a draw is redone
    body = GOOD.replace("m: {min: 8, max: 16}", "m: [12, 13]").replace(
        "value: (p-1)/p", "value: p/(m+p)")
    quiz = load_file(write(tmp_path, body))
    assert sample_problems(quiz) == []
    for seed in range(100):
        drawn = draw(quiz.questions[0], seed)
        shown = [o.text.get("en") for o in drawn.options]
        assert len(set(shown)) == 3, (seed, drawn.drawn)


def test_rounding_that_makes_two_options_read_the_same_counts_as_coinciding(
        tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("value: (p-1)/p", "value: (p-1)/(m+p-1) + 0.0001"))
    problems = sampled(path)
    assert any("options 'answer' and 'naive' both read" in p for p in problems), problems


def test_a_template_that_fails_for_some_draws_is_reported_with_its_line(
        tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("= {answer:.1%}.", "= {answer:.1%}, {1/(m-12)}."))
    problems = sampled(path)
    at = line_of(path, "1/(m-12)")
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{path}:{at}: questions[0] (bubble): explanation.en: "
                                  "'1/(m-12)' divides by zero (with p=")
    assert "draws)" in problems[0]


def test_an_answer_outside_its_bounds_is_reported_at_the_bounds(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("bounds: [0, 1]", "bounds: [0, 0.25]"))
    problems = sampled(path)
    assert len(problems) == 1
    assert problems[0].startswith(f"{path}:{line_of(path, 'bounds:')}: questions[0] (bubble): "
                                  "the answer ")
    assert "leaves the bounds [0, 0.25]" in problems[0]


def test_validate_exits_1_and_prints_the_sampled_problem(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, GOOD.replace("value: (p-1)/p", "value: 2*((p-1)/(m+p-1))/2"))
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:{line_of(path, '- name: naive')}: questions[0] (bubble): no usable draw" \
        in err
    assert main(["validate", str(write(tmp_path, GOOD, "good.yaml"))]) == 0
    assert "1 computed (200 draws each)" in capsys.readouterr().out


# --- one draw per attempt, through the engine ------------------------------------------------

ALICE = Actor("telegram", "1", display_name="Alice")
BOB = Actor("telegram", "2", display_name="Bob")
NUMBERS = "parallelism-numbers"


async def drawn_of(store: SQLiteStore, quiz: Quiz, prompt: QuestionPrompt):
    row = await store.read(sessions_sql.get_session, prompt.session_id)
    assert row is not None and row.seed is not None
    question = quiz.question(row.question_ids[prompt.position])
    assert question is not None
    return draw(question, row.seed)


async def right_of(store: SQLiteStore, quiz: Quiz, prompt: QuestionPrompt) -> int:
    d = await drawn_of(store, quiz, prompt)
    return prompt.options.index(d.options[d.correct].text.get(prompt.lang))


async def test_two_learners_draw_different_numbers(engine: Engine, quizzes) -> None:
    a = await engine.start(ALICE, NUMBERS)
    b = await engine.start(BOB, NUMBERS)
    assert "{" not in a.text and "{" not in b.text
    assert a.text != b.text or a.options != b.options


async def test_resume_double_tap_and_restart(engine: Engine, store: SQLiteStore,
                                             quizzes) -> None:
    quiz = quizzes[NUMBERS]
    first = await engine.start(ALICE, NUMBERS)
    again = await engine.start(ALICE, NUMBERS)  # resume: the same numbers
    assert (again.text, again.options) == (first.text, first.options)
    pick = await right_of(store, quiz, first)
    one = await engine.answer(ALICE, first.session_id, 0, pick)
    two = await engine.answer(ALICE, first.session_id, 0, pick)  # a double tap
    assert isinstance(one, AnswerResult) and isinstance(two, AnswerResult)
    assert one.is_correct and two.duplicate
    assert (two.explanation, two.question.options) == (one.explanation, one.question.options)
    assert one.next is not None
    current = await engine.current(ALICE, NUMBERS)
    assert (current.text, current.options) == (one.next.text, one.next.options)
    # a drawn schedule picture and its timeline come with the answer
    d = await drawn_of(store, quiz, first)
    assert one.schedule == d.schedule and one.schedule is not None
    assert one.timeline is not None and one.timeline.count("\n") == d.schedule.p - 1
    fresh = await engine.restart(ALICE, NUMBERS)  # a new attempt: new numbers
    assert fresh.session_id != first.session_id
    assert (await store.read(sessions_sql.get_session, fresh.session_id)).seed != \
        (await store.read(sessions_sql.get_session, first.session_id)).seed


async def play_all(engine: Engine, store: SQLiteStore, quiz: Quiz, actor: Actor,
                   wrong: set[int]) -> list[AnswerResult]:
    prompt: QuestionPrompt | None = await engine.start(actor, quiz.id)
    results = []
    while prompt is not None:
        pick = await right_of(store, quiz, prompt)
        if prompt.position in wrong:
            pick = (pick + 1) % len(prompt.options)
        result = await engine.answer(actor, prompt.session_id, prompt.position, pick)
        assert isinstance(result, AnswerResult)
        results.append(result)
        prompt = result.next
    return results


async def test_stats_review_and_export_see_the_attempts_numbers(
        engine: Engine, store: SQLiteStore, quizzes) -> None:
    quiz = quizzes[NUMBERS]
    results = await play_all(engine, store, quiz, ALICE, wrong={0, 3})
    summary = results[-1].summary
    assert summary is not None and summary.score == len(quiz.questions) - 2
    assert [m.text for m in summary.missed] == [results[0].question.text,
                                                results[3].question.text]
    stats = await engine.stats(ALICE, NUMBERS)
    assert [s.text for s in stats.questions] == [r.question.text for r in results]
    progress = await engine.progress(ALICE)
    assert {s.text for s in progress.questions} == {r.question.text for r in results}

    # export: the numbers of the last answer, in the file's letters (A = the answer)
    session = await store.read(sessions_sql.get_session, results[0].session_id)
    async with open_reader(f"sqlite:///{store.path}") as reader:
        exported = await reader.read(export_rows, Scope())
    [alice] = [r for r in reporting.learners(exported.learners, quizzes)
               if r["quiz_id"] == NUMBERS]
    first = alice["questions"][0]
    assert first["question_id"] == quiz.questions[0].id and first["last_option"] != "A"
    drawn = draw(quiz.questions[0], session.seed)
    assert first["numbers"] == ", ".join(f"{k}={v}" for k, v in drawn.drawn)
    assert first["numbers"].startswith("p=") and f"m={dict(drawn.drawn)['m']}" in \
        first["numbers"]
    assert alice["questions"][1]["last_option"] == "A"
    wrong = next(q for q in reporting.question_rows(exported.questions, quizzes)
                 if q["question_id"] == quiz.questions[0].id)["wrong_text"]
    # The mistake in words with the example's numbers: neither its slug nor a template.
    assert wrong == named_option(quiz.questions[0], "ABCD".index(first["last_option"]), "en")
    assert "{" not in wrong and wrong not in {
        c.name for c in quiz.questions[0].computed.choices}

    # /review last: the missed questions only, with fresh numbers (a new attempt's seed)
    review = await engine.review(ALICE, NUMBERS)
    assert review.question_id == quiz.questions[0].id and review.total == 2
    assert (await store.read(sessions_sql.get_session, review.session_id)).seed != session.seed
    assert "{" not in review.text


async def test_stats_mid_attempt_shows_the_numbers_of_the_attempt_under_way(
        engine: Engine, quizzes) -> None:
    # Before a first finish, /stats drew every computed question with an example's numbers
    # (seed 0): a learner at question 3 read p = 12 where their question had said p = 8.
    quiz = quizzes[NUMBERS]
    prompt = await engine.start(ALICE, NUMBERS)
    seen = [prompt.text]
    for _ in range(2):
        result = await engine.answer(ALICE, prompt.session_id, prompt.position, 0)
        assert result.next is not None
        prompt = result.next
        seen.append(prompt.text)
    stats = await engine.stats(ALICE, NUMBERS)
    assert [s.text for s in stats.questions[:3]] == seen
    assert seen[0] != shown_text(quiz.questions[0], "en", None)  # not the example's


async def test_spaced_review_draws_per_review_session(store: SQLiteStore, quizzes) -> None:
    clock = FakeClock()
    engine = build_engine(store, quizzes, rng=random.Random(3), clock=clock)
    quiz = quizzes[NUMBERS]
    await play_all(engine, store, quiz, ALICE, wrong=set(range(len(quiz.questions))))
    clock.advance(30 * 86400)  # every card is due
    due = await engine.review_due(ALICE)
    again = await engine.review_due(ALICE)  # resumed: the same numbers
    assert (again.text, again.options) == (due.text, due.options)
    assert "{" not in due.text
    # the answer moves the card of the question, not of the draw: one card per question
    pick = await right_of(store, engine.library.due_quiz(), due)
    result = await engine.answer(ALICE, due.session_id, 0, pick)
    assert isinstance(result, AnswerResult) and result.is_correct
    cards = {(c.quiz_id, c.question_id) for c in await store.read(learning_sql.cards,
                                                                  "telegram", "1")}
    assert cards == {(NUMBERS, q.id) for q in quiz.questions}


async def test_a_second_engine_on_the_same_database_shows_the_same_numbers(
        store: SQLiteStore, quizzes) -> None:
    one = build_engine(store, quizzes, rng=random.Random(1))
    two = build_engine(store, quizzes, rng=random.Random(2))  # another process, another rng
    shown = await one.start(ALICE, NUMBERS)
    seen = await two.current(ALICE, NUMBERS)
    assert (seen.text, seen.options) == (shown.text, shown.options)


def test_cue_checks_read_the_drawn_numbers(tmp_path: Path) -> None:
    # a mistake that is the answer times a number of the question points at the key
    cued = load_file(write(tmp_path, GOOD.replace("value: (p-1)/p", "value: p*(p-1)/(m+p-1)")))
    assert quality_warnings(cued) == []  # the templates alone show no numbers
    [warning] = [w for w in drawn_warnings(cued) if "(en)" in w]
    assert "questions[0] (en) options[0] and options[2] differ by a factor of" in warning
    assert warning.endswith(" of 40 draws)")
    assert drawn_warnings(load_file(write(tmp_path, GOOD, "good.yaml"))) == []


def test_a_let_that_fails_is_reported_at_its_line(tmp_path: Path) -> None:
    body = GOOD.replace("    answer: (p-1)/(m+p-1)\n",
                        "    let:\n      x: 1/(m-12)\n    answer: (p-1)/(m+p-1) + 0*x\n")
    path = write(tmp_path, body)
    problems = sampled(path)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{path}:{line_of(path, 'x: 1/(m-12)')}: questions[0] "
                                  "(bubble): '1/(m-12)' divides by zero (with p=")


def test_every_interleaved_schedule_a_draw_can_name_is_pictured(quizzes) -> None:
    from bot.present import diagrams

    quiz = quizzes[NUMBERS]
    specs = {draw(q, seed).schedule for q in quiz.questions for seed in range(200)} - {None}
    assert {s.kind for s in specs if s is not None} == {"gpipe", "1f1b", "interleaved"}
    interleaved = [s for s in specs if s is not None and s.kind == "interleaved"]
    assert {s.v for s in interleaved} == {2, 3}
    widest = max((s for s in specs if s is not None), key=lambda s: s.p + s.m)
    for spec in [*interleaved, widest]:
        png = diagrams.png(spec)
        assert png.startswith(b"\x89PNG") and diagrams.png(spec) is png  # drawn once, cached


def strings_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


async def test_the_dashboard_shows_the_numbers_of_the_attempt(store: SQLiteStore, quizzes,
                                                              catalogue) -> None:
    from bot.features.dashboard.auth import Identity
    from bot.features.dashboard.pages import Dashboard, Memberships

    engine = build_engine(store, quizzes, rng=random.Random(4))
    quiz = quizzes[NUMBERS]
    results = await play_all(engine, store, quiz, ALICE, wrong={0, 1})
    me = await Dashboard(engine, store, catalogue, Memberships()).me(Identity("telegram", "1"))
    assert [s for s in strings_in(me) if "{" in s] == []  # no template left undrawn
    misses = {m["question"]: m for m in me["misses"]}
    first = misses[quiz.questions[0].id]
    assert strip_isolates(first["text"]) == results[0].question.text
    assert strip_isolates(first["explanation"]) == results[0].explanation
    assert strip_isolates(first["chosen"]) == results[0].question.options[results[0].chosen]


async def test_the_group_dashboard_names_the_mistake_members_made(
        store: SQLiteStore, quizzes, catalogue) -> None:
    from bot.features.dashboard.auth import Identity
    from bot.features.dashboard.pages import Dashboard, Memberships, Role

    engine = build_engine(store, quizzes, rng=random.Random(4))
    quiz = quizzes[NUMBERS]
    for user in ("1", "2"):
        await play_all(engine, store, quiz, Actor("telegram", user, "-1001", f"L{user}"),
                       wrong={0})
    memberships = Memberships()

    async def member(group: str, user: str) -> Role:
        return Role(True)

    memberships.provide("telegram", member)
    view = await Dashboard(engine, store, catalogue, memberships).group(
        Identity("telegram", "1"), "-1001")
    first = next(q for q in view["questions"] if q["id"] == quiz.questions[0].id)
    # The mistake in words, with the numbers of the example the page shows (seed 0), never
    # its slug: "why not" text when the file has one, else the option's own text.
    example = draw(quiz.questions[0], 0)
    described = {(o.why_not or o.text).get("en") for o in example.options[1:]}
    assert strip_isolates(first["wrong"]["option"]) in described
    names = [c.name for c in quiz.questions[0].computed.choices]
    assert strip_isolates(first["wrong"]["option"]) not in names
    assert "{" not in first["wrong"]["option"] and "{" not in first["text"]
    assert first["answered"] == 2


def test_validate_checks_the_size_of_drawn_texts(tmp_path: Path, capsys) -> None:
    # 160 short placeholders that each fill in 40-odd digits: fine as a template, far over
    # a Telegram message once drawn
    huge = " ".join(["{p*1e39}"] * 160)
    path = write(tmp_path, GOOD.replace('"(p-1)/(m+p-1) = {p-1}/{m+p-1} = {answer:.1%}."',
                                        f'"{huge}"'))
    load_file(path)  # loads: the template itself is within its limits
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert "questions[0].explanation (en) renders to" in err and "holds 4096" in err
