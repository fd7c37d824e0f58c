"""UI strings: every language has every key with the same placeholders; bidi isolation."""

from __future__ import annotations

import pytest

from bot.i18n import LRI, PDI, Catalogue, isolate_latin, placeholders, strip_isolates


def test_every_language_has_every_key_and_placeholder(catalogue: Catalogue):
    assert set(catalogue.languages) >= {"en", "ur"}
    english = catalogue.keys("en")
    for lang in catalogue.languages:
        assert catalogue.keys(lang) == english, lang
        for key in english:
            assert placeholders(catalogue.raw(lang, key)) == placeholders(
                catalogue.raw("en", key)), (lang, key)


def test_urdu_strings_are_urdu(catalogue: Catalogue):
    words = [key for key in catalogue.keys("ur")
             if any(ch.isalpha() for ch in catalogue.raw("en", key).split("{")[0])]
    assert len(words) > 50
    for key in words:
        text = catalogue.raw("ur", key)
        assert any("\u0600" <= ch <= "\u06ff" for ch in text), key


@pytest.mark.parametrize("text, expected", [
    ("سوال 3/8", f"سوال {LRI}3/8{PDI}"),
    ("ایک GPU کی میموری", f"ایک {LRI}GPU{PDI} کی میموری"),
    ("NVIDIA Megatron-LM فریم ورک", f"{LRI}NVIDIA Megatron-LM{PDI} فریم ورک"),
    ("(exploding gradients) سے", f"({LRI}exploding gradients{PDI}) سے"),
    ("بھیجیں /quiz ابھی", "بھیجیں /quiz ابھی"),  # commands stay tappable
])
def test_latin_runs_are_isolated_in_rtl(text: str, expected: str):
    assert isolate_latin(text) == expected
    assert strip_isolates(isolate_latin(text)) == text


def test_t_isolates_only_in_rtl(catalogue: Catalogue):
    assert catalogue.t("en", "question.header", number=3, total=8) == "Question 3/8"
    ur = catalogue.t("ur", "question.header", number=3, total=8)
    assert ur == f"سوال {LRI}3/8{PDI}"


def test_unknown_language_falls_back_to_default(catalogue: Catalogue):
    assert catalogue.t("xx", "answer.correct") == catalogue.t("en", "answer.correct")
