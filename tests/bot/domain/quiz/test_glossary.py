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


def test_peak_and_boundary_are_said_as_engineers_say_them(tmp_path: Path):
    """The review: عروج (zenith) for peak and سرحد (a national frontier) for a stage boundary
    are calques no engineer writes; the glossary asks for پیک and باؤنڈری and names them."""
    table = term_table(load_glossary(SHIPPED))
    assert (table["peak"], table["boundary"]) == ("پیک", "باؤنڈری")

    def said(ur: str) -> list[str]:
        quiz = QUIZ.replace("ur: FSDP کیا اکٹھا کرتا ہے، اور ببل (bubble) کیا ہے؟", f"ur: {ur}")
        quiz = quiz.replace("en: What does FSDP gather, and what is a bubble?",
                            "en: What is the peak memory at a stage boundary?")
        loaded = load_file(write(tmp_path, "g.yaml", quiz))
        return [w.split(" renders ", 1)[1] for w in
                glossary_warnings(load_glossary(SHIPPED), loaded) if "questions[0].text" in w]
    assert said("اسٹیج کی باؤنڈری پر پیک میموری کتنی ہے؟") == []
    assert said("اسٹیج کی سرحد پر عروج پر میموری کتنی ہے؟") == [
        "'peak' as 'عروج'; the glossary's term is 'پیک'",
        "'boundary' as 'سرحد'; the glossary's term is 'باؤنڈری'"]


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


def test_shipped_quizzes_follow_the_glossary():
    glossary = load_glossary(SHIPPED)
    for path in iter_quiz_files([default_content_dir()]):
        quiz = load_file(path)
        assert glossary_warnings(glossary, quiz) == [], path


ALIGN_GLOSSARY = """\
language: ur
terms:
  - en: gather
    ur: اکٹھا کرنا
  - en: all-gather
    ur: all-gather
  - en: stage
    ur: اسٹیج
  - en: sequence parallelism
    ur: سیکوئنس متوازیت
  - en: sequence
    ur: سیکوئنس
    match: '(?<![-\\w])sequences?(?![-\\w])(?! length)'
  - en: state
    ur: اسٹیٹ
    wrong: ['حالتوں']
  - en: value
    ur: قدر
    match: ''
"""

ALIGN_QUIZ = """\
id: a
title: {en: A, ur: اے}
description: {en: D., ur: ڈی۔}
difficulty: hard
languages: [en, ur]
questions:
  - id: one
    text:
      en: Each stage all-gathers the weights; what does a multi-stage, staged run send?
      ur: ہر اسٹیج ویٹس کا all-gather کرتا ہے؛ کئی حصوں والا رن کیا بھیجتا ہے؟
    options:
      - text: {en: "Its values", ur: "اپنی قدریں"}
      - text:
          en: "The optimizer states of every stage"
          ur: "ہر حصے کی آپٹیمائزر حالتوں"
        why_not:
          en: Sequence parallelism gathers them over the sequence length.
          ur: سیکوئنس متوازیت انہیں sequence length کے ساتھ اکٹھے کرتی ہے۔
    correct: 0
    explanation:
      en: The sequence is split; each GPU gathers the rest.
      ur: ہر GPU باقی حصہ لیتا ہے۔
    takeaway:
      en: A stage sends its output.
      ur: ہر حصہ اپنا آؤٹ پٹ بھیجتا ہے۔
"""


