"""What a person types compared as they read it: Urdu written on an Arabic keyboard (ي, ى,
ك, ه for Urdu's ی, ی, ک, ہ, which look the same or nearly so), invisible marks dropped.
One rule for typed numbers' units (`numeric`), typed quiz and topic names (`naming`) and
Urdu's alphabetical order (`collation`)."""

from __future__ import annotations

import unicodedata

ARABIC_KEYBOARD = str.maketrans({"\u064a": "ی", "\u0649": "ی", "\u0643": "ک", "\u0647": "ہ"})


def urdu_letters(text: str) -> str:
    """`text` with an Arabic keyboard's letters written as Urdu's."""
    return text.translate(ARABIC_KEYBOARD)


def as_read(text: str) -> str:
    """`text` as a reader sees it: NFC, Urdu's letters, no invisible format characters
    (bidi isolates and marks a copied label carries, zero-width joiners), spaces collapsed,
    case folded."""
    shown = "".join(c for c in unicodedata.normalize("NFC", text)
                    if unicodedata.category(c) != "Cf")
    return " ".join(urdu_letters(shown).split()).casefold()
