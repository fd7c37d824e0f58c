"""Content loading: every validation message names file, line or field, and what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from adapters.cli.main import main
from bot.domain.errors import ContentError
from bot.domain.quiz import load_file, load_quizzes
from bot.present.limits import check_rendered_sizes
from tests.conftest import FIXTURES

BROKEN = FIXTURES / "content" / "broken.yaml"


def problems_of(path: Path) -> list[str]:
    with pytest.raises(ContentError) as info:
        load_file(path, display=path.name, check=check_rendered_sizes)
    return info.value.problems


def test_minimal_quiz_loads_into_dataclasses():
    quiz = load_file(FIXTURES / "content" / "minimal.yaml")
    assert quiz.id == "tiny" and quiz.languages == ("en", "ur")
    assert [q.id for q in quiz.questions] == ["one", "two"]
    assert quiz.questions[1].correct == 1
    assert quiz.questions[0].options[1].why_not.get("ur") == "دوبارہ گنیں۔"
    assert quiz.questions[1].references[0].url == "https://example.org/arithmetic"
    with pytest.raises(AttributeError):
        quiz.id = "changed"  # type: ignore[misc]


def test_every_problem_is_reported_at_once_with_file_and_line():
    assert problems_of(BROKEN) == [
        "broken.yaml:6: colour is not a known key (expected one of: description, difficulty, "
        "id, languages, level, next, questions, shuffle_questions, title, topics)",
        "broken.yaml:4: difficulty must be one of easy, medium, hard, got 'impossible'",
        "broken.yaml:3: description has no 'ur' text (the quiz declares 'ur')",
        "broken.yaml:9: questions[0].text.en is empty",
        "broken.yaml:15: questions[0].correct is 5 but the question has 4 options "
        "(0-based: 0 to 3)",
        "broken.yaml:23: questions[1].hint is not a known key (expected one of: correct, "
        "explanation, id, image, options, references, takeaway, text, topics)",
        "broken.yaml:17: questions[1].id 'q1' duplicates the id of questions[0]",
        "broken.yaml:20: questions[1].options has 1 options; a question needs 2 to 10",
    ]


def test_invalid_yaml_names_file_and_line():
    assert problems_of(FIXTURES / "content" / "bad_syntax.yaml") == [
        "bad_syntax.yaml:3: is not valid YAML: did not find expected ',' or '}'"]


def test_question_over_one_message_is_rejected():
    problem, answered = problems_of(FIXTURES / "content" / "huge.yaml")
    assert problem.startswith("huge.yaml:10: questions[0] (en) renders to ")
    assert "one Telegram message / Discord embed holds 4096" in problem
    assert answered.startswith("huge.yaml:10: questions[0].explanation (en)")  # with it


def write_quiz(tmp_path: Path, **changes: object) -> Path:
    data = yaml.safe_load((FIXTURES / "content" / "minimal.yaml").read_text(encoding="utf-8"))
    question = data["questions"][0]
    for key, value in changes.items():
        if key.startswith("q_"):
            question[key[2:]] = value
        else:
            data[key] = value
    path = tmp_path / "quiz.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def test_explanation_over_one_message_is_rejected(tmp_path: Path):
    # the answered question (question, marked options, explanation, why-not, references)
    # is one message: over 4096 characters it cannot be sent, though each part fits alone
    text = {"en": "Which " * 230, "ur": "کون " * 340}
    options = [{"text": {"en": f"{i} " * 140, "ur": f"{i} " * 140},
                **({"why_not": {"en": "x" * 480, "ur": "ی" * 480}} if i else {})}
               for i in range(4)]
    long = {"en": "Because " * 180, "ur": "کیونکہ " * 205}
    problems = problems_of(write_quiz(tmp_path, q_text=text, q_explanation=long,
                                      q_options=options))
    assert len(problems) == 2
    assert all("questions[0].explanation" in p and "Discord embed holds 4096" in p
               for p in problems)
    short = {"en": "Because " * 20, "ur": "کیونکہ " * 20}
    assert load_file(write_quiz(tmp_path, q_text=text, q_explanation=short,
                                q_options=options), check=check_rendered_sizes).questions


def line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def test_language_outside_the_declared_ones(tmp_path: Path):
    path = write_quiz(tmp_path, q_text={"en": "a", "ur": "b", "fr": "c"})
    assert problems_of(path) == [
        f"quiz.yaml:{line_of(path, 'fr: c')}: questions[0].text.fr is a language the quiz does "
        "not declare in `languages`"]


def test_wrong_types_are_named(tmp_path: Path):
    path = write_quiz(tmp_path, q_correct="B", q_options="A, B", languages="en")
    problems = problems_of(path)
    assert problems[0] == (f"quiz.yaml:{line_of(path, 'languages:')}: languages must be a list "
                           "of language codes like [en, ur], got 'en'")
    assert any("questions[0].options must be a list, got a string" in p for p in problems)
    assert any("questions[0].correct must be the 0-based index of the right option, got 'B'"
               in p for p in problems)


def test_missing_keys_and_bad_reference(tmp_path: Path):
    path = write_quiz(tmp_path, q_references=[{"title": "Paper", "url": "not a url"}])
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    del data["questions"][1]["explanation"]
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    problems = problems_of(path)
    assert any(p.endswith("questions[0].references[0].url must be an http(s) URL, got "
                          "'not a url'") for p in problems)
    assert any(p.endswith("questions[1].explanation is missing") for p in problems)


def test_duplicate_quiz_ids_across_files(tmp_path: Path):
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_bytes((FIXTURES / "content" / "minimal.yaml").read_bytes())
    with pytest.raises(ContentError, match="id 'tiny' is already used by"):
        load_quizzes([tmp_path])


def test_validate_command_exit_codes(capsys: pytest.CaptureFixture[str]):
    assert main(["validate", str(FIXTURES / "content" / "minimal.yaml")]) == 0
    out = capsys.readouterr().out
    assert "tiny (introduction), 2 questions, languages en, ur" in out
    assert main(["validate", str(BROKEN), str(FIXTURES / "content" / "minimal.yaml")]) == 1
    captured = capsys.readouterr()
    assert "questions[0].correct is 5 but the question has 4 options" in captured.err
    assert "8 problem(s) found." in captured.err
    assert main(["validate", "does/not/exist.yaml"]) == 1
    assert "no such file" in capsys.readouterr().err


# --- pictures -----------------------------------------------------------------------------

PICTURED = """\
id: pictured
title: {en: Pictured, ur: تصویر}
description: {en: One question with a picture., ur: ایک سوال، ایک تصویر۔}
difficulty: easy
languages: [en, ur]
questions:
  - id: one
    text: {en: "Bubble?", ur: "ببل؟"}
    options:
      - text: {en: "3/7", ur: "3/7"}
      - text: {en: "1/4", ur: "1/4"}
        why_not: {en: No., ur: نہیں۔}
    correct: 0
    explanation: {en: See the picture., ur: تصویر دیکھیں۔}
    image: IMAGE
