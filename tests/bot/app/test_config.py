"""Config: read once, defaults, fail fast naming the key, secrets never shown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adapters.cli.main import main
from bot.app.config import Secret, load_config
from bot.domain.errors import ConfigError

EXAMPLE = Path(__file__).resolve().parents[3] / "deploy" / "config.example.yaml"
TOKEN = "123456:AAE-super-secret-token"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_example_config_loads_and_hides_tokens():
    config = load_config(EXAMPLE, env={"TELEGRAM_BOT_TOKEN": TOKEN, "DISCORD_BOT_TOKEN": "d.t"})
    assert config.storage_url == "sqlite:///data/quizbot.db"
    assert config.telegram.api_base_url == "https://api.telegram.org/bot"
    assert config.discord.api_base_url == "https://discord.com/api/v10"
    assert config.telegram_token.reveal() == TOKEN
    assert TOKEN not in repr(config) and TOKEN not in str(config.telegram_token)
    assert repr(Secret("x")) == "Secret('**********')"


def test_defaults_without_a_file():
    config = load_config(None, env={})
    assert config.telegram.mode == "polling" and not config.telegram_token
    assert config.content_dir.name in {"content", "_content"}


@pytest.mark.parametrize("text, message", [
    ("telegram:\n  enabled: maybe\n", "telegram.enabled must be true or false, got 'maybe'"),
    ("telegram:\n  mode: carrier-pigeon\n", "telegram.mode must be one of polling, webhook"),
    ("storage:\n  ulr: sqlite:///x.db\n", "storage.ulr is not a known key"),
    ("discord:\n  guild_ids: [abc]\n", "discord.guild_ids must be a list of integers"),
    ("discord:\n  shards: many\n", "discord.shards must be auto or a number"),
    ("quiz:\n  default_language: fr\n", "quiz.default_language must be one of en, ur"),
    ("storage:\n  synchronous: fast\n", "storage.synchronous must be one of full, normal"),
    # YAML turns an unquoted off into False: the message said "must be str, got False".
    ("storage:\n  synchronous: off\n", "storage.synchronous must be one of full, normal, got "
     "False (YAML reads an unquoted yes, no, on or off as true or false: put the value in "
     "quotes)"),
    ("storage:\n  pool_size: ten\n", "storage.pool_size must be a whole number, got 'ten'"),
    ("admins: [1, 2]\n", "admins must be a section (indented key: value lines), got [1, 2]"),
    ("telegram:\n  mode: webhook\n  webhook:\n    public_url: https://x.org/t\n",
     "telegram.webhook.secret_token is required in webhook mode"),
    ("admins:\n  slack: [1]\n", "admins.slack must be a list of ids"),
    # A username (or a group's negative id) never matched anyone: /reload said "only the
    # bot's admins" to the admin, with nothing in the config pointing at why.
    ("admins:\n  telegram: ['@alice']\n", "admins.telegram holds '@alice', not a user id: "
     "write the number (such as 123456789), not a name or @username"),
    ("admins:\n  discord: [123, alice#1234]\n", "admins.discord holds 'alice#1234', not"),
    ("admins:\n  telegram: [-100123]\n", "admins.telegram holds -100123, not a user id"),
    # It did not say what a mapping is, nor where to start one.
    ("- just\n- a list\n", "must be a mapping of settings (key: value lines, as in "
     "deploy/config.example.yaml)"),
    # A section added at the end of a copied example would silently replace the first.
    ("storage:\n  url: sqlite:///x.db\nweb:\n  port: 8080\nstorage:\n  synchronous: normal\n",
     "storage is given twice (lines 1 and 5); YAML keeps only the last, so merge them"),
    ("web:\n  port: 8080\n  listen: 0.0.0.0\n  port: 8081\n",
     "web.port is given twice (lines 2 and 4)"),
    ("content:\n  dir: no-such-folder\n", "content.dir 'no-such-folder' is not a folder"),
    ("web:\n  port: [8080\n", "config.yaml:3: is not valid YAML: expected ',' or ']'"),
    # `quizbot check` said only the SQLite forms, and a URL's password is never echoed.
    ("storage:\n  url: mysql://ann:hunter2@db/quiz\n",
     "storage.url must be sqlite:///relative/path.db, sqlite:////absolute/path.db or "
     "postgresql://user@host:port/dbname, got a mysql: URL"),
    ("storage:\n  url: sqlite://quiz.db\n", "storage.url must be sqlite:///relative/path.db, "
     "sqlite:////absolute/path.db or postgresql://user@host:port/dbname, got 'sqlite://quiz.db'"),
    # The dashboard's address, not the site's: links went to .../app/app, a 404.
    ("web:\n  port: 8080\n  public_url: https://quiz.example.org/app\n",
     "web.public_url must be the site's address alone, such as https://quiz.example.org, got "
     "'https://quiz.example.org/app': the dashboard is served at its /app and /api/"),
    ("web:\n  port: 8080\n  listen: 0.0.0.0\nmetrics:\n  port: 8080\n",
     "web.port and metrics.port are both 8080 on different addresses (web.listen 0.0.0.0, "
     "metrics.listen 127.0.0.1); one port is one server: give both the same listen"),
])
def test_bad_values_name_the_key(tmp_path: Path, text: str, message: str):
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(write(tmp_path, text), env={})


def test_a_config_that_cannot_be_read_says_what_to_do(tmp_path: Path):
    # A folder here, as a file root made without `-g quizbot` would be for the service's
    # user: "cannot be read: Permission denied" and nothing about what to change.
    with pytest.raises(ConfigError, match=re.escape(
            f"{tmp_path}: cannot be read: Is a directory; --config names a YAML file the user "
            "running quizbot can read (systemd: owner root, group quizbot, mode 0640")):
        load_config(tmp_path, env={})


def test_the_webhook_shares_web_port_only_on_the_same_address(tmp_path: Path):
    # The docs' "same port: one server" with webhook.listen left at its 0.0.0.0 default
    # failed at bind with a bare "address already in use".
    hook = "telegram:\n  mode: webhook\n  webhook:\n    public_url: https://x.org/t\n" \
           "    port: 8080\n"
    env = {"TELEGRAM_WEBHOOK_SECRET": "s3cret"}
    with pytest.raises(ConfigError, match=re.escape(
            "web.port and telegram.webhook.port are both 8080 on different addresses (web.listen "
            "127.0.0.1, telegram.webhook.listen 0.0.0.0)")):
        load_config(write(tmp_path, "web:\n  port: 8080\n" + hook), env=env)
    shared = load_config(write(tmp_path, "web:\n  port: 8080\n" + hook
                               + "    listen: 127.0.0.1\n"), env=env)
    assert (shared.web.port, shared.telegram.webhook.port) == (8080, 8080)
    apart = load_config(write(tmp_path, "web:\n  port: 8080\n  listen: 10.0.0.1\n"
                              "metrics:\n  port: 8080\n"), env={})  # two addresses: fine
    assert apart.metrics.port == 8080


def test_webhook_secret_from_environment(tmp_path: Path):
    path = write(tmp_path, "telegram:\n  mode: webhook\n  webhook:\n    public_url: https://x/t\n")
    config = load_config(path, env={"TELEGRAM_WEBHOOK_SECRET": "s3cret"})
    assert config.telegram.webhook.secret_token.reveal() == "s3cret"
    assert "s3cret" not in repr(config)


def test_run_without_tokens_exits_2_naming_the_variables(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    monkeypatch.delenv("DISCORD_BOT_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--config", str(EXAMPLE)]) == 2
    err = capsys.readouterr().err
    assert "TELEGRAM_BOT_TOKEN" in err and "DISCORD_BOT_TOKEN" in err and "quizbot play" in err


def test_a_token_for_a_disabled_platform_is_named_not_called_missing(tmp_path, monkeypatch,
                                                                     capsys):
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.delenv("DISCORD_BOT_TOKEN", raising=False)
    path = write(tmp_path, f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n"
                           "telegram:\n  enabled: false\n")
    said = ("TELEGRAM_BOT_TOKEN is set but telegram.enabled is false in the config: set it to "
            "true (or remove the line) to run it")
    assert main(["run", "--config", str(path)]) == 2
    assert capsys.readouterr().err == f"quizbot: no platform to run: {said}\n"
    assert main(["check", "--config", str(path)]) == 1
    assert (f"FAIL tokens: no enabled platform has one; quizbot run would exit 2 ({said})"
            in capsys.readouterr().out.splitlines())
    assert TOKEN not in said and not (tmp_path / "q.db").exists()


@pytest.mark.parametrize("command", [["check"], ["stats"], ["export", "--format", "csv"]])
def test_a_database_url_the_driver_refuses_is_one_line_not_a_traceback(tmp_path, monkeypatch,
                                                                       capsys, command):
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    url = "postgresql://quiz:Pa55-hunter2@127.0.0.1:1/quiz?sslmode=bogus"
    path = write(tmp_path, f"storage:\n  url: {url}\n")
    assert main([*command, "--config", str(path)]) == 1  # was an uncaught traceback
    out = capsys.readouterr()
    said = out.out + out.err
    assert "postgresql://quiz@127.0.0.1:1/quiz?sslmode=bogus: cannot connect" in said
    assert "sslmode" in said and "Pa55-hunter2" not in said and TOKEN not in said


def test_run_with_a_bad_config_exits_1(tmp_path, capsys):
    assert main(["run", "--config", str(write(tmp_path, "nonsense: 1\n"))]) == 1
    assert "nonsense is not a known key" in capsys.readouterr().err


def test_an_unreadable_config_file_is_one_line_saying_what_to_do(tmp_path, capsys):
    assert main(["check", "--config", str(tmp_path / "config.yaml")]) == 1
    assert capsys.readouterr().err == (f"quizbot: {tmp_path / 'config.yaml'}: no such config "
                                       "file; start one from deploy/config.example.yaml "
                                       "(every key is optional)\n")
    (tmp_path / "latin1.yaml").write_bytes("log_level: INFO  # café\n".encode("latin-1"))
    assert main(["run", "--config", str(tmp_path / "latin1.yaml")]) == 1
    assert capsys.readouterr().err == (f"quizbot: {tmp_path / 'latin1.yaml'}: is not UTF-8 text "
                                       "(byte 23); save it as UTF-8\n")


def test_run_refuses_a_database_that_is_not_sqlite(tmp_path, monkeypatch, capsys):
    db = tmp_path / "notes.db"
    db.write_text("my notes")
    path = write(tmp_path, f"storage:\n  url: sqlite:///{db}\ntelegram:\n  enabled: false\n")
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "x.y.z")
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "")
    assert main(["run", "--config", str(path)]) == 1
    assert "not a SQLite database" in capsys.readouterr().err
    assert db.read_text() == "my notes"


def test_run_fails_cleanly_when_the_platform_is_unreachable(tmp_path, monkeypatch, capsys):
    token = "123456:AAunreachableSecretToken_abcdef"
    path = write(tmp_path, f"storage:\n  url: sqlite:///{tmp_path}/q.db\n"
                           "telegram:\n  api_base_url: http://127.0.0.1:9/bot\n"
                           "discord:\n  enabled: false\nstartup_timeout: 1\n")
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", token)
    assert main(["run", "--config", str(path)]) == 1
    err = capsys.readouterr().err
    assert "could not be reached in 1 s" in err and "Traceback" not in err
    assert token not in err and token.split(":")[1] not in err
