"""What a person typed to name a quiz or a topic: its id, or its title (name) in any
language, as every place shows it, so nobody has to copy an internal id out of a list.
Every adapter reads a typed quiz or topic name through here (Discord's options, Telegram's
command words, `quizbot play --quiz`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from bot.domain.errors import SeveralQuizzes
from bot.domain.letters import as_read

if TYPE_CHECKING:
    from bot.features.engine import Engine

PART_MIN = 3  # the fewest characters a part of a title must have to name that quiz alone


def name_key(text: str) -> str:
    """A typed name compared as a reader sees it (`letters.as_read`: an Arabic keyboard's
    letters as Urdu's, invisible marks dropped, spaces collapsed, case folded)."""
    return as_read(text)


def quiz_named(engine: Engine, langs: Iterable[str], text: str) -> str:
    """The id of the quiz `text` names: its id, its title in any language, or a part of
    a title that no other quiz's title holds ("depth", "pipeline schedules"); a part that
    several titles hold ("pipeline"): SeveralQuizzes, naming just those; else `text` (the
    engine then refuses it, listing the titles)."""
    wanted = name_key(text)
    infos = [info for lang in langs for info in engine.quiz_infos(lang)]
    for info in infos:
        if wanted in (info.id, name_key(info.title), name_key(f"{info.title} ({info.id})")):
            return info.id
    holders = {info.id for info in infos if wanted in name_key(info.title)}
    if len(wanted) < PART_MIN or not holders:
        return text
    if len(holders) == 1:
        return holders.pop()
    ids = tuple(quiz.id for quiz in engine.library.ordered() if quiz.id in holders)
    raise SeveralQuizzes(ids, quiz=text, choices=engine.library.choices(ids))


def quiz_words(engine: Engine, langs: Iterable[str], words: Sequence[str]) -> str | None:
    """The quiz a command's words name (`quiz_named` of them joined), None for no words."""
    return quiz_named(engine, langs, " ".join(words)) if words else None


def topic_named(engine: Engine, langs: Iterable[str], text: str) -> str:
    """The id of the topic `text` names (its id or its name in any language), else `text`."""
    wanted = name_key(text)
    for topic in engine.topics():
        if wanted == topic or any(wanted == name_key(engine.topic_name(topic, lang))
                                  for lang in langs):
            return topic
    return text
