"""What an import says about a teacher's file reaches an Urdu-speaking uploader in Urdu:
every problem and warning the readers, the conversion and the checks give for the files
teachers send (and the ones they get wrong), and the lists they come in."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from bot.domain.errors import UploadRefused
from bot.domain.results import Actor, InstallOutcome
from bot.features import importing
from bot.features.importing import convert
from bot.present.i18n import Catalogue, strip_isolates
from bot.present.import_texts import URDU_WORDS, said_in, translated
from bot.present.plan import Planner
from bot.present.render import PLAIN
from tests.workbooks import kahoot

FIXTURES = Path(__file__).parents[2] / "fixtures" / "import"
CSV = "question,option1,option2,correct\n"
# Files teachers get wrong, each in a way a reader or check tells
WRONG = {
    "empty.csv": b"",
    "twice.csv": b"question,option1,option1,option2,correct\nQ?,a,b,c,A\n",
    "no-key-column.csv": b"question,option1,option2\nQ?,a,b\n",
    "rows.csv": (CSV.replace("option2", "option2,option11") + "Q?,a,b,c,A\nR?,a,b,,Z\n"
                 "What is 1+2?,2,3,4,C\nS?,a,b,\"open\n").encode(),
    "week3.xlsx": b"PK\x03\x04", "notes.docx": b"PK\x03\x04", "course.mbz": b"x",
    "old.xls": b"\xd0\xcf\x11\xe0", "calc.ods": b"PK\x03\x04",
    "notes.txt": b"hello", "archive.csv": b"PK\x03\x04rest",
    "latin1.csv": "question,option1,option2,correct\nQ\xe9?,a,b,A\n".encode("latin-1"),
    "aiken.txt": b"Q1?\nA. a\nB. b\nANSWER: AB\n\nQ2?\nA. a\nB. b\nANSWER: C\n\nQ3?\n"
                 b"ANSWER: A\n\nQ4?\nA. a\nB. b\nc) lower\nANSWER: A\n\nQ5?\nA. a\nB. b\n",
    "gift.gift": b"::open title Q?{=a ~b}\n\nQ?{=a =b}\n\nQ?{~a ~b}\n\nQ?{x ~a}\n\n"
                  b"Q?{=C=C bond ~C-C}\n\nQ?{}\n\nQ?{=a ~%50%b ~c}\n\n"
                  b"Essay?{}\n\nQ?{#3}\n\nQ?{=a -> b =c -> d}\n\nQ?{=yes =ok}\n",
    "glued.gift": b"Q?{=a ~b}\nR?{=a ~b}\n",
    "typed.gift": b"Q?{#3}\n\nR?{#=1:0 =-1:0}\n\nS?{#~2}\n\nT?{#x}\n\n"
                  b"U?{#=5:1#yes =%50%5.5:0#near ~9#no ~*#any}\n",
    "typed.csv": b"question,correct,tolerance\nHow many?,6,\n",
    "units.xml": b"""<?xml version='1.0'?><quiz><question type="numerical">
<name><text>w</text></name><questiontext><text>W?</text></questiontext>
<answer fraction="100"><text>680</text><tolerance>10</tolerance></answer>
""" + b"".join(b'<answer fraction="0"><text>%d</text></answer>' % k for k in range(1, 12))
    + b"""<units><unit><multiplier>1</multiplier><unit_name>nm</unit_name></unit></units>
</question></quiz>""",
    "root.xml": b"<?xml version='1.0'?><questions/>",
    "broken.xml": b"<?xml version='1.0'?><quiz><question>",
    "dtd.xml": b"<?xml version='1.0'?><!DOCTYPE quiz [<!ENTITY a 'b'>]><quiz/>",
    "kinds.xml": b"""<?xml version='1.0'?><quiz>
