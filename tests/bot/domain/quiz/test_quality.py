"""Quality warnings: the longest option is usually right, an option parrots the question."""

from __future__ import annotations

from pathlib import Path

import pytest

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
        "t.yaml:1: (en) the right option is the longest in 3 of 3 questions (at most 1); a "
        "learner can pick it without knowing the answer"]


@pytest.mark.parametrize(("total", "most"), [(3, 1), (4, 1), (5, 1), (7, 1), (8, 2), (12, 3)])
def test_a_small_quiz_is_told_a_count_it_can_meet(total: int, most: int):
    """A quiz of 3 was told "(at most 0)", flagged for the one question whose right option
    happened to be the longest: the count is a quarter, but never below 1."""
    def quiz_with(longest: int) -> Quiz:
        return quiz(*(question(n, ["short", "a much longer right answer", "tiny"], 1)
                      if n < longest else question(n, ["a long wrong answer here", "ok"], 1)
                      for n in range(total)))
    assert quality_warnings(quiz_with(most)) == []
    assert quality_warnings(quiz_with(most + 1)) == [
        f"t.yaml:1: (en) the right option is the longest in {most + 1} of {total} questions "
        f"(at most {most}); a learner can pick it without knowing the answer"]


def test_one_or_two_questions_are_never_told_about_the_longest_option():
    for total in (1, 2):
        assert quality_warnings(quiz(*(question(n, ["short", "a much longer right answer"], 1)
                                       for n in range(total)))) == []


def test_a_quarter_or_fewer_longest_is_fine():
    fair = quiz(question(1, ["short", "a much longer right answer"], 1),
                question(2, ["a long wrong answer here", "right"], 1),
                question(5, ["a long wrong answer too", "fine"], 1),
                question(3, ["the same", "the same"], 1),  # a tie is not "the longest"
                question(4, ["wrong and long enough", "ok"], 1))
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
    cued = tmp_path / "cued.yaml"
    questions = "".join(
        f"  - id: q{n}\n    text: {{en: '{n} plus {n}?'}}\n    options:\n"
        f"      - text: {{en: '{2 * n}, the sum of the two'}}\n"
        f"      - text: {{en: '{n}'}}\n        why_not: {{en: Add.}}\n"
        f"    correct: 0\n    explanation: {{en: Add.}}\n    takeaway: {{en: Add.}}\n"
        for n in (1, 2, 3))
    # The right answer is the longest option in 3 of 3 questions.
    cued.write_text("id: cued\ntitle: {en: Cued}\ndescription: {en: Sums.}\n"
                    "difficulty: easy\nlanguages: [en]\nquestions:\n" + questions,
                    encoding="utf-8")
    assert main(["validate", str(cued)]) == 0
    err = capsys.readouterr().err
    assert "warning: " in err and "cued.yaml:1: (en) the right option is the longest" in err
    assert main(["validate", str(default_content_dir() / "parallelism.yaml")]) == 0
    assert "warning" not in capsys.readouterr().err  # the seed quiz, reworded: no cue left
    assert main(["validate", str(FIXTURES / "content" / "minimal.yaml")]) == 0
    assert "warning" not in capsys.readouterr().err


def cues(options: list[str], correct: int, ask: str) -> list[str]:
    return [w.split(") ", 1)[1] for w in quality_warnings(quiz(question(1, options, correct, ask)))]


def test_a_word_only_the_right_option_shares_with_the_question_is_a_cue():
    ask = "How does ring attention spread attention over N GPUs?"
    keyed = ["Queries stay while key/value blocks pass around a ring",
             "An all-to-all regroups the heads", "Each GPU attends within its block"]
    assert cues(keyed, 0, ask) == [
        "only the right option shares 'ring' with the question; give a wrong option the "
        "same word"]
    fair = [*keyed[:2], "Each GPU broadcasts its queries around the ring at once"]
    assert cues(fair, 0, ask) == []


def test_absolute_words_only_in_wrong_options_are_a_cue():
    ask = "What sets the step time of an unbalanced pipeline?"
    options = ["The slowest stage", "Nothing: the fast stages always make up for it",
               "The mean stage time"]
    assert cues(options, 0, ask) == [
        "absolute words ('always', 'nothing') appear only in wrong options; word the right "
        "one as firmly or soften them"]
    assert cues(["The slowest stage, always", *options[1:]], 0, ask) == []


def test_an_option_that_is_another_over_a_number_of_the_question_is_a_cue():
    ask = "With t = 8, about how much activation memory does one GPU need?"
    options = ["About 0.36 GB", "About 0.58 GB", "About 2.9 GB"]  # 2.9 / 8 = 0.36
    assert cues(options, 0, ask) == [
        "options[0] and options[2] differ by a factor of 8 from the question, and one is "
        "right; give the factor to a wrong pair too, or to none"]
    # When a wrong pair carries the same factor, the relation no longer singles out the key.
    assert cues([*options, "About 4.6 GB"], 0, ask) == []


