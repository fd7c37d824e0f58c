"""Alphabetical order in a learner's language: Urdu's dictionary order (آ ا ب پ ت ٹ …) for
Urdu, where code points put ٹ, پ, ڈ and ک after م."""

from __future__ import annotations

import unicodedata

from bot.domain.letters import urdu_letters
from bot.present.i18n import has_rtl, is_rtl

# Urdu's alphabet in its dictionary order, and the letters an Arabic keyboard or an older
# spelling writes for some of them; short vowels and other marks do not order a word
URDU_ALPHABET = "آابپتٹثجچحخدڈذرڑزژسشصضطظعغفقکگلمنںوہھءیے"
_URDU_VARIANTS = str.maketrans({"أ": "ا", "إ": "ا", "ٱ": "ا", "ۂ": "ہ", "ۃ": "ہ", "ة": "ہ",
                                "ئ": "ی", "ؤ": "و", "ۓ": "ے"})  # and `urdu_letters`
_URDU_RANK = {letter: n for n, letter in enumerate(URDU_ALPHABET, 1)}


def sort_key(lang: str, text: str) -> tuple[int, tuple[int, ...]]:
    """`text`'s place in an alphabetical list in `lang`: in Urdu by Urdu's alphabet (ا ب پ ت
    ٹ …; code points put ٹ, پ, ڈ and ک after م), names that open in Latin after the Urdu
    ones; elsewhere by case-folded code points."""
    if not is_rtl(lang):
        return 0, tuple(map(ord, text.casefold()))
    text = urdu_letters(unicodedata.normalize("NFC", text)).translate(_URDU_VARIANTS)
    letters = [c for c in text if unicodedata.category(c) not in ("Mn", "Cf")]
    first = next((c for c in letters if c.isalpha()), "")
    return (0 if has_rtl(first) else 1,
            tuple(_URDU_RANK.get(c, 0 if not c.isalnum() else 1000 + ord(c.casefold()[0]))
                  for c in letters))
