"""validate's content warnings (`bot.domain.quiz.lint`): a computed key at the same
rank in most draws, options too close together, physical bounds and words that agree with
the numbers, answers given away by another question, explanations too long to read."""

from __future__ import annotations

import textwrap
from pathlib import Path

from adapters.cli.main import main
from bot.domain.quiz import Option, Question, Quiz, Text, load_file
from bot.domain.quiz.computed import draw
from bot.domain.quiz.lint import (
    EXPLANATION_CHARS,
    claim_warnings,
    computed_warnings,
    explanation_warnings,
    leak_warnings,
)
from bot.domain.quiz.sampling import sample_problems
from tests.bot.domain.quiz.test_computed import GOOD, line_of, problems_of, write

# The answer x against 10−x (below it for x > 5, above for x < 5) and x+20 (always above):
# the key is the smallest option in about half the draws and the middle one in the rest.
CROSSING = """\
  - id: crossing
    params:
      x: {min: 1, max: 9}
    answer: x
    text: "x = {x}?"
    mistakes:
      - name: mirror
        value: 10 - x
        why_not: "{value} is 10 − x."
      - name: shifted
        value: x + 20
        why_not: "{value} is x + 20."
    explanation: "It is {answer}."
"""


# --- the key's rank across draws -----------------------------------------------------------

def test_a_key_at_the_same_rank_in_every_draw_is_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)  # (p-1)/(m+p-1) is below (p-1)/m and (p-1)/p, always
    [warning] = [w for w in computed_warnings(load_file(path)) if "rank" in w or "smallest" in w]
    assert warning == (
        f"{path}:{line_of(path, '- id: bubble')}: questions[0] (bubble): the answer is the "
        "smallest of the 3 options in 200 of 200 draws (at most 60%); a learner who replays "
        "picks it without computing: add a mistake whose side of the answer depends on the "
        "draw (a slip drawn as an under- or an over-count, p and m swapped)")


def test_a_key_whose_rank_varies_passes(tmp_path: Path) -> None:
    assert computed_warnings(load_file(write(tmp_path, CROSSING))) == []


# --- the gap between options ---------------------------------------------------------------

def test_two_options_closer_than_5_percent_are_a_warning_at_the_second(tmp_path: Path) -> None:
    close = CROSSING.replace("value: x + 20", "value: x * 1.03")
    path = write(tmp_path, close)
    [warning] = computed_warnings(load_file(path))
    assert warning.startswith(f"{path}:{line_of(path, '- name: shifted')}: questions[0] "
                              "(crossing): options 'answer' and 'shifted' are less than 5% "
                              "apart in 200 of 200 draws (e.g. ")
    assert "2.9% apart, with x=" in warning
    # a question that needs closer options says so
    allowed = close.replace("    answer: x\n", "    answer: x\n    min_gap: 0.02\n")
    assert computed_warnings(load_file(write(tmp_path, allowed, "allowed.yaml"))) == []


def test_min_gap_must_be_a_small_relative_number(tmp_path: Path) -> None:
    path = write(tmp_path, CROSSING.replace("    answer: x\n", "    answer: x\n    min_gap: 5\n"))
    assert problems_of(path) == [
        f"q.yaml:{line_of(path, 'min_gap')}: questions[0].min_gap must be a relative gap "
        "between any two options above 0 and at most 0.25 (0.02 = 2 %), got 5"]


# --- physical bounds and words that agree with the numbers -------------------------------

MEMORY = """\
  - id: memory
    params:
      gpu: [40, 80]
      layers: {min: 10, max: 40}
    let:
      per_gpu: 2.5 * layers
    answer: per_gpu
    bounds:
      answer: [0, 1000]
      per_gpu: [0, gpu]
    option: "{value:.1f} GB"
    text: "{layers} layers on a {gpu} GB GPU: memory per GPU?"
    mistakes:
      - name: half
        value: per_gpu / 2
        why_not: "{value:.1f} GB counts half."
      - name: double
        value: 2 * per_gpu
        why_not: "{value:.1f} GB counts twice."
    explanation: "{answer:.1f} GB, {if answer > gpu: over|within} the {gpu} GB GPU."
"""


