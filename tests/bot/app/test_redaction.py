"""Secrets never reach a log line or an error message: tokens, webhook secrets, database
passwords, Discord interaction tokens, at every level."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app.config import load_config
from bot.app.logs import RedactSecrets, setup_logging
from bot.domain.errors import ConfigError

ROOT = Path(__file__).resolve().parents[3]
ITOKEN = "aW50ZXJhY3Rpb246MTM0NTY3ODk6c2VjcmV0LWludGVyYWN0aW9uLXRva2Vu"


@pytest.mark.parametrize("line", [
    f"For Shard ID None: WebSocket Event: {{'t': 'INTERACTION_CREATE', 'd': {{'id': '1', "
    f"'token': '{ITOKEN}', 'version': 1}}}}",
    f'{{"type": 2, "token": "{ITOKEN}"}}',
    f"POST http://127.0.0.1:1/api/v10/interactions/1345/{ITOKEN}/callback with None has "
    "returned 204",
    f"Webhook ID 99 with PATCH http://x/api/v10/webhooks/99/{ITOKEN}/messages/@original "
    "has returned status code 200",
])
def test_interaction_tokens_are_masked_without_being_configured(line: str):
    assert ITOKEN not in RedactSecrets([]).scrub(line)
    assert "<token>" in RedactSecrets([]).scrub(line)


def test_database_password_is_redacted_from_every_level(tmp_path: Path, capsys):
    path = tmp_path / "c.yaml"
    raw = "postgresql://quiz:hunter2-Pa55word@db:5432/quiz"
    path.write_text(f"storage:\n  url: {raw}\nlog_level: DEBUG\n")
    config = load_config(path, env={})
    assert "hunter2-Pa55word" not in config.storage_url  # config keeps it apart...
    setup_logging(config)
    log = logging.getLogger("quizbot.test")
    # ...so only the log filter stands between a line that carries it (a library's error
    # quoting the URL it was given) and the log: the password is a configured secret.
    for level in (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR):
        log.log(level, "connecting to %s", raw)
    log.error("asyncpg said: password authentication failed for %s", "hunter2-Pa55word")
    err = capsys.readouterr().err
    assert err.count("connecting to") == 4 and "hunter2-Pa55word" not in err
    assert err.count("<token>") == 5, err


@pytest.mark.parametrize(("url", "said"), [
    ("mysql://quiz:hunter2-Pa55word@db:5432/quiz", "storage.url"),  # a scheme we refuse
    ("postgresql://quiz:hunter2-Pa55word@db.invalid:5432/quiz", "Cannot use the database"),
])
def test_a_refused_storage_url_does_not_echo_its_password(tmp_path: Path, url: str, said: str):
    path = tmp_path / "c.yaml"
    path.write_text(f"storage:\n  url: {url}\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "play", "--config", str(path)], cwd=tmp_path,
        env=env, capture_output=True, text=True, timeout=30, input="")
    assert done.returncode == 1 and said in done.stderr
    assert "hunter2-Pa55word" not in done.stderr + done.stdout
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_badly_typed_webhook_secret_is_not_echoed(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("telegram:\n  webhook:\n    secret_token: 987654321987\n")
    with pytest.raises(ConfigError, match="secret_token must be text") as caught:
        load_config(path, env={})
    assert "987654321987" not in str(caught.value)
