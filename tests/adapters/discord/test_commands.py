"""The slash commands' option ranges are the product's limits (`bot.domain.product_limits`)."""

from __future__ import annotations

from discord import app_commands

from adapters.discord.commands import build_commands
from bot.domain import product_limits as limits
from bot.present.i18n import Catalogue


def test_round_start_ranges_are_the_product_limits() -> None:
    group = next(c for c in build_commands(Catalogue.load()) if c.name == "round")
    assert isinstance(group, app_commands.Group)
    start = group.get_command("start")
    assert isinstance(start, app_commands.Command)
    ranges = {p.name: (p.min_value, p.max_value) for p in start.parameters}
    assert ranges["seconds"] == (limits.MIN_SECONDS, limits.MAX_SECONDS)
    assert ranges["questions"] == (limits.MIN_QUESTIONS, limits.MAX_QUESTIONS)
    assert ranges["teams"] == (limits.MIN_TEAMS, limits.MAX_TEAMS)
    described = {p.name: p.description for p in start.parameters}
    assert f"{limits.MIN_SECONDS}–{limits.MAX_SECONDS}" in described["seconds"]
    assert f"{limits.MIN_TEAMS}–{limits.MAX_TEAMS}" in described["teams"]
    assert f"{limits.UNTIMED_SECONDS // 60} min" in described["untimed"]


def test_every_command_is_described_by_what_it_does() -> None:
    """Discord shows a command's description under its name as the member types it: it says
    what the command does, within Discord's 100 characters. /round stop read 'The round was
    stopped.', /round skip 'Skipped: the answer is revealed now.' and /daily off 'The
    question of the day is off…': the bot's replies, borrowed, read as if it had already
    happened."""
    cat = Catalogue.load()
    replies = {raw for key in cat.keys("en") if not key.startswith("command.")
               and (raw := cat.raw("en", key)).endswith(".") and "{" not in raw}
    described: dict[str, str] = {}
    for command in build_commands(cat):
        described[command.name] = command.description
        if isinstance(command, app_commands.Group):
            for sub in command.walk_commands():
                described[f"{command.name} {sub.name}"] = sub.description
    assert {name: text for name, text in described.items() if text in replies} == {}
    assert {name: text for name, text in described.items() if len(text) > 100} == {}
    assert described["round stop"] == "Stop this channel's round (whoever started it, or a " \
        "moderator)"
