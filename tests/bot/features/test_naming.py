"""What a person typed to name a quiz (`bot.features.naming`): an id, a title in either
language, or a part of a title that only one title holds; anything else comes back as
typed, for the engine to refuse with the titles."""

from __future__ import annotations

import pytest

from bot.domain.errors import SeveralQuizzes, UnknownQuiz
from bot.features.engine import Engine
from bot.features.naming import quiz_named, quiz_words, topic_named

LANGS = ("en", "ur")


@pytest.mark.parametrize("typed, meant", [
    ("long-context", "long-context"),  # its id
    ("  LONG sequences and   sharded data parallelism ", "long-context"),  # its title
    ("لمبی سیکوئنسز اور بانٹی ہوئی ڈیٹا متوازیت", "long-context"),  # its Urdu title
    ("Long sequences and sharded data parallelism (long-context)", "long-context"),
    ("depth", "parallelism-deep"),  # a part only one title holds
    ("zero bubble", "pipeline-schedules"),
    ("parallelism", "parallelism"),  # an id wins over the titles that hold the word
    ("de", "de"),  # too short to mean one
    ("pipline", "pipline"),
])
def test_a_quiz_is_named_by_id_title_or_a_part_only_one_title_has(
        engine: Engine, typed: str, meant: str) -> None:
    assert quiz_named(engine, LANGS, typed) == meant


def test_a_commands_words_name_one_quiz(engine: Engine) -> None:
    assert quiz_words(engine, LANGS, ["mixture", "of", "experts"]) == "expert-parallelism"
    assert quiz_words(engine, LANGS, []) is None


@pytest.mark.parametrize("typed", ["pipeline", " PIPELINE ", "پائپ لائن"])
def test_a_part_several_titles_hold_names_just_those(engine: Engine, typed: str) -> None:
    """It fell through to "There is no quiz called pipeline", which is untrue: it is part
    of two titles, and the refusal says so and lists just those (catalogue order)."""
    with pytest.raises(SeveralQuizzes) as several:
        quiz_named(engine, LANGS, typed)
    assert isinstance(several.value, UnknownQuiz)  # every "no such quiz" path takes it
    assert several.value.ids == ("parallelism", "pipeline-schedules")
    assert several.value.params["quiz"] == typed
    text = engine.library.choices(several.value.ids)
    assert several.value.params["choices"] == text
    assert text.get("en") == ("\n• Model and pipeline parallelism\n• Pipeline schedules past "
                              "1F1B: Zero Bubble, DualPipe and their costs")
    assert text.get("ur").count("\n• ") == 2


def arabic_keyboard(text: str) -> str:
    """`text` as an Arabic keyboard writes it: ي ك ه for Urdu's ی ک ہ (they look alike)."""
    return text.translate(str.maketrans({"ی": "\u064a", "ک": "\u0643", "ہ": "\u0647"}))


def test_an_urdu_name_typed_on_an_arabic_keyboard_or_copied_from_a_label_is_found(
        engine: Engine) -> None:
    """Many Urdu readers type on an Arabic keyboard layout: "لمبي سيکوئنسز…" and "ماڈل کيوں…"
    read the same as the titles but were "no quiz called" / "no topic called". A label
    copied from a right-to-left button carries invisible isolates; those do not count."""
    title = "لمبی سیکوئنسز اور بانٹی ہوئی ڈیٹا متوازیت"
    assert arabic_keyboard(title) != title
    assert quiz_named(engine, LANGS, arabic_keyboard(title)) == "long-context"
    assert quiz_named(engine, LANGS, f"\u2067{title}\u2069") == "long-context"
    topic = "ماڈل کیوں اور کیسے تقسیم ہوتا ہے"
    assert topic_named(engine, LANGS, arabic_keyboard(topic)) == "fundamentals"
