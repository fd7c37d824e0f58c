"""Every numeric key has a range and every enum its values, refused at load by name; through
`quizbot run` that is one line and exit 1, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app.config import load_config
from bot.domain.errors import ConfigError

ROOT = Path(__file__).resolve().parents[3]

BAD = [
    ("telegram:\n  concurrent_updates: 0\n", "telegram.concurrent_updates must be from 1"),
    ("telegram:\n  concurrent_updates: -5\n", "telegram.concurrent_updates must be from 1"),
    ("telegram:\n  concurrent_updates: 100000\n", "telegram.concurrent_updates must be from 1"),
    ("telegram:\n  webhook:\n    port: 99999\n", "telegram.webhook.port must be from 1 to 65535"),
    ("telegram:\n  webhook:\n    port: 0\n", "telegram.webhook.port must be from 1 to 65535"),
    ("telegram:\n  webhook:\n    port: true\n",
     "telegram.webhook.port must be a whole number, got True"),
    ("startup_timeout: 0\n", "startup_timeout must be from 1 to 3600 seconds"),
    ("startup_timeout: -1.5\n", "startup_timeout must be from 1 to 3600 seconds"),
    ("startup_timeout: soon\n", "startup_timeout must be a number, got 'soon'"),
    ("discord:\n  shards: 0\n", "discord.shards must be auto or a number from 1"),
    ("discord:\n  guild_ids: [-3]\n", "discord.guild_ids must be a list of integers"),
    ("discord:\n  api_base_url: localhost:8080\n", "discord.api_base_url must be a https or http"),
    ("discord:\n  gateway_url: http://x/gw\n", "discord.gateway_url must be a wss or ws URL"),
    ("telegram:\n  api_base_url: ftp://x/bot\n", "telegram.api_base_url must be a https"),
    # accepted before, then every start-up try failed as "unreachable"
    ("telegram:\n  api_base_url: http://127.0.0.1:99999/bot\n",
     "telegram.api_base_url must be a https"),
    ("telegram:\n  api_base_url: 'http://[bad/bot'\n", "telegram.api_base_url must be a https"),
    ("telegram:\n  api_base_url: http://exa mple.com/bot\n",
     "telegram.api_base_url must be a https"),
    ("discord:\n  api_base_url: http://127.0.0.1:0/api\n", "discord.api_base_url must be a https"),
    ("telegram:\n  webhook:\n    public_url: https://:8443/hook\n",
     "telegram.webhook.public_url must be a https"),
    ("telegram:\n  mode: push\n", "telegram.mode must be one of polling, webhook"),
    ("storage:\n  synchronous: off\n", "storage.synchronous must be"),
    ("log_level: TRACE\n", "log_level must be one of DEBUG"),
]


@pytest.mark.parametrize("text, message", BAD)
def test_out_of_range_values_are_refused_naming_the_key(tmp_path: Path, text: str,
                                                        message: str):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        load_config(path, env={})


def test_edges_of_each_range_are_accepted(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("startup_timeout: 1\ntelegram:\n  concurrent_updates: 1\n  webhook:\n"
                    "    port: 65535\ndiscord:\n  shards: 1\n")
    config = load_config(path, env={})
    assert config.startup_timeout == 1.0 and config.telegram.concurrent_updates == 1
    assert config.telegram.webhook.port == 65535 and config.discord.shards == 1
    assert load_config(None, env={}).startup_timeout == 60.0


@pytest.mark.parametrize("text, message", [BAD[0], BAD[1], BAD[3]])
def test_quizbot_run_with_a_bad_value_is_one_line_and_exit_1(tmp_path: Path, text: str,
                                                             message: str):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TELEGRAM_BOT_TOKEN": "1:" + "x" * 30}
    done = subprocess.run([sys.executable, "-m", "adapters.cli", "run", "--config", str(path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    err = done.stderr.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_usage_errors_exit_2(tmp_path: Path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "adapters.cli", "run"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "--config" in done.stderr
