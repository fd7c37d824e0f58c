"""Text where no renderer lays out bidirectional text: pictures and `--bidi visual` terminals.

Right-to-left text in display order (UAX #9 levels from python-bidi, then reordering,
mirroring and marks done here), and for pictures its letters joined (arabic-reshaper turns
each letter into its initial, medial or final form) in a font that has them: FiraGO, as
pymupdf-fonts ships it, beside the Noto Sans of the Latin text. Pillow only shapes Arabic
script with libraqm plus a system FriBiDi (absent from python:3.12-slim, macOS and Windows
without extra installs); shaped and ordered here and drawn with Pillow's basic layout, an
Urdu picture has the same pixels on every machine.
"""

from __future__ import annotations

import io
import re
import unicodedata
from functools import lru_cache
from typing import Any

from PIL import ImageFont

_ARABIC = re.compile("[\u0600-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")
_CONTROLS = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_MIRROR = dict(zip("()[]{}<>«»‹›", ")(][}{><»«›‹", strict=True))
_LEVEL = re.compile(r"Level\(\s*(\d+)")


def has_arabic_script(text: str) -> bool:
    """True when `text` has a letter of the Arabic script (Urdu's)."""
    return _ARABIC.search(text) is not None


def display_order(row: str) -> str:
    """A right-to-left `row` in display order, brackets mirrored where they run right to
    left and marks kept after their letter: python-bidi (0.5 and later) resolves the levels
    and reorders (rule L2) but leaves mirroring and marks (L3, L4) to the renderer, and a
    terminal or a picture without bidi has none, so "(ایک)" would show as ")کیا(", "A)" as
    ")A" and "▫️" with its variation selector first. The levels come from python-bidi
    (debug=True gives them, one per UTF-8 byte); L2 to L4 are applied here."""
    from bidi import get_display

    info = get_display(row, base_dir="R", debug=True)
    per_byte = [int(n) for n in
                _LEVEL.findall(info.split("levels:", 1)[1].split("paragraphs:", 1)[0])]
    clusters: list[str] = []  # a character with the marks that follow it
    levels: list[int] = []
    at = 0
    for ch in row:
        if clusters and unicodedata.category(ch) in ("Mn", "Me"):
            clusters[-1] += ch
        else:
            clusters.append(_MIRROR.get(ch, ch) if per_byte[at] % 2 else ch)
            levels.append(per_byte[at])
        at += len(ch.encode())
    order = list(range(len(clusters)))
    for level in range(max(levels, default=1), 0, -1):  # L2: reverse each run at >= level
        i = 0
        while i < len(order):
            j = i
            while j < len(order) and levels[order[j]] >= level:
                j += 1
            order[i:j] = order[i:j][::-1]
            i = j + 1
    return "".join(clusters[k] for k in order)


@lru_cache(maxsize=1)
def _reshaper() -> Any:
    from arabic_reshaper import ArabicReshaper

    # FiraGO maps a letter's isolated form to the letter itself only: keep the letter
    return ArabicReshaper({"use_unshaped_instead_of_isolated": True, "delete_harakat": False})


def shaped(text: str) -> str:
    """`text` as a picture draws it left to right: Urdu letters joined and every line in
    display order (right to left); text without Arabic script as it is."""
    if not has_arabic_script(text):
        return text
    joined: str = _reshaper().reshape(_CONTROLS.sub("", text))
    return "\n".join(display_order(line) for line in joined.split("\n"))


@lru_cache(maxsize=2)
def _font_file(name: str) -> bytes:
    """A font file as pymupdf-fonts ships it (SIL OFL): the same TrueType file on every
    machine, so the same Pillow draws the same pixels everywhere."""
    from pymupdf_fonts import FiraGO_Regular, NotoSans_Regular

    module = {"latin": NotoSans_Regular, "arabic": FiraGO_Regular}[name]
    return bytes(module.fontbuffer)


@lru_cache(maxsize=8)
def font(size: int) -> ImageFont.FreeTypeFont:
    """The pictures' Latin font (Noto Sans) at `size` px."""
    return ImageFont.truetype(io.BytesIO(_font_file("latin")), size)


@lru_cache(maxsize=8)
def arabic_font(size: int) -> ImageFont.FreeTypeFont:
    """The pictures' font for text with Urdu (FiraGO: Arabic script, Urdu's letters and
    their joining forms, Latin and digits) at `size` px, laid out by Pillow itself: the text
    comes shaped and ordered (`shaped`), and no machine's libraqm reorders it again."""
    return ImageFont.truetype(io.BytesIO(_font_file("arabic")), size,
                              layout_engine=ImageFont.Layout.BASIC)


ARABIC_SCALE = 1.2  # FiraGO's Arabic letters are small beside Noto Sans' Latin at one size


def prepared(text: str, size: int) -> tuple[str, ImageFont.FreeTypeFont]:
    """What to draw for `text` at `size` px (Latin's), and in which font."""
    if has_arabic_script(text):
        return shaped(text), arabic_font(round(size * ARABIC_SCALE))
    return text, font(size)


__all__ = ["arabic_font", "display_order", "font", "has_arabic_script", "prepared", "shaped"]
