"""The Urdu glossary: one term per concept, and `quizbot validate` warns where a quiz or a
UI string renders a term otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli.main import main
from bot.domain.errors import ContentError
from bot.domain.quiz import default_content_dir, iter_quiz_files, load_file
from bot.domain.quiz.glossary import (
    glossary_warnings,
    load_glossary,
    strings_warnings,
    term_table,
)
from bot.present.i18n import LOCALES_DIR

SHIPPED = default_content_dir() / "glossary.yaml"

GLOSSARY = """\
language: ur
terms:
  - en: gather
    ur: اکٹھا کرنا
    note: جمع is a sum.
    wrong: ['ویٹس(?:\\s+\\S+){0,3}?\\s+جمع']
  - en: bubble
    ur: ببل
    wrong: ['\\bbubbles?\\b']
"""

QUIZ = """\
id: g
title: {en: G, ur: جی}
description: {en: D., ur: ڈی۔}
difficulty: hard
languages: [en, ur]
questions:
  - id: one
    text:
      en: What does FSDP gather, and what is a bubble?
      ur: FSDP کیا اکٹھا کرتا ہے، اور ببل (bubble) کیا ہے؟
    options:
      - text: {en: "Weights", ur: "ویٹس"}
      - text:
          en: "Gradients"
          ur: "گریڈینٹس"
        why_not:
          en: Gradients are reduce-scattered; the weights are gathered.
          ur: گریڈینٹس کا reduce-scatter ہوتا ہے؛ ویٹس پہلے جمع کیے جاتے ہیں۔
    correct: 0
    explanation:
      en: FSDP gathers each layer's weights; the bubble is idle time.
      ur: FSDP ہر لیئر کے ویٹس اکٹھے کرتا ہے؛ bubble فارغ وقت ہے۔
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_glossary_covers_the_terms_the_quizzes_test():
    table = term_table(load_glossary(SHIPPED))
    for en in ["gather", "all-gather", "reduce", "reduce-scatter", "all-reduce", "sum",
               "accumulate", "linear", "trade-off", "adjacent", "non-adjacent", "peak",
               "boundary", "cap", "sequence parallelism", "context parallelism",
               "tensor parallelism", "pipeline parallelism", "data parallelism",
               "expert parallelism", "compute", "bandwidth", "latency", "micro-batch",
               "bubble", "stage", "activation", "recomputation", "shard", "replica",
               "throughput", "memory", "node", "schedule", "overlap", "GEMM", "NVLink"]:
        assert en in table, en
    # One Urdu word per concept: the words the review found overloaded now differ.
    assert len({table["gather"], table["sum"], table["accumulate"]}) == 3
    assert len({table["peak"], table["boundary"], table["cap"]}) == 3


def test_wrong_rendering_warns_at_its_line_and_a_gloss_in_brackets_does_not(tmp_path: Path):
    glossary = load_glossary(write(tmp_path, "glossary.yaml", GLOSSARY))
    quiz = load_file(write(tmp_path, "g.yaml", QUIZ))
    path = str(tmp_path / "g.yaml")
    assert glossary_warnings(glossary, quiz) == [
        f"{path}:18: questions[0].options[1].why_not (ur) renders 'gather' as 'ویٹس پہلے جمع'; "
        "the glossary's term is 'اکٹھا کرنا'",
        f"{path}:22: questions[0].explanation (ur) renders 'bubble' as 'bubble'; "
        "the glossary's term is 'ببل'",
    ]  # "ببل (bubble)" in the question is a gloss, not a rendering


def test_glossary_file_is_not_loaded_as_a_quiz(tmp_path: Path):
    write(tmp_path, "glossary.yaml", GLOSSARY)
    write(tmp_path, "g.yaml", QUIZ)
    assert [p.name for p in iter_quiz_files([tmp_path])] == ["g.yaml"]


def test_validate_prints_glossary_warnings_and_exits_0(capsys, tmp_path: Path):
    write(tmp_path, "glossary.yaml", GLOSSARY)
    write(tmp_path, "g.yaml", QUIZ)
    assert main(["validate", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert f"warning: {tmp_path / 'g.yaml'}:18: questions[0].options[1].why_not" in err
    assert "renders 'bubble' as 'bubble'" in err


@pytest.mark.parametrize(("body", "message"), [
    ("language: ur\nterms:\n  - en: gather\n    ur: اکٹھا\n    wrong: ['(']\n",
     "glossary.yaml:3: terms[0].wrong '(' is not a regular expression"),
    ("language: ur\nterms:\n  - en: gather\n    ur: اکٹھا\n    colour: red\n",
     "glossary.yaml:3: terms[0] has unknown keys ['colour']"),
    ("language: ur\nterms:\n  - {en: gather, ur: ا}\n  - {en: Gather, ur: ب}\n",
     "glossary.yaml:4: 'Gather' is listed twice"),
    ("terms: []\n", "glossary.yaml:1: needs `language: <code>` and a `terms:` list"),
])
def test_bad_glossary_is_one_clear_error_and_validate_fails(capsys, tmp_path: Path, body,
                                                            message):
    write(tmp_path, "glossary.yaml", body)
    with pytest.raises(ContentError) as caught:
        load_glossary(tmp_path / "glossary.yaml")
    assert any(message in p for p in caught.value.problems), caught.value.problems
    write(tmp_path, "g.yaml", QUIZ)
    assert main(["validate", str(tmp_path)]) == 1
    assert message in capsys.readouterr().err


def test_ui_strings_follow_the_glossary(tmp_path: Path):
    glossary = load_glossary(write(tmp_path, "glossary.yaml", GLOSSARY))
    locale = write(tmp_path, "ur.yaml", "a: ٹھیک\nb: |-\n  پہلی سطر\n  یہ bubble ہے\n")
    assert strings_warnings(glossary, locale) == [
        f"{locale}:4: b (ur) renders 'bubble' as 'bubble'; the glossary's term is 'ببل'"]
    po = write(tmp_path, "ur.po", 'msgctxt "k"\nmsgid "a"\nmsgid_plural "b"\n'
               'msgstr[0] "ایک ببل"\nmsgstr[1] "{count} bubbles"\n')
    assert strings_warnings(glossary, po) == [
        f"{po}:5: k (ur) renders 'bubble' as 'bubbles'; the glossary's term is 'ببل'"]
    shipped = load_glossary(SHIPPED)
    assert strings_warnings(shipped, LOCALES_DIR / "ur.yaml") == []
    assert strings_warnings(shipped, LOCALES_DIR / "ur.po") == []


def test_shipped_quizzes_follow_the_glossary_outside_the_seed_quiz():
    glossary = load_glossary(SHIPPED)
    for path in iter_quiz_files([default_content_dir()]):
        quiz = load_file(path)
        if quiz.id != "parallelism":  # the seed's questions and options stay as given
            assert glossary_warnings(glossary, quiz) == [], path