<question type="essay"><name><text>e</text></name><questiontext><text>E?</text></questiontext>
</question>
<question type="shortanswer"><name><text>s</text></name><questiontext><text>S?</text>
</questiontext></question>
<question type="multichoice"><name><text>m</text></name><single>false</single>
<questiontext><text>M?</text></questiontext></question>
<question type="multichoice"><name><text>h</text></name>
<questiontext format="html"><text><![CDATA[H? <img src="@@PLUGINFILE@@/x.png">]]></text>
</questiontext><answer fraction="oops"><text>a</text></answer>
<answer fraction="100"><text>b</text></answer><hint><text>think</text></hint></question>
<question type="multichoice"><name><text>p</text></name><questiontext><text>P?</text>
<file name="x.png" encoding="base64">!!!</file></questiontext>
<answer fraction="100"><text>a</text></answer><answer fraction="0"><text>b</text></answer>
</question>
</quiz>""",
}


def _messages() -> list[str]:
    out = []
    kahoot_file = kahoot([[1, "Q?", "a", "b", "c", "", 20, "1,3"], [2, "R?", "a", "b", "", "",
                                                                    20, 5]])
    for name, data in {"kahoot.xlsx": kahoot_file, "cut.xlsx": kahoot([])[:-30]}.items():
        result = convert(data, name)
        out += result.problems + result.warnings
    for path in sorted(FIXTURES.iterdir()):
        if path.suffix != ".png":
            result = convert(path.read_bytes(), path.name)
            out += result.problems + result.warnings
    for name, data in WRONG.items():
        result = convert(data, name)
        out += result.problems + result.warnings
    return out


def test_every_message_an_import_gives_a_teacher_has_its_urdu() -> None:
    # An Urdu-speaking teacher's upload was answered in Urdu around a list of English
    # problems ('correct is 'Z'; give the right option's number ...').
    messages = _messages()
    assert len(messages) > 60
    assert [m for m in messages if not translated("ur", m)] == []
    said = said_in("ur", "w.csv:3: correct is 'Z'; give the right option's number (1-10), "
                         "letter (A-J) or text, of a filled option")
    assert said == ("w.csv:3: correct میں 'Z' ہے؛ کسی بھرے ہوئے آپشن کا نمبر (1-10)، حرف "
                    "(A-J یا الف ب ج د) یا متن لکھیں")
    assert said_in("en", said) == said and said_in("ur", "w.csv: something new") == (
        "w.csv: something new")  # no translation yet: said as it is


def test_an_empty_answer_cell_is_called_empty_in_words() -> None:
    # An empty `correct` cell (CSV) or `ANSWER:` line (Aiken) read "correct is 'empty'", as if
    # the teacher had typed the word: it is named as empty, in Urdu "خالی".
    csv = convert((CSV + "Q?,a,b,\n").encode(), "w.csv").problems
    aiken = convert(b"Q?\nA. a\nB. b\nANSWER:\n", "q.txt").problems
    assert [p for p in csv if "correct is empty; give the right option" in p], csv
    assert [p for p in aiken if "ANSWER is empty, which names no option" in p], aiken
    assert "correct میں خالی ہے" in said_in("ur", next(p for p in csv if "correct is" in p))
    assert "ANSWER میں خالی ہے" in said_in("ur", next(p for p in aiken if "ANSWER is" in p))
    typed = convert((CSV + "Q?,a,b,Z\n").encode(), "w.csv").problems
    assert [p for p in typed if "correct is 'Z';" in p], typed  # typed text stays quoted


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_an_upload_is_answered_in_the_uploaders_language(catalogue: Catalogue,
                                                         lang: str) -> None:
    plan = Planner(catalogue, PLAIN, shared_chats=True)
    problems = tuple(f"w.csv:{n}: correct is 'Z'; give the right option's number (1-10), "
                     "letter (A-J) or text, of a filled option" for n in range(2, 9))
    (card,) = plan.error(lang, UploadRefused("unused", every=problems), pressed=False).send
    text = strip_isolates(card.body)
    warnings = ("w.csv:2: the question has no takeaway (the one line shown before the "
                "explanation)",)
    (done,) = plan.installed(lang, InstallOutcome("w", "Week 3", 1, 1, warnings)).send
    if lang == "en":
        assert text.endswith("• w.csv:2, 3, 4 and 4 more: correct is 'Z'; give the right "
                             "option's number (1-10), letter (A-J) or text, of a filled option")
        assert strip_isolates(done.body).endswith(
            "• w.csv:2: the question has no takeaway (the one line shown before the "
            "explanation)")
    else:
        assert text.startswith("کچھ انسٹال نہیں ہوا") or "correct is" not in text
        assert "• w.csv:2, 3, 4 اور مزید 4: correct میں 'Z' ہے؛" in text
        assert strip_isolates(done.body).endswith(
            "• w.csv:2: سوال کا خلاصہ (takeaway) نہیں (وضاحت سے پہلے دکھائی جانے والی ایک سطر)")


ACTOR = Actor("telegram", "1")


def test_a_quiz_file_of_ours_is_told_what_validate_says_in_urdu() -> None:
    # an admin's YAML upload: each of what `quizbot validate` says of it
    yaml = """id: Week 3!