def test_alignment_flags_a_term_the_urdu_leaves_out_once_at_its_line(tmp_path: Path):
    glossary = load_glossary(write(tmp_path, "glossary.yaml", ALIGN_GLOSSARY))
    quiz = load_file(write(tmp_path, "a.yaml", ALIGN_QUIZ))
    path = str(tmp_path / "a.yaml")
    assert glossary_warnings(glossary, quiz) == [
        # "states" is misrendered (a `wrong` pattern): reported once, not also as missing
        f"{path}:15: questions[0].options[1].text (ur) renders 'state' as 'حالتوں'; "
        "the glossary's term is 'اسٹیٹ'",
        f"{path}:15: questions[0].options[1].text (ur) does not render 'stage' "
        "(English: 'stage') with the glossary's 'اسٹیج'",
        f"{path}:22: questions[0].explanation (ur) does not render 'sequence' "
        "(English: 'sequence') with the glossary's 'سیکوئنس'",
        f"{path}:22: questions[0].explanation (ur) does not render 'gather' "
        "(English: 'gathers') with the glossary's 'اکٹھا کرنا'",
        f"{path}:25: questions[0].takeaway (ur) does not render 'stage' "
        "(English: 'stage') with the glossary's 'اسٹیج'",
    ]
    # Not flagged: "all-gathers" and "multi-stage"/"staged" (not the whole word), the
    # Latin all-gather kept in Latin, "sequence length" (excluded by its `match`),
    # "Sequence parallelism" (the longer term answers for its "sequence"), a verb's
    # inflection (اکٹھے for اکٹھا کرنا), and "values" (`match: ''`: only `wrong` applies).


def test_ui_strings_align_with_the_english_catalogue(tmp_path: Path):
    glossary = load_glossary(write(tmp_path, "glossary.yaml", ALIGN_GLOSSARY))
    write(tmp_path, "en.yaml", "a: Each stage waits\nb: \"State: {state}\"\n")
    locale = write(tmp_path, "ur.yaml", "a: ہر حصہ انتظار کرتا ہے\nb: \"حالت: {state}\"\n")
    assert strings_warnings(glossary, locale) == [
        f"{locale}:1: a (ur) does not render 'stage' (English: 'stage') with the glossary's "
        "'اسٹیج'",
        f"{locale}:2: b (ur) does not render 'state' (English: 'State') with the glossary's "
        "'اسٹیٹ'",
    ]  # the {state} placeholder is a name, neither a rendering nor a use
    po = write(tmp_path, "ur.po", 'msgctxt "k"\nmsgid "{n} stage"\nmsgid_plural "{n} stages"\n'
               'msgstr[0] "{n} اسٹیج"\nmsgstr[1] "{n} حصے"\n')
    assert strings_warnings(glossary, po) == [
        f"{po}:5: k (ur) does not render 'stage' (English: 'stages') with the glossary's "
        "'اسٹیج'"]


@pytest.mark.parametrize(("english", "urdu", "flagged"), [
    ("How does pipeline parallelism reduce the bubble?",
     "پائپ لائن متوازیت ببل کو کیسے کم کرتی ہے؟", []),  # reduce = make smaller
    ("Both are reduced across all stages.", "دونوں تمام اسٹیجز میں جمع ہوتے ہیں۔", ["reduce"]),
    ("Both are reduced across all stages.", "دونوں تمام اسٹیجز میں reduce ہوتے ہیں۔", []),
    ("From first steps to expert, in step with the GPU.",
     "ابتدا سے ماہرانہ سطح تک، GPU کے ساتھ قدم ملا کر۔", []),
    ("Per step it sends 2Ψ.", "فی اسٹیپ یہ 2Ψ بھیجتا ہے۔", []),
    ("Per step it sends 2Ψ.", "فی مرحلہ یہ 2Ψ بھیجتا ہے۔", ["step"]),
    ("Liu et al. state the condition; ZeRO stage 2 shards states.",
     "Liu et al. یہ شرط لکھتے ہیں؛ ZeRO stage 2 اسٹیٹس بانٹتا ہے۔", []),
])
def test_shipped_alignment_tells_the_term_from_the_same_word(english: str, urdu: str,
                                                            flagged: list[str]):
    glossary = load_glossary(SHIPPED)
    assert [term.en for _, term in glossary.missing(english, urdu)] == flagged


