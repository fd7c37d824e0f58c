"""One platform registry drives config, tokens, admins, logs, reminder rates, report scopes
and `quizbot run`'s adapters: a third platform is one entry on each side of it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from adapters.base import registry
from bot.app.config import load_config
from bot.app.logs import JsonFormatter, guarded_loggers
from bot.domain import platforms
from bot.domain.platforms import Platform
from bot.features.reminders import Reminders
from bot.store.commands.report_sql import Scope

MATRIX = Platform("matrix", "string", card_limit=30_000, payload_limit=255,
                  reminder_rate=5.0, token_env="MATRIX_BOT_TOKEN", config_section="matrix",
                  loggers=("adapters.matrix", "nio"), guarded_loggers=("nio",))


class MatrixAdapter:
    """What `quizbot run` would start (never started here)."""

    name = "matrix"

    def __init__(self, app: object) -> None:
        self.app = app


@pytest.fixture
def matrix(monkeypatch: pytest.MonkeyPatch) -> Platform:
    monkeypatch.setitem(platforms.PLATFORMS, "matrix", MATRIX)
    monkeypatch.setitem(registry.ADAPTERS, "matrix", registry.AdapterEntry(
        MATRIX, f"{__name__}:MatrixAdapter"))
    return MATRIX


def test_a_third_platform_gets_config_tokens_and_admins(matrix: Platform, tmp_path: Path
                                                        ) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("matrix:\n  enabled: true\n  homeserver: https://example.org\n"
                    "admins:\n  matrix: ['@alice:example.org']\n", encoding="utf-8")
    config = load_config(path, env={"MATRIX_BOT_TOKEN": "syt_secret"})
    assert config.token("matrix").reveal() == "syt_secret"
    assert "syt_secret" not in repr(config)
    assert config.sections["matrix"]["homeserver"] == "https://example.org"
    assert config.admins["matrix"] == frozenset({"@alice:example.org"})
    assert registry.wanted(config) == ["matrix"]  # no Telegram or Discord token set
    assert registry.ADAPTERS["matrix"].load() is MatrixAdapter
    off = tmp_path / "off.yaml"
    off.write_text("matrix:\n  enabled: false\n", encoding="utf-8")
    assert registry.wanted(load_config(off, env={"MATRIX_BOT_TOKEN": "x"})) == []


def test_the_registry_names_the_platforms_in_errors(matrix: Platform, tmp_path: Path) -> None:
    from bot.domain.errors import ConfigError

    path = tmp_path / "config.yaml"
    path.write_text("admins:\n  slack: [1]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="under telegram or discord or matrix"):
        load_config(path, env={})
    assert platforms.token_envs() == (
        "TELEGRAM_BOT_TOKEN and/or DISCORD_BOT_TOKEN and/or MATRIX_BOT_TOKEN")


def test_logs_rates_and_report_scopes_follow_the_registry(matrix: Platform, engine) -> None:
    record = logging.LogRecord("adapters.matrix.sync", logging.INFO, __file__, 1, "hi", None,
                               None)
    assert json.loads(JsonFormatter().format(record))["platform"] == "matrix"
    assert "nio" in guarded_loggers()
    reminders = Reminders(engine, {"matrix": _never, "telegram": _never})
    assert reminders.paces["matrix"].interval == pytest.approx(1 / 5.0)
    assert reminders.paces["telegram"].interval == pytest.approx(1 / 28.0)
    assert Scope.parse("matrix:!room:example.org") == Scope("!room:example.org", "matrix")
    assert Scope.parse("slack:42") == Scope("slack:42")  # not a platform: a chat id


async def _never(note: object) -> object:
    raise AssertionError("not sent")
