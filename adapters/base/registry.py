"""The adapter side of the platform registry: how `quizbot run` starts each chat app.

What a platform is (name, limits, token variable, config section) is described once in
`bot.domain.platforms`; here each chat app gets the adapter class that serves it, imported
only when that platform is enabled and has a token. A new platform adds one entry here,
one there, and its own package under `adapters/`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.domain.platforms import DISCORD, TELEGRAM, Platform

if TYPE_CHECKING:
    from bot.app.compose import Adapter, App
    from bot.app.config import Config


@dataclass(frozen=True, slots=True)
class AdapterEntry:
    """One chat app and the adapter class that serves it ("module:Class")."""

    platform: Platform
    factory: str

    def load(self) -> Callable[[App], Adapter]:
        """The adapter class (its module is imported now, not before)."""
        module, cls = self.factory.split(":")
        factory: Callable[[App], Adapter] = getattr(importlib.import_module(module), cls)
        return factory


ADAPTERS: dict[str, AdapterEntry] = {entry.platform.name: entry for entry in (
    AdapterEntry(TELEGRAM, "adapters.telegram:TelegramAdapter"),
    AdapterEntry(DISCORD, "adapters.discord:DiscordAdapter"),
)}


def wanted(config: Config) -> list[str]:
    """Platforms that are enabled and have a token in the environment, in registry order."""
    return [name for name in ADAPTERS if config.enabled(name) and config.token(name)]


def idle_tokens(config: Config) -> str | None:
    """When a token is set for a platform the config disables: that, and what to do (with
    `wanted` empty, "no bot token set" would send the maintainer looking for the wrong
    thing)."""
    idle = [entry.platform for name, entry in ADAPTERS.items()
            if config.token(name) and not config.enabled(name)]
    if not idle:
        return None
    return ("; ".join(f"{p.token_env} is set but {p.config_section}.enabled is false in the "
                      "config" for p in idle) + ": set it to true (or remove the line) to run it")
