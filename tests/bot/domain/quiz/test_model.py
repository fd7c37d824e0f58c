"""The quiz model's lookups every tap makes: a text in a language (with its fallbacks) and
whether a stored session still fits the quiz (both read tables built once per object)."""

from __future__ import annotations

from bot.domain.quiz import Question, Quiz, Text
from bot.domain.quiz.model import Option


def text(**values: str) -> Text:
    return Text(tuple(values.items()))


def question(qid: str, options: int) -> Question:
    return Question(qid, text(en=qid), tuple(Option(text(en=f"{qid}{k}")) for k in range(options)),
                    0, text(en="why"))


def quiz(*questions: Question) -> Quiz:
    return Quiz("q", text(en="Q"), text(en="d"), "easy", ("en", "ur"), questions)


def test_text_falls_back_to_english_then_the_first_language() -> None:
    both = text(en="Hello", ur="سلام")
    assert (both.get("ur"), both.get("en"), both.get("de")) == ("سلام", "Hello", "Hello")
    assert text(ur="", en="Hello").get("ur") == "Hello"  # an empty text is no text
    assert text(ur="سلام").get("en") == "سلام"
    assert text(fr="Bonjour", ur="سلام").get("en", fallback="ur") == "سلام"


def test_texts_compare_and_hash_by_their_values_alone() -> None:
    assert text(en="a", ur="b") == text(en="a", ur="b")
    assert hash(text(en="a")) == hash(text(en="a"))
    assert text(en="a") != text(en="b")
    assert "table" not in repr(text(en="a"))


def test_a_session_fits_while_its_questions_and_option_counts_stand() -> None:
    z = quiz(question("a", 3), question("b", 4))
    assert z.fits(("a", "b"), ((2, 0, 1), (3, 2, 1, 0)))
    assert z.fits(("b",), ((0, 1, 2, 3),))
    assert not z.fits(("a", "b"), ((2, 0, 1), (2, 1, 0)))  # b lost an option
    assert not z.fits(("a", "gone"), ((2, 0, 1), (0, 1)))  # a question was removed
