"""Terminal wrapping: words and URLs stay whole, options hang under their text."""

from __future__ import annotations

import re

import pytest

from adapters.terminal.play import TTY
from adapters.terminal.wrap import RLM, bands, visual, wrap
from bot.domain.pipeline import ScheduleSpec, timeline
from bot.domain.quiz import Quiz
from bot.present.i18n import Catalogue, strip_isolates
from bot.present.render import content_text, letter_in

URL = "https://arxiv.org/abs/1811.06965?a-very-long-query-string=that-must-stay-whole"


def test_breaks_only_at_spaces_and_keeps_urls_whole():
    text = f"• GPipe: efficient training of giant neural networks {URL} and more words"
    out = wrap(text, 30)
    assert all(len(line) <= 30 or " " not in line.strip() for line in out.splitlines())
    assert URL in out.splitlines()[2].strip() or URL in out.split()
    assert " ".join(out.split()) == " ".join(text.split())


def test_option_continuations_hang_under_the_text():
    out = wrap("B) the activations of every micro-batch are kept until its backward pass", 32)
    first, *rest = out.splitlines()
    assert first.startswith("B) ") and rest and all(r.startswith("   ") and r[3] != " "
                                                     for r in rest)


def test_urdu_wraps_at_spaces_and_short_lines_are_unchanged():
    urdu = "پائپ لائن متوازیت میں ہر مائیکرو بیچ کی ایکٹیویشنز بیک ورڈ پاس تک محفوظ رہتی ہیں"
    out = wrap(urdu, 24)
    assert len(out.splitlines()) > 1 and " ".join(out.replace(RLM, "").split()) == urdu
    assert all(row.startswith(RLM) for row in out.splitlines()[1:])  # each row its own mark
    assert wrap("short\n\n  indented", 24) == "short\n\n  indented"


def test_an_isolated_run_is_never_split_across_lines():
    lri, rli, fsi, pdi = "\u2066", "\u2067", "\u2068", "\u2069"
    runs = [f"{lri}25 GB/s{pdi}", f"{fsi}skip connections{pdi}",
            f"{lri}(p−1)/(m+p−1) = 3/19 ≈ 16%{pdi}", f"{rli}اندر {lri}GPU 1{pdi} والا{pdi}"]
    urdu = (f"ہر GPU کو {runs[0]} ملتے ہیں، اسٹیج کی باؤنڈری پھلانگنے والے {runs[1]} اپنے "
            f"ٹینسرز شامل کرتے ہیں، ببل {runs[2]} ہے اور {runs[3]} حصہ")

    def bare(text: str) -> str:
        return re.sub("[\u2066-\u2069]", "", text)

    for width in (12, 20, 30, 40):
        out = wrap(urdu, width).replace(RLM, "")  # each continuation row starts with one
        assert bare(" ".join(out.split())) == bare(" ".join(urdu.split()))
        for line in out.splitlines():
            assert line.count(pdi) == sum(line.count(c) for c in (lri, rli, fsi)), (width, line)
        for run in runs:
            if len(run) < width:
                assert run in out, (width, run)  # whole, on one line, spaces kept
        # a run wider than a row is cut at its spaces only (its words stay in order, by the
        # first assert), and no row is wider than the screen unless it holds one word alone
        # or a nested run (left whole)
        assert all(len(line) <= width or len(bare(line).split()) == 1 or runs[3] in line
                   for line in out.splitlines()), (width, out)
    # a run wider than the screen: the terminal would cut it anywhere (mid-word), so it is
    # cut at its inner spaces instead, each row's piece isolated again and alone on its row
    long_run = f"{lri}micro-batch size × sequence length × hidden size{pdi}"
    rows = wrap(f"یہ {long_run} ہے", 20).splitlines()
    assert rows == ["یہ", f"{RLM}{lri}micro-batch size{pdi}", f"{RLM}{lri}× sequence length{pdi}",
                    f"{RLM}{lri}× hidden size{pdi} ہے"], rows
    assert all(len(row) <= 20 for row in rows)


@pytest.mark.parametrize("width", [40, 60, 80])
@pytest.mark.parametrize("spec", [ScheduleSpec("1f1b", 8, 22),
                                  ScheduleSpec("interleaved", 4, 8, 2)], ids=str)
def test_a_computed_timeline_fits_the_terminal_in_labelled_bands(width: int,
                                                                  spec: ScheduleSpec):
    figure = timeline(spec)
    shown = bands(f"{figure}\nF forward · B backward", width)
    lines = shown.splitlines()
    assert max(len(line) for line in lines if line.startswith("GPU")) <= width
    rows = [line for line in lines if line.startswith("GPU")]
    assert len(rows) % spec.p == 0 and len(rows) > spec.p  # every band has every GPU
    cells = [c for line in figure.splitlines() for c in line.split()[1:]]
    assert sorted(c for line in rows for c in line.split()[1:]) == sorted(cells)  # none lost
    assert lines[-1] == "F forward · B backward"
    assert bands(figure, None) == figure  # a pipe has no width: left alone


@pytest.mark.parametrize("width", [40, 60, 80])
@pytest.mark.parametrize("lang", ["en", "ur"])
def test_the_answer_prompt_and_texts_wrap_at_words_in_both_languages(width: int, lang: str):
    cat = Catalogue.load()
    texts = [cat.t(lang, "terminal.prompt", letters="A/B/C/D"),
             cat.t(lang, "terminal.saved", command="quizbot play --quiz parallelism-deep"),
             cat.t(lang, "error.unknown_topic", topic="nope")]
    for text in texts:
        rows = wrap(text, width).splitlines()
        assert all(len(row) <= width for row in rows), rows
        words = strip_isolates(text).split()
        assert strip_isolates(" ".join(r.replace(RLM, "") for r in rows)).split() == words


