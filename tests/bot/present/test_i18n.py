"""UI strings: every language has every key with the same placeholders; bidi isolation."""

from __future__ import annotations

import re

import pytest

from bot.present.i18n import LRI, PDI, Catalogue, isolate_latin, placeholders, strip_isolates


def test_every_language_has_every_key_and_placeholder(catalogue: Catalogue):
    assert set(catalogue.languages) >= {"en", "ur"}
    english = catalogue.keys("en")
    for lang in catalogue.languages:
        assert catalogue.keys(lang) == english, lang
        for key in english:
            assert placeholders(catalogue.raw(lang, key)) == placeholders(
                catalogue.raw("en", key)), (lang, key)


TAG = re.compile(r"</?([a-zA-Z][a-zA-Z0-9-]*)[^<>]*>")


def forms(catalogue: Catalogue, lang: str, key: str) -> list[str]:
    """Every form of `key` a learner may read: the string, or each plural form."""
    if catalogue.count_of(key) is None:
        return [catalogue.raw(lang, key)]
    return [catalogue.plural(lang, key, n) or "" for n in (1, 2, 5)]


def test_every_form_of_every_urdu_string_matches_english(catalogue: Catalogue):
    """Walks every English key (locales/en.yaml and en.po): Urdu has it, every plural form
    with the English placeholders (a form that dropped {count} would show no number) and
    the same Telegram HTML tags, each closed ("<b>" left open breaks the whole message)."""
    for key in sorted(catalogue.keys("en")):
        assert key in catalogue.keys("ur"), key
        want = placeholders(catalogue.raw("en", key))
        english_tags = sorted(TAG.findall(catalogue.raw("en", key)))
        for text in forms(catalogue, "ur", key):
            assert placeholders(text) == want, (key, text)
            assert sorted(TAG.findall(text)) == english_tags, (key, text)
            opened: list[str] = []
            for tag in TAG.finditer(text):
                if tag.group(0).startswith("</"):
                    assert opened and opened.pop() == tag.group(1), (key, text)
                elif not tag.group(0).endswith("/>"):
                    opened.append(tag.group(1))
            assert not opened, (key, text)


def test_urdu_strings_are_urdu(catalogue: Catalogue):
    words = [key for key in catalogue.keys("ur")
             if any(ch.isalpha() for ch in catalogue.raw("en", key).split("{")[0])]
    assert len(words) > 50
    for key in words:
        text = catalogue.raw("ur", key)
        assert any("\u0600" <= ch <= "\u06ff" for ch in text), key


# The Urdu strings name one thing by one word: a learner who reads "دبائیں" (press) in one
# message and "ٹیپ کریں" (tap) in the next, or "لکھیں" and "ٹائپ کریں" for typing an answer,
# wonders whether they are asked two things. Each variant here was found and replaced.
URDU_VARIANTS = {"ٹیپ": "دبائیں / دبانے", "ٹائپ": "لکھیں / لکھا ہوا", "کویز": "کوئز",
                 "کوئیز": "کوئز", "راونڈ": "راؤنڈ", "دوہرائی": "دہرائی"}


def test_urdu_uses_one_word_for_each_thing(catalogue: Catalogue):
    for key in catalogue.keys("ur"):
        text = catalogue.raw("ur", key)
        for variant, word in URDU_VARIANTS.items():
            # a whole word ("اسٹیپ", step, holds "ٹیپ")
            assert not re.search(rf"(?<!\w){variant}", text), \
                f"{key}: {variant!r} where the rest say {word!r}"