"""


def pictured(tmp_path: Path, image: str, *, ship: str | None = None) -> Path:
    path = tmp_path / "pictured.yaml"
    path.write_text(PICTURED.replace("IMAGE", image), encoding="utf-8")
    if ship:
        (tmp_path / ship).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / ship).write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(16))
    return path


def test_image_resolves_from_the_quiz_folder_and_names_its_schedule(tmp_path: Path):
    quiz = load_file(pictured(tmp_path, "img/gpipe-p4-m4.png", ship="img/gpipe-p4-m4.png"))
    q = quiz.questions[0]
    assert q.image == (tmp_path / "img" / "gpipe-p4-m4.png").resolve()
    assert q.schedule is not None and (q.schedule.kind, q.schedule.p, q.schedule.m) == (
        "gpipe", 4, 4)
    other = load_file(pictured(tmp_path, "img/cluster.png", ship="img/cluster.png"))
    assert other.questions[0].image is not None and other.questions[0].schedule is None


@pytest.mark.parametrize("image, message", [
    ("img/missing.png", "questions[0].image img/missing.png does not exist"),
    ("/etc/passwd.png", "must be relative to the quiz file's folder"),
    ("../outside.png", "must be relative to the quiz file's folder"),
    ("img/notes.txt", "must be a .png, .jpg, .jpeg, .webp file"),
    ("[1, 2]", "must be a path like img/gpipe-p4-m4.png"),
])
def test_bad_image_is_an_error_naming_file_and_line(tmp_path: Path, image: str, message: str):
    (problem,) = problems_of(pictured(tmp_path, image))
    assert problem.startswith("pictured.yaml:15: ") and message in problem


async def test_answer_result_carries_image_and_timeline(tmp_path: Path):
    import random

    from bot.app.compose import build_engine
    from bot.domain.pipeline import ScheduleSpec, timeline
    from bot.domain.results import Actor, AnswerResult
    from bot.store.sqlite import SQLiteStore

    quiz = load_file(pictured(tmp_path, "img/gpipe-p4-m4.png", ship="img/gpipe-p4-m4.png"))
    store = await SQLiteStore.open(tmp_path / "q.db")
    try:
        engine = build_engine(store, {quiz.id: quiz}, rng=random.Random(1))
        actor = Actor("terminal", "t")
        prompt = await engine.start(actor)
        result = await engine.answer(actor, prompt.session_id, 0, 0)
        assert isinstance(result, AnswerResult)
        assert result.image == quiz.questions[0].image
        # the picture's schedule, slot for slot: each backward two slots, as drawn
        assert result.timeline == timeline(ScheduleSpec("gpipe", 4, 4), as_pictured=True)
        assert result.timeline.startswith("GPU1 F1 F2 F3 F4 ..")
        assert result.timeline.splitlines()[0].endswith("B4 ~  B3 ~  B2 ~  B1 ~")
    finally:
        await store.close()



def test_half_a_character_is_refused_naming_the_line(tmp_path: Path):
    # "\ud83d" alone is what a converter may write when it cut an emoji in two: no message
    # holding it could be sent (not UTF-8), so the file is refused at that line.
    source = (FIXTURES / "content" / "minimal.yaml").read_text(encoding="utf-8")
    path = tmp_path / "cut.yaml"
    path.write_text(source.replace('"One plus one?"', '"One plus one? \\ud83d"'),
                    encoding="utf-8")
    assert problems_of(path) == [
        "cut.yaml:8: is not valid YAML: found invalid Unicode character escape code"]


def test_a_missing_key_is_reported_once(tmp_path: Path):
    # "difficulty is missing", not also "difficulty must be one of ..., got None"
    path = tmp_path / "bare.yaml"
    path.write_text("title: T\ndescription: D\nquestions: []\n", encoding="utf-8")
    assert problems_of(path) == [
        "bare.yaml:1: difficulty is missing", "bare.yaml:1: id is missing",
        "bare.yaml:1: languages is missing",
        "bare.yaml:3: questions must be a non-empty list of questions"]