def test_a_bound_on_any_value_may_use_the_drawn_numbers(tmp_path: Path) -> None:
    path = write(tmp_path, MEMORY)
    [problem] = problems_of(path)  # a quiz whose draws break a bound is not loaded
    assert problem.startswith(f"q.yaml:{line_of(path, 'per_gpu: [0, gpu]')}: questions[0] "
                              "(memory): per_gpu ")
    assert "leaves the bounds [0, 40] (with gpu=40, layers=" in problem \
        or "leaves the bounds [0, 80] (with gpu=80, layers=" in problem
    assert problem.endswith("of 200 draws)")
    kept = MEMORY.replace("      layers: {min: 10, max: 40}\n",
                          "      layers: {min: 10, max: 24}\n    where: ['2.5 * layers <= gpu']\n")
    assert sample_problems(load_file(write(tmp_path, kept, "kept.yaml"))) == []  # loads


def test_a_bound_must_name_a_known_value(tmp_path: Path) -> None:
    path = write(tmp_path, MEMORY.replace("per_gpu: [0, gpu]", "per_node: [0, gpu]")
                 .replace("answer: [0, 1000]", "answer: [1000, 0]"))
    problems = problems_of(path)
    assert f"q.yaml:{line_of(path, 'per_node')}: questions[0].bounds.per_node names " \
        "'per_node', not a parameter, a `let` or the answer (known: answer, gpu, layers, " \
        "per_gpu)" in problems
    assert f"q.yaml:{line_of(path, 'answer: [1000, 0]')}: questions[0].bounds.answer has " \
        "low above high: [1000, 0]" in problems


def test_a_condition_picks_the_words_that_agree_with_the_numbers(tmp_path: Path) -> None:
    quiz = load_file(write(tmp_path, MEMORY.replace("per_gpu: [0, gpu]", "per_gpu: [0, 200]")))
    said = set()
    for seed in range(60):
        q = draw(quiz.questions[0], seed)
        env = dict(q.drawn)
        over = 2.5 * env["layers"] > env["gpu"]
        text = q.explanation.get("en")
        assert (" over the " in text) == over and (" within the " in text) == (not over), text
        said.add(over)
    assert said == {True, False}


def test_a_malformed_condition_is_refused_at_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, MEMORY.replace("{if answer > gpu: over|within}",
                                          "{if answer > gpu: over}"))
    [problem] = problems_of(path)
    assert problem.startswith(f"q.yaml:{line_of(path, 'explanation:')}: "
                              "questions[0].explanation.en {if answer > gpu: over} must read "
                              "{if condition: words|other words}")


def test_words_the_drawn_numbers_contradict_are_a_warning(tmp_path: Path) -> None:
    # the bug of n05: "57.4 GB, far over an 80 GB GPU" in the draws under 80 GB
    false = MEMORY.replace("per_gpu: [0, gpu]", "per_gpu: [0, 200]").replace(
        "{if answer > gpu: over|within} the {gpu} GB GPU.", "far over an 80 GB GPU.")
    path = write(tmp_path, false)
    [warning] = claim_warnings(load_file(path))
    assert warning.startswith(f"{path}:{line_of(path, '- id: memory')}: questions[0] (memory) "
                              "says '# GB, far over an # GB' in ")
    assert warning.endswith(" of 200 draws, which its numbers contradict; say it with a "
                            "condition ({if answer > 80: over|within})")
    right = false.replace("far over an 80 GB GPU.", "{if answer > 80: over|within} an 80 GB GPU.")
    assert claim_warnings(load_file(write(tmp_path, right, "right.yaml"))) == []


def test_a_written_comparison_is_read_too() -> None:
    wrong = question("q", "How much?", ["About 45 GB", "About 90 GB"], 0,
                     "45 GB, more than an 80 GB GPU holds, and 120 GB within a 141 GB GPU.")
    assert claim_warnings(quiz(wrong)) == [
        "t.yaml:1: questions[0] (q) says '# GB, more than an # GB', which its numbers "
        "contradict; say it with a condition ({if answer > 80: over|within})"]


# --- answers given away by another question ------------------------------------------------

def text(en: str) -> Text:
    return Text((("en", en),))


def question(qid: str, ask: str, options: list[str], correct: int,
             explanation: str = "Because.") -> Question:
    return Question(qid, text(ask), tuple(Option(text(o)) for o in options), correct,
                    text(explanation), line=len(qid))


