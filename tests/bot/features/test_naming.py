"""What a person typed to name a quiz (`bot.features.naming`): an id, a title in either
language, or a part of a title that only one title holds; anything else comes back as
typed, for the engine to refuse with the titles."""

from __future__ import annotations

import pytest

from bot.features.engine import Engine
from bot.features.naming import quiz_named, quiz_words

LANGS = ("en", "ur")


@pytest.mark.parametrize("typed, meant", [
    ("long-context", "long-context"),  # its id
    ("  LONG sequences and   sharded data parallelism ", "long-context"),  # its title
    ("لمبی سیکوئنسز اور بانٹی ہوئی ڈیٹا متوازیت", "long-context"),  # its Urdu title
    ("Long sequences and sharded data parallelism (long-context)", "long-context"),
    ("depth", "parallelism-deep"),  # a part only one title holds
    ("zero bubble", "pipeline-schedules"),
    ("parallelism", "parallelism"),  # an id wins over the titles that hold the word
    ("pipeline", "pipeline"),  # two titles hold it: neither is meant
    ("de", "de"),  # too short to mean one
    ("pipline", "pipline"),
])
def test_a_quiz_is_named_by_id_title_or_a_part_only_one_title_has(
        engine: Engine, typed: str, meant: str) -> None:
    assert quiz_named(engine, LANGS, typed) == meant


def test_a_commands_words_name_one_quiz(engine: Engine) -> None:
    assert quiz_words(engine, LANGS, ["mixture", "of", "experts"]) == "expert-parallelism"
    assert quiz_words(engine, LANGS, []) is None