title: {en: ""}
description: {en: d, fr: x}
difficulty: tricky
languages: [en, en]
colour: red
questions:
  - id: q1
    text: {en: Q?}
    options: [{text: {en: a}}]
    correct: 4
    explanation: {en: E.}
  - id: q1
    text: {en: R?}
    options: [{text: {en: a}}, {text: {en: b}}]
    correct: one
    explanation: {en: E.}
    image: 3
    topics: [nowhere]
    references: [{title: "", url: ftp://x}]
"""
    result = convert(yaml.encode(), "week3.yaml")
    messages = result.problems + result.warnings
    assert len(messages) >= 10
    assert [m for m in messages if not translated("ur", m)] == []
    assert convert(b"id: [", "bad.yaml").problems and all(
        translated("ur", m) for m in convert(b"id: [", "bad.yaml").problems)


def test_why_a_moodle_question_was_skipped_is_said_in_urdu_too() -> None:
    said = said_in("ur", "w.xml:9: skipped a calculated question 'Wave' (the formula "
                         "'sin({a})' is not one our formulas can read); only multiple choice, "
                         "true/false, computed and typed-number questions are imported")
    assert said == ("w.xml:9: حسابی (calculated) سوال 'Wave' چھوڑ دیا گیا (فارمولا 'sin({a})' "
                    "ہمارے فارمولوں کی زبان میں نہیں پڑھا جا سکتا)؛ صرف کثیر انتخابی، "
                    "درست/غلط، حسابی اور عدد لکھ کر جواب والے سوال درآمد ہوتے ہیں")
    said = said_in("ur", "w.gift:3: skipped a multiple-answer question (the credit is shared "
                         "by 2 answers); only multiple choice, true/false, computed and "
                         "typed-number questions are imported")
    assert "(نمبر 2 جوابات میں بٹے ہیں)" in said


SOURCES = [*sorted((Path(__file__).parents[3] / "bot/domain/quiz/formats").glob("*.py")),
           Path(importing.__file__)]


def _said(node: ast.expr) -> list[str]:
    """Each message an f-string (or a sum or choice of them) can make, a placeholder for
    each value it fills in ("{x}" in our table matches any text)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        parts = [_said(v) if isinstance(v, ast.Constant)
                 else _said(v.value) if isinstance(v, ast.FormattedValue)
                 and isinstance(v.value, ast.IfExp) else ["x"] for v in node.values]
        return ["".join(p) for p in itertools.product(*parts)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return [a + b for a in _said(node.left) for b in _said(node.right)]
    if isinstance(node, ast.IfExp):
        return _said(node.body) + _said(node.orelse)
    return ["x"]


def test_every_message_the_formats_can_give_has_its_urdu() -> None:
    # Read from the source, not from files that happen to make them: a rare message (the
    # --id and --lang refusals, an unknown format) was still English to an Urdu uploader.
    said, reasons, kinds = [], [], []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr == "append"
                    and isinstance(func.value, ast.Attribute)
                    and func.value.attr in ("problems", "warnings")):
                said += [(path.name, node.lineno, m) for m in _said(node.args[0])]
            elif isinstance(func, ast.Name) and func.id == "ImportRefused":
                assert isinstance(node.args[0], ast.List), (path.name, node.lineno)
                said += [(path.name, node.lineno, m) for e in node.args[0].elts
                         for m in _said(e)]
            elif isinstance(func, ast.Attribute) and func.attr == "skip":
                kinds += [k.value for k in node.args[1:2] if isinstance(k, ast.Constant)]
                reasons += [(path.name, node.lineno, m) for m in
                            (_said(node.args[2]) if len(node.args) > 2 else [])]
    said += [("importing.py", 0, f"w.xls: {m}") for m in importing._SAVE_AS.values()]
    assert len(said) > 60
    # every one but the file-name-only "{name}: {_SAVE_AS[suffix]}" (its texts are above)
    assert [s for s in said if not translated("ur", s[2]) and s[2] != "x: x"] == []
    # a skipped question's reason and kind are said in Urdu inside it
    skipped = "w.csv:1: skipped a question ({}); only multiple choice, true/false, " \
              "computed and typed-number questions are imported"
    assert [r for r in reasons if r[2] != "x" and r[2] not in URDU_WORDS
            and r[2] in said_in("ur", skipped.format(r[2]))] == []
    assert [k for k in kinds if f"a {k}" not in URDU_WORDS and f"an {k}" not in URDU_WORDS
            ] == []


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_a_new_version_says_what_it_kept_or_that_it_replaced_another_quiz(
        catalogue: Catalogue, lang: str) -> None:
    plan = Planner(catalogue, PLAIN, shared_chats=True)
    updated = InstallOutcome("w", "Week 3", 10, 4, before="Week 3", kept=9, added=1, removed=1)
    replaced = InstallOutcome("w", "Photosynthesis", 10, 5, before="Week 3", added=10,
                              removed=10)
    (up,), (other,) = (plan.installed(lang, o).send for o in (updated, replaced))
    up_text, other_text = strip_isolates(up.body), strip_isolates(other.body)
    if lang == "en":
        assert up_text.startswith("Updated “Week 3” (questions: 10): 9 kept with learners' "
                                  "progress, 1 new, 1 removed. Everyone can start it")
        assert other_text.startswith("Replaced “Week 3” with “Photosynthesis”, sent under the "
                                     "same id (questions: 10): 0 kept")
        assert other_text.split("\n")[0].endswith("to keep both, give the file another name")
    else:
        assert up_text.startswith("”Week 3“ اپ ڈیٹ ہو گیا (سوالات: 10): برقرار: 9 (سیکھنے "
                                  "والوں کی پیش رفت سمیت)، نئے: 1، ہٹائے گئے: 1۔")
        assert other_text.startswith("”Week 3“ کی جگہ ”Photosynthesis“ آ گیا")


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_an_upload_says_how_a_group_makes_it_its_quiz(catalogue: Catalogue, lang: str) -> None:
    """A teacher who uploads a quiz for their class was told only '/quiz ID' (for one
    learner); how a group or server makes it the quiz of its rounds was in /help alone. The
    command is the platform's own: /settings quiz ID and /round in a Telegram group, the
    /settings quiz: option and /round start in a Discord server."""
    done = InstallOutcome("photo-101", "Photosynthesis", 10, 1, ("one warning",))
    telegram = Planner(catalogue, PLAIN, shared_chats=True).installed(lang, done).send[0].body
    discord = Planner(catalogue, PLAIN, shared_chats=False).installed(lang, done).send[0].body
    assert "/settings quiz photo-101" in strip_isolates(telegram)
    assert "/settings quiz: photo-101" in strip_isolates(discord)
    assert "/round start" in strip_isolates(discord) and "/round start" not in telegram
    for body in (telegram, discord):  # the next step before the warnings
        assert body.index("/settings") < body.index("one warning")