def quiz(*questions: Question) -> Quiz:
    return Quiz("t", text("T"), text("D"), "hard", ("en",), questions, source="t.yaml")


ACTIVATIONS = question("d16", "How much activation memory per layer?",
                       ["About 0.36 GB", "About 0.72 GB", "About 2.9 GB"], 0)
ULYSSES = question("d11", "What limits Ulysses' degree?",
                   ["The number of attention heads", "The sequence length", "The batch"], 0)


def test_a_key_number_in_another_questions_explanation_is_a_leak() -> None:
    recompute = question("d15", "Which activations does selective recomputation drop?",
                         ["The attention scores", "The MLP outputs"], 0,
                         "It keeps 0.12 GB per layer instead of 0.36 GB.")
    assert leak_warnings(quiz(recompute, ACTIVATIONS)) == [
        "t.yaml:3: questions[0] (d15) gives away the answer of questions[1] (d16): its "
        "options or explanation say '0.36', as that key does"]


def test_a_key_phrase_in_another_questions_option_is_a_leak() -> None:
    ring = question("d10", "How does ring attention split the work?",
                    ["Queries stay, key/value blocks travel", "Each GPU gets whole "
                     "attention heads"], 0)
    assert leak_warnings(quiz(ring, ULYSSES)) == [
        "t.yaml:3: questions[0] (d10) gives away the answer of questions[1] (d11): its "
        "options or explanation say 'attention heads', as that key does"]


def test_shared_vocabulary_and_the_questions_own_words_are_no_leak() -> None:
    # "attention heads" in three other questions is the subject's vocabulary
    others = [question(f"o{k}", "Why?", ["Because of the attention heads", "Not"], 1)
              for k in range(3)]
    assert leak_warnings(quiz(ULYSSES, *others)) == []
    # a key number that a wrong option of its own question shows too points nowhere
    echo = question("d15", "Which?", ["A", "B"], 0, "About 0.36 GB or 0.72 GB")
    fair = question("d16", "How much?", ["About 0.36 GB", "About 0.36 GB twice"], 0)
    assert leak_warnings(quiz(echo, fair)) == []


# --- explanation length --------------------------------------------------------------------

def test_an_explanation_past_700_characters_is_a_warning_in_each_language() -> None:
    ur = "ا" * (EXPLANATION_CHARS + 1)
    long_ur = Question("q", Text((("en", "Which?"), ("ur", "کون سا؟"))),
                       (Option(Text((("en", "A"), ("ur", "ا")))),
                        Option(Text((("en", "B"), ("ur", "ب"))))), 0,
                       Text((("en", "x" * EXPLANATION_CHARS), ("ur", ur))), line=7)
    two = Quiz("t", text("T"), text("D"), "hard", ("en", "ur"), (long_ur,), source="t.yaml")
    assert explanation_warnings(two) == [
        "t.yaml:7: questions[0].explanation (ur) is 701 characters; keep it to 700 (the "
        "takeaway carries the point)"]


def test_a_computed_explanation_is_measured_as_drawn(tmp_path: Path) -> None:
    padded = GOOD.replace('"(p-1)/(m+p-1) = {p-1}/{m+p-1} = {answer:.1%}."',
                          '"' + "w" * 690 + ' {10**m:d}"')
    path = write(tmp_path, padded)  # 700 as written, 10**m fills in 11 to 22 characters
    assert len(load_file(path).questions[0].explanation.get("en")) == EXPLANATION_CHARS
    [warning] = explanation_warnings(load_file(path))
    assert warning.startswith(f"{path}:{line_of(path, '- id: bubble')}: questions[0]"
                              ".explanation (en) is 7")


# --- through the command -------------------------------------------------------------------

def test_validate_prints_the_content_warnings_and_still_exits_0(tmp_path: Path,
                                                              capsys) -> None:
    path = write(tmp_path, textwrap.dedent(CROSSING).replace("value: x + 20", "value: x * 1.03"))
    assert main(["validate", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"warning: {path}:{line_of(path, '- name: shifted')}: questions[0] (crossing): " \
        "options 'answer' and 'shifted' are less than 5% apart" in err
