"""The whole bot with the dashboard on: the Telegram adapter against the fake Bot API and
the web server on a free loopback port, as `quizbot run` starts them."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from adapters.telegram import TelegramAdapter
from bot.app.compose import App, open_app
from bot.app.config import load_config
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, buttons, is_question
from tests.adapters.telegram.support import TOKEN, AnswerKey

PUBLIC_URL = "https://quiz.example.org"


@dataclass
class DashboardBot:
    app: App
    adapter: TelegramAdapter
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@asynccontextmanager
async def dashboard_bot(tmp_path: Path, api: FakeBotAPI, *, public_url: str = PUBLIC_URL,
                        admins: list[int] | None = None, web_secret: str = ""
                        ) -> AsyncIterator[DashboardBot]:
    """The adapter and the web server running in-process; both stopped on exit. With
    `web_secret` (QUIZBOT_WEB_SECRET) the app signs and takes Discord's dashboard links too."""
    port = free_port()
    data: dict[str, Any] = {
        "storage": {"url": f"sqlite:///{tmp_path / 'quiz.db'}"},
        "telegram": {"api_base_url": api.base_url},
        "web": {"port": port, "listen": "127.0.0.1", "public_url": public_url},
        "log_level": "DEBUG",
    }
    if admins:
        data["admins"] = {"telegram": admins}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    env = {"TELEGRAM_BOT_TOKEN": TOKEN, **({"QUIZBOT_WEB_SECRET": web_secret} if web_secret
                                            else {})}
    config = load_config(path, env=env)
    async with open_app(config) as app:
        adapter = TelegramAdapter(app)
        await app.web.start()
        await adapter.start()
        try:
            yield DashboardBot(app, adapter, port)
        finally:
            await adapter.stop()


async def finish_quiz(learner: Learner, key: AnswerKey, wrong: set[int], lang: str = "en"
                      ) -> dict[str, Any]:
    """Play the main quiz to the end through the fake Bot API; the summary message."""
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    for n in range(len(key.quiz.questions)):
        letter = (key.wrong(question["text"], lang) if n in wrong
                  else key.right(question["text"], lang))
        since = learner.mark()
        await learner.press(question, letter)
        if n < len(key.quiz.questions) - 1:
            question = await learner.reply(since, is_question)
    return await learner.reply(since, lambda m: not is_question(m) and bool(buttons(m)))
