"""What a member typed into an option that autocompletes: Discord sends the typed text when
Enter is pressed before a suggestion is picked, so a quiz's title or a topic's name (as the
suggestions and the error's list show them) means its id."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from discord import app_commands

if TYPE_CHECKING:
    from bot.features.engine import Engine


CHOICES_LIMIT, CHOICE_NAME_LIMIT = 25, 100  # Discord's limits on autocomplete suggestions


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def quiz_named(engine: Engine, langs: Iterable[str], text: str) -> str:
    """The id of the quiz `text` names (its id or its title in any language), else `text`."""
    wanted = _key(text)
    for lang in langs:
        for info in engine.quiz_infos(lang):
            if wanted in (info.id, _key(info.title), _key(f"{info.title} ({info.id})")):
                return info.id
    return text


def topic_named(engine: Engine, langs: Iterable[str], text: str) -> str:
    """The id of the topic `text` names (its id or its name in any language), else `text`."""
    wanted = _key(text)
    for topic in engine.topics():
        if wanted == topic or any(wanted == _key(engine.topic_name(topic, lang))
                                  for lang in langs):
            return topic
    return text


def topic_choices(engine: Engine, lang: str, current: str) -> list[app_commands.Choice[str]]:
    """Autocomplete for /review topic: topics whose id or name contains what was typed."""
    needle = current.casefold().strip()
    found = [(engine.topic_name(t, lang), t) for t in engine.topics()]
    return [app_commands.Choice(name=name[:CHOICE_NAME_LIMIT], value=t)
            for name, t in sorted(found) if needle in t or needle in name.casefold()
            ][:CHOICES_LIMIT]


def quiz_choices(engine: Engine, lang: str, current: str) -> list[app_commands.Choice[str]]:
    """Autocomplete for /quiz: quiz ids whose id or title contains what was typed."""
    needle = current.casefold().strip()
    return [
        app_commands.Choice(name=f"{info.title} ({info.id})"[:CHOICE_NAME_LIMIT], value=info.id)
        for info in engine.quiz_infos(lang) if needle in info.id or needle in info.title.casefold()
    ][:CHOICES_LIMIT]
