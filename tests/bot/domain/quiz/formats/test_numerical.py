"""Typed-number questions (Moodle numerical, GIFT {#...}, a sheet's tolerance column) import
as computed questions with fixed numbers, their absolute tolerance kept; what cannot be
imported is named per question, in English and Urdu."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.domain import numeric
from bot.domain.quiz.computed import drawn_values
from bot.domain.quiz.formats import export_quiz
from bot.domain.quiz.model import Question, Quiz
from bot.features.importing import convert
from bot.present.import_texts import said_in

FIXTURES = Path(__file__).parents[4] / "fixtures" / "import"

GIFT = """$CATEGORY: $course$/top/Photosynthesis

::Glucose carbons::How many carbon atoms has one glucose molecule?{#6}

::Red peak::[html]<p>At about what wavelength (nm) does chlorophyll <b>a</b> absorb red light
most?</p>{#
  =680:10#Right: about 680 nm.
  =%50%660:5#Close, but that is chlorophyll b's region.
  ~450#That is the blue peak.
  ####Chlorophyll a's red peak is near 680 nm.
}

::Range::Name a number of ATP per NADPH cycle between 1 and 5{#1..5}

::Pairs::Match the stage to its place{=Light reactions -> Thylakoid =Calvin cycle -> Stroma}
"""

XML = b"""<?xml version="1.0" encoding="UTF-8"?>
<quiz>
<question type="category"><category><text>$course$/top/Photosynthesis</text></category>
</question>
<question type="numerical">
  <name><text>Oxygen per glucose</text></name>
  <questiontext format="html"><text><![CDATA[<p>How many O<sub>2</sub> molecules does
  making <em>one</em> glucose release?</p>]]></text></questiontext>
  <generalfeedback format="html"><text><![CDATA[<p>6 CO2 + 6 H2O -> C6H12O6 + 6 O2</p>]]>
  </text></generalfeedback>
  <answer fraction="100" format="moodle_auto_format"><text>6</text>
    <feedback format="html"><text>Yes.</text></feedback><tolerance>0</tolerance></answer>
  <answer fraction="0" format="moodle_auto_format"><text>12</text>
    <feedback format="html"><text>That counts O atoms.</text></feedback>
    <tolerance>0</tolerance></answer>
  <answer fraction="0" format="moodle_auto_format"><text>*</text>
    <feedback format="html"><text>Balance the equation.</text></feedback></answer>
</question>
<question type="ddwtos"><name><text>Drag words</text></name>
  <questiontext format="html"><text>Drag</text></questiontext></question>
</quiz>
"""


def _typed(q: Question, text: str) -> int | None:
    c = q.computed
    assert c is not None
    _env, values = drawn_values(q, 1)
    return numeric.match(numeric.parse(text, c.unit), [float(v) for v in values],
                         c.tolerance, c.absolute)


def test_gift_numbers_import_with_their_tolerance_and_feedback() -> None:
    result = convert(GIFT.encode(), "photo.gift")
    assert result.problems == [] and result.quiz is not None
    qs = {q.id: q for q in result.quiz.questions}
    assert list(qs) == ["glucose-carbons", "red-peak", "range"]
    red = qs["red-peak"]
    assert red.computed is not None and red.computed.absolute == 10
    assert _typed(red, "689") == 0 and _typed(red, "670") == 0  # within 680 +- 10
    assert _typed(red, "691") is None and _typed(red, "450") == 2  # the blue-peak mistake
    assert red.explanation.get("en") == ("Chlorophyll a's red peak is near 680 nm.\n\n"
                                         "Right: about 680 nm.")
    assert _typed(qs["glucose-carbons"], "6") == 0 and _typed(qs["glucose-carbons"],
                                                              "6.1") != 0
    assert _typed(qs["range"], "1") == 0 and _typed(qs["range"], "5") == 0
    assert _typed(qs["range"], "5.5") != 0
    warnings = "\n".join(result.warnings)
    assert ("photo.gift:5: partial credit (50%) is not kept: only the 100% answer counts as "
            "right") in warnings
    skipped = ("photo.gift:15: skipped a matching question 'Pairs'; only multiple choice, "
               "true/false, computed and typed-number questions are imported")
    assert skipped in result.warnings
    assert said_in("ur", skipped) == (
        "photo.gift:15: جوڑ ملانے والا (matching) سوال 'Pairs' چھوڑ دیا گیا؛ صرف کثیر "
        "انتخابی، درست/غلط، حسابی اور عدد لکھ کر جواب والے سوال درآمد ہوتے ہیں")


def test_moodle_numerical_imports_and_other_kinds_are_named() -> None:
    result = convert(XML, "photo.xml")
    assert result.problems == [] and result.quiz is not None
    (q,) = result.quiz.questions
    # the line break in the HTML source is a space, as a browser shows it
    assert q.text.get("en") == "How many O2 molecules does making one glucose release?"
    assert q.computed is not None and q.computed.absolute == 0
    assert _typed(q, "6") == 0 and _typed(q, "12") == 1 and _typed(q, "7") is None
    assert [o.text.get("en") for o in q.options] == ["{value}", "{value}"]
    assert "That counts O atoms." in str(q.computed.choices[1].why_not)
    assert any("the feedback for any other answer ('*') is not kept" in w
               for w in result.warnings)
    assert any("skipped a ddwtos question 'Drag words'" in w for w in result.warnings)


def test_a_sheet_row_with_a_number_and_no_options_is_a_typed_number() -> None:
    sheet = (b"question,option1,option2,correct,tolerance,explanation\n"
             b"How many ATP per glucose in the Calvin cycle?,,,18,1,Three per CO2.\n"
             b"Which gas is released?,O2,CO2,A,,It comes from water.\n")
    result = convert(sheet, "photo.csv")
    assert result.problems == [] and result.quiz is not None
    typed, choice = result.quiz.questions
    assert typed.computed is not None and typed.computed.absolute == 1
    assert _typed(typed, "19") == 0 and _typed(typed, "20") != 0
    assert choice.computed is None and choice.correct == 0


def test_a_cue_of_a_plain_question_is_told_once_beside_a_typed_number() -> None:
    # A quiz with one typed-number (computed) question repeated every plain question's cue a
    # second time, as '... (in 40 of 40 draws)', as if the numbers made it.
    gift = (GIFT + "\n::Gas::Which gas does photosynthesis release?{=Oxygen ~None of these "
            "~Nitrogen}\n").encode()
    result = convert(gift, "photo.gift")
    told = [w for w in result.warnings if "absolute words ('none')" in w]
    assert len(told) == 1 and "draws)" not in told[0]


def test_moodles_own_gift_export_of_any_other_answer_is_read() -> None:
    # Moodle writes a numerical question's "any other answer" (*) as '~#feedback': the
    # question was skipped ("its answer '' is not a number").
    result = convert((FIXTURES / "photosynthesis.gift").read_bytes(), "photosynthesis.gift")
    assert result.problems == [] and result.quiz is not None
    assert len(result.quiz.questions) == 10
    assert not any("skipped" in w for w in result.warnings)
    assert "photosynthesis.gift:59: the feedback for any other answer ('*') is not kept; put " \
           "it in the explanation" in result.warnings


def test_a_typed_number_questions_templates_are_not_near_copies() -> None:
    # '{value}' and '{value}' (the undrawn options of every typed-number question with the
    # teacher's own wrong answers) were warned as 'options[0] and options[1] are near copies
    # of each other and one is right'.
    result = convert((FIXTURES / "photosynthesis.xml").read_bytes(), "photosynthesis.xml")
    assert result.problems == [] and result.quiz is not None
    assert not [w for w in result.warnings if "near copies" in w]


def test_the_unit_an_option_shows_may_be_typed_after_the_number() -> None:
    # '689 nm' for a question whose options read '680 nm' was 'I can't read that as a number'
    assert numeric.own_word("{value} nm", "689 nm") == "689"
    assert numeric.own_word("{value} nm", "689NM.") == "689"
    assert numeric.own_word("{value} nm", "689") == "689"
    assert numeric.own_word("{value} GB", "1200 MB") == "1200 MB"  # read by numeric itself
    assert numeric.own_word("{value}", "12 furlongs") == "12 furlongs"


def _typed_shape(quiz: Quiz) -> list[tuple[object, ...]]:
    out = []
    for q in quiz.questions:
        if q.computed is not None:
            _env, values = drawn_values(q, 0)
            out.append((q.id, q.text.get("en"), q.computed.absolute, values,
                        [str(c.why_not) for c in q.computed.choices[1:]]))
    return out


@pytest.mark.parametrize("fmt", ["moodle-xml", "gift"])
def test_an_imported_typed_number_exports_as_one_and_imports_back(fmt: str) -> None:
    # export-quiz wrote it as a calculatedmulti with no wildcards (Moodle XML), which the
    # import skipped ('it declares no wildcards') and Moodle refuses, or as one drawn
    # multiple-choice version (GIFT), its tolerance lost.
    first = convert((FIXTURES / "photosynthesis.xml").read_bytes(), "photosynthesis.xml",
                    quiz_id="photosynthesis").quiz
    assert first is not None
    data, notes = export_quiz(first, fmt, "en")
    assert not [n for n in notes if "co2" in n or "red-peak" in n]
    name = "again.xml" if fmt == "moodle-xml" else "again.gift"
    again = convert(data, name, quiz_id="photosynthesis")
    assert again.quiz is not None and not [w for w in again.warnings if "skipped" in w]
    assert _typed_shape(again.quiz) == _typed_shape(first)
    assert [q.computed.absolute for q in again.quiz.questions if q.computed] == [0, 10]
