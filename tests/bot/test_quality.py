"""Quality warnings: the longest option is usually right, an option parrots the question."""

from __future__ import annotations

from pathlib import Path

from adapters.cli.main import main
from bot.domain.quiz import Option, Question, Quiz, Text, default_content_dir, quality_warnings
from tests.conftest import FIXTURES


def text(en: str) -> Text:
    return Text((("en", en),))


def question(n: int, options: list[str], correct: int, ask: str = "Which one?") -> Question:
    return Question(f"q{n}", text(ask), tuple(Option(text(o), line=10 * n + k)
                                            for k, o in enumerate(options)),
                    correct, text("Because."), line=10 * n)


def quiz(*questions: Question) -> Quiz:
    return Quiz("t", text("T"), text("D"), "hard", ("en",), questions, source="t.yaml")


def test_right_option_longest_in_most_questions_is_a_warning():
    giveaway = quiz(*(question(n, ["short", "a much longer right answer", "tiny"], 1)
                      for n in range(3)))
    assert quality_warnings(giveaway) == [
        "t.yaml:1: (en) the right option is the longest in 3 of 3 questions; a learner can "
        "pick it without knowing the answer"]


def test_half_or_fewer_longest_is_fine():
    fair = quiz(question(1, ["short", "a much longer right answer"], 1),
                question(2, ["a long wrong answer here", "right"], 1),
                question(3, ["the same", "the same"], 1),  # a tie is not "the longest"
                question(4, ["wrong and long enough", "ok"], 0))
    assert quality_warnings(fair) == []


def test_option_repeating_the_question_is_a_warning_at_its_line():
    q = question(1, ["it splits the weight matrices", "it keeps layers"], 1,
                 ask="Why does tensor parallelism split the weight matrices?")
    assert quality_warnings(quiz(q)) == []  # three shared words are not a repeat
    parrot = question(1, ["tensor parallelism split the weight matrices", "no"], 1,
                      ask="Why does tensor parallelism split the weight matrices?")
    assert quality_warnings(quiz(parrot)) == [
        "t.yaml:10: questions[0].options[0] (en) repeats the question's wording "
        "('tensor parallelism split the')"]


def test_validate_prints_warnings_and_still_exits_0(capsys, tmp_path: Path):
    assert main(["validate", str(default_content_dir() / "parallelism.yaml")]) == 0
    err = capsys.readouterr().err
    # The seed's options are kept as the seed gave them, and the right one is the longest.
    assert "warning: " in err and "parallelism.yaml:1: (en) the right option is the longest" in err
    assert main(["validate", str(FIXTURES / "content" / "minimal.yaml")]) == 0
    assert "warning" not in capsys.readouterr().err
