"""The per-quiz and per-question fields learners' features read: a question's takeaway and
topics, a quiz's level and next quiz, a computed question's tolerance."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.domain.errors import ContentError
from bot.domain.quiz import default_content_dir, load_all, load_file, takeaway_warnings
from bot.domain.quiz.topics import TOPICS_FILE
from tests.bot.domain.quiz.test_content import line_of, problems_of, write_quiz

TOPICS = """topics:
  bubble: {en: Pipeline bubble, ur: پائپ لائن ببل}
  memory: {en: Memory}
"""


def test_takeaway_topics_level_and_next_are_read(tmp_path: Path):
    (tmp_path / TOPICS_FILE).write_text(TOPICS, encoding="utf-8")
    path = write_quiz(tmp_path, level="introduction", next="deeper",
                      q_takeaway={"en": "Count twice.", "ur": "دو بار گنیں۔"},
                      q_topics=["bubble", "memory"])
    quiz = load_file(path)
    first = quiz.questions[0]
    assert first.takeaway is not None and first.takeaway.get("ur") == "دو بار گنیں۔"
    assert first.topics == ("bubble", "memory")
    assert quiz.level == "introduction" and quiz.next == "deeper"
    # a shared name missing a language falls back to English rather than refusing the quiz
    assert quiz.topic_name("memory", "ur") == "Memory"
    assert quiz.topic_name("bubble", "ur") == "پائپ لائن ببل"
    assert quiz.questions[1].topics == ()


def test_level_is_derived_from_difficulty_when_not_declared(tmp_path: Path):
    assert load_file(write_quiz(tmp_path, difficulty="easy")).level == "introduction"
    assert load_file(write_quiz(tmp_path, difficulty="hard")).level == "advanced"


def test_a_quiz_may_declare_its_own_topics(tmp_path: Path):
    path = write_quiz(tmp_path, topics={"arithmetic": {"en": "Arithmetic", "ur": "حساب"}},
                      q_topics=["arithmetic"])
    quiz = load_file(path)
    assert quiz.topics[0][0] == "arithmetic" and quiz.topic_name("arithmetic", "ur") == "حساب"


def test_bad_fields_are_named_with_their_line(tmp_path: Path):
    path = write_quiz(tmp_path, level="beginner", next="Not An Id",
                      q_takeaway={"en": "x" * 300, "ur": "y"}, q_topics=["nope"])
    problems = problems_of(path)
    assert f"quiz.yaml:{line_of(path, 'level:')}: level must be one of introduction, " \
        "intermediate, advanced, expert, got 'beginner'" in problems
    assert f"quiz.yaml:{line_of(path, 'next:')}: next must be another quiz's id, got " \
        "'Not An Id'" in problems
    assert any("questions[0].takeaway.en is 300 characters; the limit is 280" in p
               for p in problems)
    assert any(p.startswith(f"quiz.yaml:{line_of(path, '- nope')}: questions[0].topics "
                            "names 'nope', which is not a declared topic") for p in problems)


def test_takeaway_warnings_when_missing_or_past_140_characters(tmp_path: Path):
    path = write_quiz(tmp_path, q_takeaway={"en": "A" * 150, "ur": "ب"})
    assert [w.split(": ", 1)[1] for w in takeaway_warnings(load_file(path))] == [
        "questions[0].takeaway (en) is 150 characters; keep it to 140"]
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    del data["questions"][1]["takeaway"]
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    assert [w.split(": ", 1)[1] for w in takeaway_warnings(load_file(path))][1:] == [
        "questions[1] has no takeaway (the one line shown before the explanation)"]


def test_next_must_name_a_quiz_of_the_same_folder(tmp_path: Path):
    write_quiz(tmp_path, next="missing")
    quizzes, problems = load_all([tmp_path])
    assert "tiny" in quizzes
    assert problems == [f"{tmp_path / 'quiz.yaml'}:1: next names quiz 'missing', which is "
                        "not among the quizzes loaded (tiny)"]
    # one file alone may point at a quiz in a file not given
    assert load_all([tmp_path / "quiz.yaml"])[1] == []


def test_next_links_must_not_loop(tmp_path: Path):
    first = write_quiz(tmp_path, next="tiny2")
    second = tmp_path / "second.yaml"
    second.write_text(first.read_text(encoding="utf-8").replace("id: tiny\n", "id: tiny2\n")
                      .replace("next: tiny2", "next: tiny"), encoding="utf-8")
    _, problems = load_all([tmp_path])
    assert problems == [f"{first}:1: next links go round in a loop: tiny -> tiny2 -> tiny; "
                        "let the last quiz of a path name none"]


def test_shipped_quizzes_form_one_path_from_the_introduction():
    quizzes, problems = load_all([default_content_dir()])
    assert problems == []
    path = ["parallelism"]
    while (step := quizzes[path[-1]].next) is not None:
        path.append(step)
    assert path[:3] == ["parallelism", "parallelism-deep", "parallelism-numbers"]
    assert sorted(path) == sorted(quizzes)  # every shipped quiz is on it, once


def test_topics_file_is_not_a_quiz_and_its_problems_are_named(tmp_path: Path):
    (tmp_path / TOPICS_FILE).write_text("topics:\n  Bad Id: {en: x}\n", encoding="utf-8")
    write_quiz(tmp_path)
    _, problems = load_all([tmp_path])
    assert problems == [f"{tmp_path / TOPICS_FILE}:2: topics.Bad Id must be an id of a-z, "
                        "0-9 and '-'"]


def test_tolerance_of_a_computed_question(tmp_path: Path):
    numbers = (default_content_dir() / "parallelism-numbers.yaml").read_text(encoding="utf-8")
    first = numbers.index("  - id:", numbers.index("questions:"))
    text = numbers[:first] + "  - tolerance: 0.05\n    id:" + numbers[first + len("  - id:"):]
    path = tmp_path / "n.yaml"
    path.write_text(text, encoding="utf-8")
    shared = (default_content_dir() / "topics.yaml").read_text(encoding="utf-8")
    (tmp_path / "topics.yaml").write_text(shared, encoding="utf-8")  # the topics it names
    computed = load_file(path).questions[0].computed
    assert computed is not None and computed.tolerance == 0.05
    path.write_text(text.replace("tolerance: 0.05", "tolerance: 2"), encoding="utf-8")
    with pytest.raises(ContentError) as info:
        load_file(path)
    assert "tolerance must be a relative tolerance above 0 and at most 0.25" in \
        info.value.problems[0]
