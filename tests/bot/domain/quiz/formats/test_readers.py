"""Each import format read from fixtures written from its specification's examples
(tests/fixtures/import/), through to a quiz our loader accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.domain.quiz.formats import guess_format, read_draft
from bot.domain.quiz.formats.draft import Draft, stable_id
from bot.domain.quiz.formats.gift import read as read_gift
from bot.features.importing import convert

FIXTURES = Path(__file__).parents[4] / "fixtures" / "import"


def _read(name: str, fmt: str) -> Draft:
    return read_draft((FIXTURES / name).read_bytes(), name, fmt)



def test_gift_reads_every_feature_of_the_specification() -> None:
    draft = _read("spec.gift", "gift")
    qs = {q.name: q for q in draft.questions}
    assert list(qs) == ["Grant's tomb", "Sun", "Moodle cost", "Pipeline", "Escaped", "HTML",
                        "Numerical"]
    grant = qs["Grant's tomb"]
    assert grant.category == "GIFT examples" and draft.title == "GIFT examples"
    assert [o.fraction for o in grant.options] == [0, 100, 0, 0, 0]
    assert grant.options[0].feedback == "No, he's buried elsewhere."
    assert grant.general == "The Grant family lie above ground, in sarcophagi."
    sun = qs["Sun"]
    assert [(o.text, o.fraction, o.feedback) for o in sun.options] == [
        ("True", 0, "It rises in the east."), ("False", 100, "Right.")]
    assert qs["Moodle cost"].text == "Moodle costs _____ to download from moodle.org."
    assert [o.fraction for o in qs["Pipeline"].options] == [100, 50, -25]
    escaped = qs["Escaped"]
    assert escaped.text == "Which is written 1 = 1 with {braces} and a : colon?"
    assert escaped.options[0].text == "The ~ tilde one# with a hash"
    assert qs["HTML"].text == "Which collective sums gradients?"
    assert qs["HTML"].options[0].text == "all-reduce"


def test_gift_lists_each_unsupported_question_with_its_line() -> None:
    draft = _read("spec.gift", "gift")
    kinds = [(s.split(":")[1], s.split("skipped ")[1].split(" question")[0])
             for s in draft.skipped]
    assert kinds == [("41", "an essay"), ("45", "a short answer"), ("47", "a matching"),
                     ("49", "a description")]


def test_gift_multi_line_question_and_blank_line_inside_the_answers() -> None:
    text = "::A::First line\nsecond line{\n=yes\n\n~no#because\n}\n\n::B::Next?{=a ~b}\n"
    draft = read_gift(text, "x.gift")
    assert [q.name for q in draft.questions] == ["A", "B"]
    assert draft.questions[0].text == "First line\nsecond line"
    assert draft.questions[0].options[1].feedback == "because"
    assert draft.questions[1].where == "x.gift:8"


def test_aiken_and_csv_read_their_documented_shapes() -> None:
    aiken = _read("spec.aiken", "aiken")
    assert [len(q.options) for q in aiken.questions] == [2, 4]
    assert aiken.questions[1].options[0].fraction == 100
    csv = _read("spec.csv", "csv")
    first, second = csv.questions
    assert first.options[2].text == "ZeRO, stage 1" and first.options[0].fraction == 100
    assert first.options[1].feedback == "Each GPU holds every layer."
    assert second.name == "one-f-one-b" and second.options[1].fraction == 100
    assert first.category == "Basics" and first.general.startswith("Pipeline parallelism")


def test_moodle_xml_reads_cdata_feedback_pictures_and_calculated() -> None:
    draft = _read("moodle.xml", "moodle-xml")
    qs = {q.name: q for q in draft.questions}
    bubble = qs["GPipe bubble"]
    assert bubble.text == ("GPipe runs 4 stages with 8 micro-batches.\n\n"
                           "What share of the step is bubble?")
    assert bubble.general == "Idle over total is (p−1)/(m+p−1) = 3/11."
    assert bubble.options[1].feedback == "That is over the ideal time, not the whole step."
    assert bubble.image is not None and bubble.image[1].startswith(b"\x89PNG")
    assert bubble.category == "Pipeline basics"
    tf = qs["1F1B memory"]
    assert [(o.text, o.fraction) for o in tf.options] == [("True", 100), ("False", 0)]
    computed = qs["Bubble with numbers"].computed
    assert computed is not None
    assert computed["params"]["p"] == [4, 6, 8]
    assert computed["params"]["m"] == {"min": 8, "max": 32, "step": 1}
    assert computed["answer"] == "(p - 1) / (m + p - 1)"
    assert [m["value"] for m in computed["mistakes"]] == ["(p - 1) / m", "p ** 2 / (m + p)"]
    assert computed["option"] == "{value:.3f}"
    skipped = " ".join(draft.skipped)
    for kind in ("a calculated question 'Typed sum' (it has one answer", "an essay",
                 "a matching"):
        assert kind in skipped


def test_a_calculated_formula_outside_our_language_is_a_message_for_that_question() -> None:
    xml = (FIXTURES / "moodle.xml").read_bytes().replace(
        b"{=pow({p}, 2)/({m}+{p})}", b"{=sin({p})}")
    draft = read_draft(xml, "m.xml", "moodle-xml")
    assert "Bubble with numbers" not in {q.name for q in draft.questions}
    message = next(s for s in draft.skipped if "calculatedmulti" in s)
    assert message.startswith("m.xml:40: ") and "sin" in message


def test_each_fixture_becomes_a_quiz_our_loader_accepts() -> None:
    for name in ("spec.gift", "spec.aiken", "spec.csv", "moodle.xml"):
        result = convert((FIXTURES / name).read_bytes(), name)
        assert result.problems == [] and result.quiz is not None, name
    result = convert((FIXTURES / "moodle.xml").read_bytes(), "moodle.xml")
    assert result.quiz is not None
    assert [q.id for q in result.quiz.questions] == [
        "gpipe-bubble", "1f1b-memory", "bubble-with-numbers"]
    assert result.quiz.questions[2].computed is not None
    assert [q.topics for q in result.quiz.questions] == [("pipeline-basics",)] * 3
    assert result.quiz.topics[0][1].get("en") == "Pipeline basics"  # the category's name
    assert result.images == {"img/moodle-gpipe-bubble.png": (FIXTURES / "tiny.png").read_bytes()}


def test_ids_are_stable_from_names_or_the_stem_and_unique() -> None:
    taken: set[str] = set()
    assert stable_id("Week 1: Pipes!", "x", taken) == "week-1-pipes"
    assert stable_id("Week 1: Pipes!", "y", taken) == "week-1-pipes-2"
    assert stable_id("", "What  is\nthis?", set()) == stable_id("", "What is this?", set())
    assert stable_id("ماڈل", "a", set()).startswith("q-")


@pytest.mark.parametrize(("name", "head", "fmt"), [
    ("a.gift", b"", "gift"), ("a.xml", b"", "moodle-xml"), ("a.csv", b"", "csv"),
    ("a.txt", b"Q?\nA. x\nB. y\nANSWER: A\n", "aiken"), ("a.txt", b"Q?{=a ~b}", "gift"),
    ("upload", b"<?xml version='1.0'?><quiz/>", "moodle-xml"), ("a.txt", b"hello", None),
])
def test_the_format_is_guessed_from_name_then_content(name: str, head: bytes,
                                                       fmt: str | None) -> None:
    assert guess_format(name, head) == fmt