@pytest.mark.parametrize("text, expected", [
    ("سوال 3/8", f"سوال {LRI}3/8{PDI}"),
    ("ایک GPU کی میموری", f"ایک {LRI}GPU{PDI} کی میموری"),
    ("NVIDIA Megatron-LM فریم ورک", f"{LRI}NVIDIA Megatron-LM{PDI} فریم ورک"),
    ("(exploding gradients) سے", f"{LRI}(exploding gradients){PDI} سے"),
    ("ببل (p−1)/(m+p−1) ہے", f"ببل {LRI}(p−1)/(m+p−1){PDI} ہے"),
    ("پر 3,072 GPUs، یعنی 1,000 ارب", f"پر {LRI}3,072 GPUs{PDI}، یعنی {LRI}1,000{PDI} ارب"),
    ("3/7 ≈ 43%، اور 2·b·s·h", f"{LRI}3/7 ≈ 43%{PDI}، اور {LRI}2·b·s·h{PDI}"),
    ("(یعنی 3/7) ہے", f"(یعنی {LRI}3/7{PDI}) ہے"),  # a bracket opened in Urdu stays Urdu
    ("Narayanan et al. (2021) نے", f"{LRI}Narayanan et al. (2021){PDI} نے"),
    ("دیکھیں https://arxiv.org/abs/2104.04473۔", f"دیکھیں {LRI}https://arxiv.org/abs/2104.04473{PDI}۔"),
    ("تاریخ 2021-04-09 کو", f"تاریخ {LRI}2021-04-09{PDI} کو"),
    ("بھیجیں /quiz ابھی", "بھیجیں /quiz ابھی"),  # commands stay tappable
    # Brackets opened in Urdu and closed after Latin split the run: each side keeps its own.
    ("بانٹنا (ZeRO، FSDP) (sharding)",
     f"بانٹنا ({LRI}ZeRO{PDI}، {LRI}FSDP{PDI}) {LRI}(sharding){PDI}"),
    ("(ZeRO، FSDP) (p−1)/(m+p−1) ہے",
     f"({LRI}ZeRO{PDI}، {LRI}FSDP{PDI}) {LRI}(p−1)/(m+p−1){PDI} ہے"),
])
def test_latin_runs_are_isolated_in_rtl(text: str, expected: str):
    assert isolate_latin(text) == expected
    assert strip_isolates(isolate_latin(text)) == text


def test_isolating_twice_changes_nothing():
    once = isolate_latin("سوال 3/8: GPU اور (p−1)/(m+p−1)")
    assert isolate_latin(once) == once
    # An isolate already in the text (a display name) is kept, the rest still isolated.
    named = isolate_latin(f"1. {LRI}Ali 7{PDI}: 5/8")
    assert named == f"{LRI}1{PDI}. {LRI}Ali 7{PDI}: {LRI}5/8{PDI}"


def test_t_isolates_only_in_rtl(catalogue: Catalogue):
    assert catalogue.t("en", "question.header", number=3, total=8) == "Question 3/8"
    ur = catalogue.t("ur", "question.header", number=3, total=8)
    assert ur == f"سوال {LRI}3/8{PDI}"


def test_a_lang_placeholder_is_not_the_language(catalogue: Catalogue):
    text = strip_isolates(catalogue.t("ur", "error.unsupported_language", lang="fr"))
    assert "fr" in text and "ur" in text


def test_unknown_language_falls_back_to_default(catalogue: Catalogue):
    assert catalogue.t("xx", "answer.correct") == catalogue.t("en", "answer.correct")


@pytest.mark.parametrize(("lang", "n", "text"), [
    ("en", 1, "Nothing is due now. Next review in 1 day."),
    ("en", 2, "Nothing is due now. Next review in 2 days."),
    ("en", 5, "Nothing is due now. Next review in 5 days."),
    ("ur", 1, "ابھی دہرانے کو کچھ نہیں۔ اگلی دہرائی 1 دن میں۔"),
    ("ur", 2, "ابھی دہرانے کو کچھ نہیں۔ اگلی دہرائی 2 دنوں میں۔"),
    ("ur", 5, "ابھی دہرانے کو کچھ نہیں۔ اگلی دہرائی 5 دنوں میں۔"),
])
def test_waits_take_the_languages_plural_form(catalogue: Catalogue, lang: str, n: int,
                                              text: str) -> None:
    assert strip_isolates(catalogue.t(lang, "error.nothing_due_days", amount=n)) == text


@pytest.mark.parametrize(("n", "days", "hours"), [
    (1, "اگلی دہرائی 1 دن میں", "اگلی دہرائی 1 گھنٹے میں"),
    (3, "اگلی دہرائی 3 دنوں میں", "اگلی دہرائی 3 گھنٹوں میں"),
])
def test_next_review_takes_the_oblique_plural_in_urdu(catalogue: Catalogue, n: int, days: str,
                                                      hours: str) -> None:
    """The review: 'in 3 days' is دنوں میں (oblique plural); both forms read دن میں before."""
    assert strip_isolates(catalogue.t("ur", "progress.next_days", amount=n)) == days
    assert strip_isolates(catalogue.t("ur", "progress.next_hours", amount=n)) == hours


