"""Config keys of the multi-process setup: pool size, shard ids, webhook registration."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app.config import load_config
from bot.domain.errors import ConfigError


def load(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return load_config(path, env={})


def test_defaults_keep_one_process_working(tmp_path: Path):
    config = load(tmp_path, "{}\n")
    assert config.storage_pool_size == 10 and not config.storage_password
    assert config.telegram.webhook.register is True and config.discord.shard_ids is None


def test_postgres_url_password_is_split_into_a_secret(tmp_path: Path):
    config = load(tmp_path, "storage:\n  url: postgresql://bot:s3cr3t-pass@db:5432/quiz\n"
                            "  pool_size: 4\ntelegram:\n  webhook:\n    register: false\n")
    assert config.storage_url == "postgresql://bot@db:5432/quiz"
    assert config.storage_password.reveal() == "s3cr3t-pass"
    assert "s3cr3t-pass" not in repr(config)
    assert config.storage_pool_size == 4 and config.telegram.webhook.register is False


def test_shard_ids_are_sorted_and_deduplicated(tmp_path: Path):
    config = load(tmp_path, "discord:\n  shards: 4\n  shard_ids: [3, 1, 3]\n")
    assert config.discord.shard_ids == (1, 3)


@pytest.mark.parametrize("text, message", [
    ("storage:\n  pool_size: 0\n", "storage.pool_size must be 1 to 1000, got 0"),
    ("discord:\n  shard_ids: [0]\n", "discord.shard_ids needs discord.shards set"),
    ("discord:\n  shards: auto\n  shard_ids: [0]\n", "discord.shard_ids needs discord.shards"),
    ("discord:\n  shards: 2\n  shard_ids: [2]\n", "shard numbers from 0 to 1, got [2]"),
    ("discord:\n  shards: 2\n  shard_ids: []\n", "must be a non-empty list"),
    ("telegram:\n  webhook:\n    register: maybe\n",
     "telegram.webhook.register must be true or false"),
    ("storage:\n  url: 'postgresql://u:pw@host:port/db'\n", "not a valid postgresql:// URL"),
])
def test_bad_values_name_the_key(tmp_path: Path, text: str, message: str):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load(tmp_path, text)