def test_mirror_pair_holding_the_right_option_is_a_cue():
    ask = "FSDP and tensor parallelism both shard weights. What differs?"
    options = ["FSDP all-reduces partial outputs in each layer; tensor parallelism gathers "
               "the whole weights",
               "FSDP gathers each layer's weights before use; tensor parallelism exchanges "
               "activations",
               "Both send weights point-to-point between stages"]
    assert cues(options, 1, ask) == [
        "options[0] and options[1] swap the same claims between their clauses and one is "
        "right; a learner picks from the mirror pair"]
    assert cues(options, 2, ask) == []  # the key is not in the pair: no pointer to it


def test_right_option_at_the_meeting_point_of_the_others_is_a_cue():
    ask = "How many micro-batches does the first GPU hold?"
    options = ["GPipe 8, 1F1B 3", "GPipe 4, 1F1B 4", "GPipe 8, 1F1B 1", "GPipe 8, 1F1B 4"]
    assert cues(options, 3, ask) == [
        "the right option shares the most phrases and numbers with the others (each wrong "
        "option differs from it in one part); vary the wrong options more"]
    assert cues(["GPipe 8, 1F1B 4", "GPipe 6, 1F1B 2", "GPipe 4, 1F1B 8", "GPipe 3, 1F1B 1"],
                0, ask) == []


def test_shipped_quizzes_have_no_cues():
    from bot.domain.quiz import iter_quiz_files, load_file

    for path in iter_quiz_files([default_content_dir()]):
        assert quality_warnings(load_file(path)) == [], path


def test_right_option_holding_the_majority_of_every_part_is_a_cue():
    # pipeline-schedules ps08 as the review read it: each wrong option missed one part.
    ask = "p = 8, m = 16, interleaved 1F1B goes from v = 2 to v = 4. What changes?"
    voted = ["Bubble 7/32 → 7/64; activations 1 + 7/16 → 1 + 7/32; the same p2p messages",
             "Bubble 7/32 → 7/64; activations 1 + 7/16 → 1 + 7/32; twice the p2p messages",
             "Bubble 7/32 → 7/64; activations 1 + 7/16 → 1 + 7/8; twice the p2p messages",
             "Bubble 7/16 → 7/32; activations 1 + 7/16 → 1 + 7/32; twice the p2p messages"]
    assert cues(voted, 1, ask) == [
        "every part of the right option is the most common value of that part among the "
        "options; let each wrong option miss more than one part (a 2 x 2 design)"]
    design = ["GPipe 8, 1F1B 3", "GPipe 1, 1F1B 3", "GPipe 8, 1F1B 4", "GPipe 1, 1F1B 4"]
    assert cues(design, 2, "How many does GPU1 hold?") == []


def test_the_right_option_alone_starting_differently_is_a_cue():
    # The seed quiz's q8 as first reworded: three "It ..." options and the key "Each GPU ...".
    ask = "Why does tensor parallelism often require fast communication within its group?"
    odd = ["It gives each GPU its own dataset and never synchronizes them",
           "It communicates only once, when the model is first loaded",
           "It runs no cross-device operations at all",
           "Each GPU computes only part of a layer and must exchange partial results"]
    assert cues(odd, 3, ask) == [
        "every wrong option starts with 'it' and the right one does not; start the options "
        "alike, or vary them"]
    alike = [*odd[:3], "It leaves each GPU only part of a layer, so GPUs exchange partial results"]
    assert cues(alike, 3, ask) == []


def test_the_right_option_alone_punctuated_differently_is_a_cue():
    # parallelism-deep d14 as shipped: the key alone had a semicolon, the others colons.
    ask = "How long after the first stage's last backward does the step end?"
    odd = ["About 120 ms, and the last stage's sync shows too: it waits for every backward",
           "About 20 ms: the drain keeps the last stage's sync hidden, and most of the first's",
           "About 260 ms: the last stage starts its sync once its gradient reaches stage 1",
           "About 120 ms, all of it the first stage's; the last stage's sync ends earlier"]
    assert cues(odd, 3, ask) == [
        "only the right option has a semicolon and every wrong option agrees; punctuate the "
        "options alike, or vary them"]
    alike = [*odd[:3], "About 120 ms, all of it the first stage's: the last stage's ends earlier"]
    assert cues(alike, 3, ask) == []
    # a comma inside a number is not punctuation: "3,100 tokens" among plain options
    numbers = ["About 3,100 tokens", "About 6,200 tokens", "About 620 tokens", "About 62 tokens"]
    assert cues(numbers, 1, "How many tokens?") == []


def test_two_near_copies_holding_the_right_option_are_a_cue():
    ask = "What keeps tied embeddings equal across stages?"
    options = ["An all-reduce of their gradients between the first and last stage",
               "An all-reduce of their gradients between the first and second stage",
               "A broadcast of the weights in every layer"]
    assert cues(options, 0, ask) == [
        "options[0] and options[1] are near copies of each other and one is right; make "
        "every option as close, or none"]
    assert cues(options, 2, ask) == []
