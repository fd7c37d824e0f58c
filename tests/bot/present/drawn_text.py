"""What a picture draws as text, watched on its way into Pillow (for the picture tests)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PIL import ImageDraw, ImageFont

Drawn = list[tuple[str, ImageFont.FreeTypeFont]]


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[Drawn]:
    """Every (text, font) a picture draws: Pillow's own drawing, watched on its way."""
    seen: Drawn = []
    real = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: Any, text: str, *args: Any, **kw: Any) -> None:
        seen.append((text, kw["font"]))
        real(self, xy, text, *args, **kw)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    yield seen


def missing_glyphs(text: str, font: ImageFont.FreeTypeFont) -> str:
    """The characters of `text` that `font` draws as its .notdef box."""
    notdef = bytes(font.getmask("\ue000"))  # a private-use code point no font here maps
    return "".join(ch for ch in set(text) if not ch.isspace()
                   and bytes(font.getmask(ch)) == notdef)
