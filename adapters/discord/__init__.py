"""The Discord adapter (discord.py): `DiscordAdapter(app)`, then start/stop."""

from adapters.discord.adapter import DiscordAdapter

__all__ = ["DiscordAdapter"]