def test_visual_lays_urdu_rows_out_for_terminals_without_bidi():
    lri, pdi = "\u2066", "\u2069"
    row = f"ہر GPU کو {lri}25 GB/s{pdi} ملتے ہیں"
    shown = visual(wrap(row, 40), 40)
    assert "25 GB/s" in shown and lri not in shown and pdi not in shown
    # display order (the first word last, its letters left to right), right-aligned
    assert shown.endswith("ہر"[::-1]) and len(shown) == 40
    assert visual("plain English", 40) == "plain English"


def _options(quiz: Quiz, lang: str) -> tuple[str, str]:
    """A question's options as a terminal shows them, letters in bold: asked, and answered
    (each option behind its mark)."""
    q = quiz.questions[1]
    texts = [content_text(lang, o.text.get(lang)) for o in q.options]
    asked = "\n".join(f"{TTY.bold(letter_in(lang, i))}) {t}" for i, t in enumerate(texts))
    marks = ["✅", "❌", "▫️", "▫️"]
    answered = "\n".join(f"{marks[i]} {TTY.bold(letter_in(lang, i))}) {t}"
                         for i, t in enumerate(texts))
    return asked, answered


@pytest.mark.parametrize("width", [30, 40])
def test_bold_letters_and_answer_marks_keep_options_hanging_in_a_real_terminal(
        width: int, quizzes: dict[str, Quiz]):
    """On a tty the letters are bold (escape codes) and an answered option has its mark:
    continuations still line up under the option's text, and no row passes the screen."""
    sgr = re.compile("\033\\[[0-9;]*m")
    # the text starts after "A) " asked, after "✅ A) " answered
    for block, text_at in zip(_options(quizzes["parallelism"], "en"), (3, 6), strict=True):
        rows = wrap(block, width).splitlines()
        starts = [r for r in rows if re.match(r"(✅|❌|▫️)? ?\033\[1m[A-D]", r)]
        assert len(starts) == 4 and len(rows) > 4, rows
        for row in rows:
            shown = sgr.sub("", row)
            assert len(shown) + shown.count("✅") + shown.count("❌") <= width, row
            if row not in starts:
                assert shown[:text_at] == " " * text_at and shown[text_at] != " ", row


def test_visual_urdu_rows_print_no_pieces_of_escape_codes(quizzes: dict[str, Quiz]):
    """--bidi visual on a tty: reordering a row would scatter its bold's escape codes into
    text ('1mA[0m[' on screen); the row is laid out without them."""
    for block in _options(quizzes["parallelism"], "ur"):
        shown = visual(wrap(block, 40), 40)
        assert "\033" not in shown and "[0m" not in shown and "1m" not in shown, shown
        assert all(ch in shown for ch in "ABCD")


def test_visual_mirrors_brackets_that_run_right_to_left():
    """A terminal without bidi shows what --bidi visual prints: a bracket inside Urdu must
    be mirrored there (python-bidi reorders but leaves mirroring to the renderer), else
    '(انٹرا لیئر)' reads ')...(' and an option 'A)' reads ')A'."""
    words = "انٹرا لیئر"
    shown = visual(f"ٹینسر ({words}) متوازیت", 40)
    assert f"({words[::-1]})" in shown and f"){words[::-1]}(" not in shown
    assert visual("\u2066A\u2069) یہ ایک لیئر", 40).endswith("(A")
    assert visual("\u2066(A/B/C/D)\u2069 میں سے ایک", 40).endswith("(A/B/C/D)")  # LTR inside


def test_visual_order_is_python_bidis_for_every_urdu_row(quizzes: dict[str, Quiz]):
    """The reordering done here (rule L2) gives python-bidi's order on every row of the
    shipped Urdu content, brackets and marks aside."""
    import unicodedata

    from bidi import get_display

    def same(text: str) -> str:
        text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Mn", "Me"))
        return re.sub("[\u2066-\u2069\u200f]", "", text).translate(
            str.maketrans("()[]{}«»", "||||||||"))

    rows = {row for quiz in quizzes.values() for q in quiz.questions
            for text in (q.text.get("ur"), q.explanation.get("ur"),
                         *(o.text.get("ur") for o in q.options))
            for row in wrap(content_text("ur", text), 40).splitlines()
            if re.search("[\u0600-\u06ff]", row) or row.startswith(RLM)}
    assert len(rows) > 1000
    for row in rows:
        assert same(visual(row)) == same(get_display(row.rstrip(), base_dir="R")), row


def test_visual_keeps_marks_after_their_letter():
    """An answered option's '▫️' (a variation selector after its square) and an Urdu
    diacritic stay behind their base character when the row is reversed."""
    assert "▫\ufe0f" in visual("▫\ufe0f \u2066B\u2069) ٹریننگ کے لیے", 40)
    assert "\u0650\u0631" not in visual("بطورِ ڈیفالٹ", 40) and "\u0631\u0650" in visual(
        "بطورِ ڈیفالٹ", 40)


def test_a_first_row_without_urdu_letters_is_still_right_to_left():
    """An Urdu line that wraps right after its first run of Latin (a quiz id, a formula):
    that row starts with a right-to-left mark too, so it is not laid out left to right, and
    --bidi visual right-aligns it with the rest."""
    lri, pdi = "\u2066", "\u2069"
    line = f"{lri}expert-parallelism{pdi}  {lri}Mixture of experts{pdi} اور ایکسپرٹ متوازیت"
    rows = wrap(line, 24).splitlines()
    assert len(rows) > 1 and all(row.startswith(RLM) for row in rows), rows
    shown = visual(wrap(line, 24), 24).splitlines()
    assert shown[0] == "expert-parallelism".rjust(24)
