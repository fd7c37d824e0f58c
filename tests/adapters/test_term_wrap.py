"""Terminal wrapping: words and URLs stay whole, options hang under their text."""

from __future__ import annotations

from adapters.terminal.wrap import wrap

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
    assert len(out.splitlines()) > 1 and " ".join(out.split()) == urdu
    assert wrap("short\n\n  indented", 24) == "short\n\n  indented"
