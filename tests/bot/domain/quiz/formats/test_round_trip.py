"""Round trips: GIFT -> quizbot -> GIFT and Moodle XML -> quizbot -> Moodle XML keep each
question's text, options, feedback and key (and, in Moodle XML, pictures and computed
questions); `export-quiz` on the shipped quizzes gives files that import back."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.domain.quiz import Quiz, load_file, load_quizzes
from bot.domain.quiz.formats import export_quiz, read_draft
from bot.domain.quiz.formats.draft import Draft
from bot.features.importing import convert

FIXTURES = Path(__file__).parents[4] / "fixtures" / "import"
CONTENT = Path(__file__).parents[5] / "content"


def _quiz(data: bytes, name: str, folder: Path | None = None) -> Quiz:
    """The quiz `data` imports to; written with its pictures into `folder` when given (as
    `quizbot import --output` does), so an export finds them."""
    result = convert(data, name, quiz_id="trip")
    assert result.problems == [] and result.quiz is not None, result.problems
    if folder is None:
        return result.quiz
    for rel, picture in result.images.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(picture)
    (folder / "trip.yaml").write_text(result.yaml, encoding="utf-8")
    return load_file(folder / "trip.yaml")


def _shape(quiz: Quiz) -> list[tuple[object, ...]]:
    return [(q.id, q.text.get("en"), [o.text.get("en") for o in q.options],
             [o.why_not.get("en") if o.why_not else "" for o in q.options], q.correct,
             q.explanation.get("en"), q.topics) for q in quiz.questions
            if q.computed is None]


def _keys(draft: Draft) -> list[tuple[object, ...]]:
    """What the source says, per question: text, options, the key, wrong options' feedback."""
    from bot.domain.quiz.formats.draft import key_index
    return [(q.text, [o.text for o in q.options], key_index(q, draft),
             [o.feedback for o in q.options if o.fraction != 100], q.general)
            for q in draft.questions if q.computed is None]


@pytest.mark.parametrize(("name", "fmt"), [("spec.gift", "gift"), ("moodle.xml", "moodle-xml")])
def test_round_trip_keeps_text_options_feedback_and_key(name: str, fmt: str) -> None:
    original = (FIXTURES / name).read_bytes()
    first = _quiz(original, name)
    exported, _ = export_quiz(first, fmt, "en")
    again = _quiz(exported, f"again.{name.rsplit('.', 1)[1]}")
    # a computed question (a typed-number one included) goes to GIFT as one drawn version
    typed = {q.id for q in first.questions if q.computed is not None}
    assert [s for s in _shape(again) if s[0] not in typed] == _shape(first)
    # ... and against the source itself (the right answer's own feedback is folded into
    # the explanation on import, so general feedback is compared where there was none)
    source = _keys(read_draft(original, name, fmt))
    back = [k for k in _keys(read_draft(exported, "x", fmt))
            if k[0] not in {q.text.get("en") for q in first.questions if q.computed}]
    assert [s[:4] for s in back] == [s[:4] for s in source]
    for (*_, general_in), (*_, general_out) in zip(source, back, strict=True):
        assert general_in in general_out


def test_moodle_xml_round_trip_keeps_the_picture_and_the_computed_question(
        tmp_path: Path) -> None:
    first = _quiz((FIXTURES / "moodle.xml").read_bytes(), "moodle.xml", tmp_path)
    exported, notes = export_quiz(first, "moodle-xml", "en")
    assert notes == []
    assert b'<question type="calculatedmulti">' in exported
    result = convert(exported, "again.xml", quiz_id="trip")
    assert result.images == {"img/trip-gpipe-bubble.png": (FIXTURES / "tiny.png").read_bytes()}
    assert result.quiz is not None
    before, after = first.by_id["bubble-with-numbers"], result.quiz.by_id["bubble-with-numbers"]
    assert before.computed is not None and after.computed is not None
    rng = random.Random(1)
    for _ in range(20):
        env = {p.name: p.draw(rng) for p in before.computed.params}
        assert [c.value(env) for c in after.computed.choices] == pytest.approx(
            [c.value(env) for c in before.computed.choices])


@pytest.mark.parametrize("fmt", ["gift", "moodle-xml", "csv"])
def test_every_shipped_quiz_exports_and_imports_back(fmt: str) -> None:
    suffix = {"gift": "gift", "moodle-xml": "xml", "csv": "csv"}[fmt]
    quizzes = load_quizzes([CONTENT])
    assert len(quizzes) >= 6
    for quiz in quizzes.values():
        data, notes = export_quiz(quiz, fmt, "en")
        back = convert(data, f"{quiz.id}.{suffix}", quiz_id=quiz.id)
        assert back.problems == [], (quiz.id, back.problems[:3])
        assert back.quiz is not None and len(back.quiz.questions) == len(quiz.questions)
        computed = [q.id for q in quiz.questions if q.computed is not None]
        if fmt != "moodle-xml":  # GIFT and CSV have no computed questions: drawn, noted
            assert [n.split(":")[0] for n in notes if "drawn version" in n] == computed
        assert [q.id for q in back.quiz.questions] == [q.id for q in quiz.questions]
        assert [(q.text.get("en"), q.correct) for q in back.quiz.questions
                if q.id not in computed] == [
            (q.text.get("en"), q.correct) for q in quiz.questions if q.id not in computed]


def test_a_computed_question_with_a_condition_exports_drawn_with_a_note(
        tmp_path: Path) -> None:
    yaml = (CONTENT / "parallelism-numbers.yaml").read_text().replace(
        "answer: (p-1)/(m+p-1)", "answer: (p-1)/(m+p-1) if m > 0 else 0", 1)
    (tmp_path / "numbers.yaml").write_text(yaml)
    (tmp_path / "topics.yaml").write_text((CONTENT / "topics.yaml").read_text())
    quiz = load_file(tmp_path / "numbers.yaml")
    data, notes = export_quiz(quiz, "moodle-xml", "en")
    note = next(n for n in notes if n.startswith("n01-gpipe-bubble: "))
    assert note.startswith("n01-gpipe-bubble: exported as one drawn version (p=")
    assert "condition or comparison" in note
    assert all("condition or comparison" in n for n in notes)
    assert data.count(b'type="calculatedmulti"') == len(quiz.questions) - len(notes)
    assert data.count(b'type="multichoice"') == len(notes)


def test_csv_cells_that_look_like_formulas_are_defused_and_read_back() -> None:
    src = (b'question,option1,option2,correct,explanation\n'
           b'"=HYPERLINK(""http://x"")",-1,+2,B,@once\n')
    quiz = _quiz(src, "f.csv")
    data, _ = export_quiz(quiz, "csv", "en")
    assert b"'=HYPERLINK" in data and b"'-1" in data and b"'@once" in data
    again = _quiz(data, "g.csv")
    assert _shape(again) == _shape(quiz)
