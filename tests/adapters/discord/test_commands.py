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
