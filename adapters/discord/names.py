"""The suggestions of an option that autocompletes, by name (never an id), and what a member
typed into one: Discord sends the typed text when Enter is pressed before a suggestion is
picked, so a quiz's title or a topic's name means its id (`bot.features.naming` reads it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands

from bot.present.clipping import clip_isolated
from bot.present.collation import sort_key
from bot.present.i18n import is_rtl

if TYPE_CHECKING:
    from bot.features.engine import Engine


CHOICES_LIMIT, CHOICE_NAME_LIMIT = 25, 100  # Discord's limits on autocomplete suggestions


def topic_choices(engine: Engine, lang: str, current: str) -> list[app_commands.Choice[str]]:
    """Autocomplete for /review topic: topics whose id or name contains what was typed."""
    needle = current.casefold().strip()
    found = [(engine.topic_name(t, lang), t) for t in engine.topics()]
    return [app_commands.Choice(name=_shown(name, lang), value=t)
            for name, t in sorted(found, key=lambda f: sort_key(lang, f[0]))
            if needle in t or needle in name.casefold()
            ][:CHOICES_LIMIT]


def quiz_choices(engine: Engine, lang: str, current: str) -> list[app_commands.Choice[str]]:
    """Autocomplete for /quiz: the quizzes whose id or title holds what was typed, shown
    by title (the id is only the value Discord sends back)."""
    needle = current.casefold().strip()
    return [
        app_commands.Choice(name=_shown(info.title, lang), value=info.id)
        for info in engine.quiz_infos(lang) if needle in info.id or needle in info.title.casefold()
    ][:CHOICES_LIMIT]


def _shown(name: str, lang: str) -> str:
    """A suggestion's name within Discord's limit, its Latin runs isolated in Urdu: "MoE اور
    ایکسپرٹ متوازیت" opening in Latin read left to right, the Urdu half backwards."""
    return clip_isolated(name, CHOICE_NAME_LIMIT, is_rtl(lang))
