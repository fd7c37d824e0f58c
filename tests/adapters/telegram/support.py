"""Shared by the Telegram adapter tests: the token, config files, the answer key."""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from adapters.telegram import TelegramAdapter
from bot.app.compose import App
from bot.domain.quiz import Quiz
from bot.present.i18n import Catalogue, strip_isolates
from tests.adapters.telegram.fake_bot_api import FakeBotAPI

TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"
SECRET_PART = TOKEN.split(":")[1]
WEBHOOK_SECRET = "hook-Secret_42xyz"
LINE = re.compile(r"^(?:[✅❌▫️]+\s)?([A-J])\) (.*)$")


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_config(tmp_path: Path, api: FakeBotAPI, *, admins: list[int] | None = None,
                 content: Path | None = None, **telegram: Any) -> Path:
    """A config file pointing at the fake and a SQLite file in tmp_path (and at `content`,
    e.g. the `process_content` fixture, as its content folder)."""
    data: dict[str, Any] = {
        "storage": {"url": f"sqlite:///{tmp_path / 'quiz.db'}"},
        "telegram": {"api_base_url": api.base_url, "concurrent_updates": 64, **telegram},
        "log_level": "DEBUG",
    }
    if admins:
        data["admins"] = {"telegram": admins}
    if content is not None:
        data["content"] = {"dir": str(content)}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@dataclass
class Running:
    app: App
    adapter: TelegramAdapter

    @property
    def cat(self) -> Catalogue:
        return self.app.catalogue


@dataclass(frozen=True)
class AnswerKey:
    """Finds the right (or a wrong) letter on a question message by matching option text."""

    quiz: Quiz

    def question(self, text: str, lang: str = "en") -> int:
        plain = strip_isolates(text)
        for i, q in enumerate(self.quiz.questions):
            if strip_isolates(q.text.get(lang)) in plain:
                return i
        raise AssertionError(f"no quiz question in message {text!r}")

    def letters(self, text: str) -> dict[str, str]:
        """Displayed letter -> option text."""
        out = {}
        for line in strip_isolates(text).splitlines():
            if m := LINE.match(line.strip()):
                out[m[1]] = m[2]
        return out

    def right(self, text: str, lang: str = "en") -> str:
        q = self.quiz.questions[self.question(text, lang)]
        want = strip_isolates(q.options[q.correct].text.get(lang))
        return next(k for k, v in self.letters(text).items() if v == want)

    def wrong(self, text: str, lang: str = "en") -> str:
        right = self.right(text, lang)
        return next(k for k in self.letters(text) if k != right)


BotFactory = Callable[..., AbstractAsyncContextManager[Running]]