def test_shipped_glossary_has_one_urdu_term_for_each_term_the_review_found_drifting():
    glossary = load_glossary(SHIPPED)
    table = term_table(glossary)
    for en in ["state", "attention", "head", "block", "hidden size", "multiple of", "factor",
               "power of two", "N-way", "update", "constant", "value", "in flight", "flag",
               "blocking", "default", "missed question", "accuracy"]:
        assert en in table, en
    # the calques the review found are each some term's `wrong` rendering
    for calque in ["m، p کا ضرب ہونا چاہیے", "DualPipe کا ضرب PP−1", "شکل ثابت رہے",
                   "s·b·h اقدار", "PP دو کی کوئی طاقت ہو", "INF/NaN کے جھنڈے",
                   "micro-batches زیرِ گردش", "آپٹیمائزر کی حالت", "8 طرفہ",
                   "اپ ڈیٹس درست رہتے ہیں", "غلط سوالات", "درستگی", "due (پہلے سے طے)"]:
        assert list(glossary.misrenderings(calque)), calque
    for right in ["m، p کا مضرب ہے", "DualPipe کا ضارب", "شکل مستقل رہے", "s·b·h قدریں",
                  "PP، 2 کی قوت ہو", "میٹرکس ضرب", "ضرب دیتا ہے", "ویٹس اپ ڈیٹ ہوتے ہیں",
                  "اپ ڈیٹس درست رہتی ہیں", "جاری micro-batches", "Ring Attention"]:
        assert not list(glossary.misrenderings(right)), right


def test_an_operator_between_two_quantities_is_a_sign_not_a_bare_word():
    """'FLOP/s تقسیم bytes/s', 'c_z ضرب (log …)²': a bare تقسیم or ضرب between two operands
    reads as telegraphese (d01, d10, d11, e18 said so); the sign or a clause is what a reader
    expects, and ضرب as the operation in a clause stays fine."""
    glossary = load_glossary(SHIPPED)
    for bare in ["FLOP/s تقسیم bytes/s", "L/p لیئرز ضرب p micro-batches",
                 "c_z ضرب (log Σ_j exp x_j)²", "یعنی ببل تقسیم مثالی حساب کا وقت"]:
        assert list(glossary.misrenderings(bare)), bare
    for fine in ["FLOP/s ÷ bytes/s", "L/p لیئرز × p micro-batches", "Q·Kᵀ کا حاصلِ ضرب گنا گیا",
                 "V سے ضرب دینے میں", "میٹرکس ضرب کا حساب GPUs میں تقسیم کرتی ہے",
                 "زیادہ micro-batches میں تقسیم (چھوٹے", "ببل کو مثالی وقت سے تقسیم کیا گیا"]:
        assert not list(glossary.misrenderings(fine)), fine


def test_model_states_are_feminine_as_the_quizzes_say_them():
    """n11 asked how much memory 'ماڈل اسٹیٹس ... لیتے ہیں' while every other quiz says
    اسٹیٹس لیتی ہیں; a postposition after اسٹیٹس hands the verb to another subject."""
    glossary = load_glossary(SHIPPED)
    assert list(glossary.misrenderings("ماڈل اسٹیٹس فی GPU کتنی میموری لیتے ہیں"))
    for fine in ["ماڈل اسٹیٹس فی GPU کتنی میموری لیتی ہیں", "GPUs ماڈل اسٹیٹس سے بھر جاتے ہیں",
                 "ویٹس، گریڈینٹس اور آپٹیمائزر اسٹیٹ کتنی میموری لیتے ہیں"]:
        assert not list(glossary.misrenderings(fine)), fine


def test_an_hsdp_shard_group_is_the_group_that_shares_out_the_model():
    """l21 and long-context's description called HSDP's shard group ٹکڑا گروپ, a group of
    pieces; the glossary says بانٹنے والا گروپ."""
    glossary = load_glossary(SHIPPED)
    assert list(glossary.misrenderings("سب سے چھوٹا ٹکڑا گروپ کون سا ہے"))
    assert not list(glossary.misrenderings("HSDP کا چھوٹا بانٹنے والا گروپ"))
    assert not list(glossary.misrenderings("ہر GPU اپنا ٹکڑا رکھتا ہے"))