@pytest.mark.parametrize(("lang", "n", "word"), [
    ("en", 1, "1 quiz file:"), ("en", 2, "2 quiz files:"), ("en", 5, "5 quiz files:"),
    ("ur", 1, "1 کوئز فائل دوبارہ لوڈ ہو گئی"), ("ur", 2, "2 کوئز فائلیں دوبارہ لوڈ ہو گئیں"),
    ("ur", 5, "5 کوئز فائلیں دوبارہ لوڈ ہو گئیں"),
])
def test_counts_pick_singular_or_plural_in_both_languages(catalogue: Catalogue, lang: str,
                                                          n: int, word: str) -> None:
    assert word in strip_isolates(catalogue.t(lang, "admin.reloaded", count=n, ids="x"))
    due = strip_isolates(catalogue.t(lang, "reminder.text", due=n))
    if lang == "en":
        assert due.startswith(f"{n} question is due" if n == 1 else f"{n} questions are due")
    else:
        assert ("تیار ہے" in due) == (n == 1) and ("تیار ہیں" in due) == (n != 1)
        # "a few minutes now keeps it": the item stays remembered, agreeing in number
        assert due.endswith("یاد رہے گا۔" if n == 1 else "یاد رہیں گے۔")


@pytest.mark.parametrize(("answered", "members"), [(1, 5), (5, 5), (2, 1), (1, 1)])
def test_who_summary_reads_right_whatever_the_two_counts(catalogue: Catalogue, answered: int,
                                                         members: int) -> None:
    # The English form follows {count}; an Urdu noun would have to follow {answered}
    # ("5 میں سے 1 اراکین" was wrong), so the Urdu names no noun at all.
    text = strip_isolates(catalogue.t("ur", "round.who_summary", answered=answered,
                                      count=members))
    assert text == f"{members} میں سے {answered} نے اس سوال کا جواب دیا۔"


def test_no_ui_string_hedges_its_plural(catalogue: Catalogue) -> None:
    for lang in catalogue.languages:
        for key in catalogue.keys(lang):
            assert "(s)" not in catalogue.raw(lang, key), (lang, key)
        for key in ("progress.streak", "error.nothing_due_minutes", "progress.due"):
            assert catalogue.count_of(key) is not None and key in catalogue.keys(lang)


@pytest.mark.parametrize("n", [1, 22])
def test_urdu_counts_of_questions_read_right_for_one_and_many(catalogue: Catalogue,
                                                              n: int) -> None:
    # Urdu takes the noun after a numeral in one form ("1 سوال", "22 سوال"), so these
    # strings need no plural forms; "1 سوالات" was wrong.
    text = strip_isolates(catalogue.t("ur", "catalogue.item", title="T", count=n, level="L"))
    assert f"{n} سوال" in text and "سوالات" not in text
    started = strip_isolates(catalogue.t("ur", "round.started", host="H", title="T", total=n,
                                         seconds=30))
    assert f"{n} سوال،" in started


def test_a_question_in_english_only_is_one_left_to_right_piece_in_urdu() -> None:
    """A teacher's sheet in English only, shown in Urdu: '?Which gas is released' when each
    word run was isolated and the mark left to the line's right-to-left direction."""
    from bot.present.i18n import isolate_content, isolate_latin
    from bot.present.render import content_text

    assert content_text("ur", "Which gas is released?") == "\u2066Which gas is released?\u2069"
    assert content_text("ur", "Why?\n\nBecause.") == "\u2066Why?\u2069\n\n\u2066Because.\u2069"
    assert content_text("en", "Which gas is released?") == "Which gas is released?"
    urdu = "کون سی گیس خارج ہوتی ہے (O2)؟"
    assert isolate_content(urdu) == isolate_latin(urdu)  # an Urdu text: run by run, as before
    command = "Send /quiz to start."  # a /command stays tappable: not wrapped whole
    assert isolate_content(command) == isolate_latin(command)
