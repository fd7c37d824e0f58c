"""Cutting text to a length: at a word's end where one is near, and with a right-to-left
language's Latin runs isolated inside the length."""

from __future__ import annotations

from bot.present.i18n import isolate_latin


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, with "…" where it was cut: after a whole
    word when one ends in the last third ("…میموری اور…", not "…میموری اور ک…")."""
    if len(text) <= limit:
        return text
    if limit <= 0:
        return ""
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if not text[limit - 1].isspace() and space >= (limit - 1) * 2 // 3:
        cut = cut[:space]
    return cut.rstrip().rstrip(",;:،؛-–—") + "…"  # "Zero Bubble…", not "Zero Bubble,…"


def clip_isolated(text: str, limit: int, rtl: bool) -> str:
    """`text` clipped to `limit` characters, its Latin runs isolated in a right-to-left
    language (a button label starting "Mixture of experts" otherwise reads left to right
    in Urdu); the isolates count in the limit (Discord counts every character)."""
    if not rtl:
        return clip(text, limit)
    cut = limit
    shown = isolate_latin(clip(text, cut))
    while len(shown) > limit and cut > 0:
        cut -= 1
        shown = isolate_latin(clip(text, cut))
    return shown
