"""Each product limit is kept once: config, rounds and Discord's command options all take
the bounds from `bot.domain.product_limits` (a second literal would drift from them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app.config import load_config
from bot.domain import product_limits as limits
from bot.domain.errors import ConfigError


@pytest.mark.parametrize("seconds", [limits.MIN_SECONDS, limits.MAX_SECONDS])
def test_config_takes_the_bounds(tmp_path: Path, seconds: int) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(f"rounds:\n  default_seconds: {seconds}\n")
    assert load_config(path, env={}).rounds.default_seconds == seconds


@pytest.mark.parametrize("seconds", [limits.MIN_SECONDS - 1, limits.MAX_SECONDS + 1])
def test_config_refuses_past_the_bounds(tmp_path: Path, seconds: int) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(f"rounds:\n  default_seconds: {seconds}\n")
    with pytest.raises(ConfigError, match=f"{limits.MIN_SECONDS}-{limits.MAX_SECONDS}"):
        load_config(path, env={})


def test_questions_a_round_may_take() -> None:
    assert limits.round_questions_ok(None, 8)
    assert limits.round_questions_ok(limits.MAX_QUESTIONS, 200)
    assert not limits.round_questions_ok(limits.MAX_QUESTIONS + 1, 200)
    assert not limits.round_questions_ok(9, 8)
    assert not limits.round_questions_ok(0, 8)
