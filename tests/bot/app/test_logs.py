"""log_format: json: one object per line, the fields maintainers filter on, no secrets."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from bot.app.config import load_config
from bot.app.logs import MASK, setup_logging

TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"


def json_config(tmp_path: Path, level: str = "DEBUG") -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(f"log_format: json\nlog_level: {level}\n", encoding="utf-8")
    return path


def test_json_lines_parse_carry_platform_and_ids_and_no_token(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = load_config(json_config(tmp_path), env={"TELEGRAM_BOT_TOKEN": TOKEN})
    setup_logging(config)
    logging.getLogger("adapters.telegram.handlers").info(
        "reply to chat %s failed", 42, extra={"chat_id": 42, "user_id": "7"})
    logging.getLogger("discord.gateway").warning("multi\nline")
    logging.getLogger("telegram.ext.Updater").debug("GET /bot%s/getMe", TOKEN)
    try:
        raise ConnectionError(f"cannot reach /bot{TOKEN}/getUpdates")
    except ConnectionError:
        logging.getLogger("bot.features.sessions").exception("failed", extra={"session_id": 5})

    lines = capsys.readouterr().err.splitlines()
    records = [json.loads(line) for line in lines]  # each line is exactly one object
    assert len(records) == 4
    first = records[0]
    assert first["level"] == "INFO" and first["logger"] == "adapters.telegram.handlers"
    assert first["message"] == "reply to chat 42 failed"
    assert (first["platform"], first["chat_id"], first["user_id"]) == ("telegram", 42, "7")
    assert first["time"].endswith("Z") and "T" in first["time"]
    assert records[1]["platform"] == "discord" and records[1]["message"] == "multi\nline"
    assert records[2]["message"] == f"GET /bot{MASK}/getMe"
    assert records[3]["session_id"] == 5 and "ConnectionError" in records[3]["exc"]
    assert "platform" not in records[3]
    text = "\n".join(lines)
    assert TOKEN not in text and TOKEN.split(":")[1] not in text


def test_quiet_shows_nothing_below_warning(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    setup_logging(load_config(json_config(tmp_path), env={}), quiet=True)
    logging.getLogger("bot.store.sqlite").info("applied migration 0001_init.sql")
    logging.getLogger("bot.store.sqlite").warning("disk nearly full")
    lines = capsys.readouterr().err.splitlines()
    assert [json.loads(line)["message"] for line in lines] == ["disk nearly full"]


def test_debug_is_quizbot_s_and_its_libraries_not_pillow_s_png_chunks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """At log_level DEBUG every start logged Pillow reading each shipped picture chunk by
    chunk ("STREAM b'IHDR' 16 13", 28 lines), and every /stats chart more: nothing a
    maintainer debugging the bot can use, between the lines they can."""
    import io

    from PIL import Image

    setup_logging(load_config(json_config(tmp_path), env={}))
    png = io.BytesIO()
    Image.new("RGB", (2, 2)).save(png, format="PNG")
    Image.open(io.BytesIO(png.getvalue())).load()
    logging.getLogger("bot.present.diagrams").debug("drew a schedule")
    lines = capsys.readouterr().err.splitlines()
    assert [json.loads(line)["message"] for line in lines] == ["drew a schedule"]
