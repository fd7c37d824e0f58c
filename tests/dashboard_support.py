"""Telegram Mini App init data as Telegram signs it, for tests and the benchmark."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from bot.features.dashboard.auth import sign_init_data


def init_data(token: str, user_id: int, first_name: str, *, auth_date: float,
              language_code: str = "en", extra: dict[str, str] | None = None,
              forged: bool = False) -> str:
    """The `initData` query string for this user, with Telegram's hash (or a wrong one)."""
    user: dict[str, Any] = {"id": user_id, "first_name": first_name,
                            "language_code": language_code, "allows_write_to_pm": True}
    fields = {"auth_date": str(int(auth_date)), "query_id": f"AAH{user_id}",
              "user": json.dumps(user, separators=(",", ":"), ensure_ascii=False),
              "signature": "c2lnbmF0dXJlLW5vdC1jaGVja2Vk", **(extra or {})}
    digest = sign_init_data(fields, token)
    if forged:
        digest = digest[:-1] + ("0" if digest[-1] != "0" else "1")
    return urlencode({**fields, "hash": digest})


def telegram_fragment(data: str, theme: dict[str, str] | None = None) -> str:
    """The URL fragment Telegram opens a Mini App with."""
    params = {"tgWebAppData": data, "tgWebAppVersion": "8.0", "tgWebAppPlatform": "android"}
    if theme is not None:
        params["tgWebAppThemeParams"] = json.dumps(theme)
    return urlencode(params)


async def play(engine: Any, quizzes: dict[str, Any], actor: Any, *, wrong: set[int] = frozenset(),
               quiz_id: str = "parallelism", sure: bool | None = None) -> int:
    """Answer every question of a full attempt through the engine (at the positions in
    `wrong`, the option after the right one in the file: everyone's same misconception);
    return the score."""
    from tests.helpers import right_option

    prompt = await engine.start(actor, quiz_id)
    score = 0
    while prompt is not None:
        shown = right_option(quizzes, prompt)
        if prompt.position in wrong:
            question = quizzes[prompt.quiz_id].question(prompt.question_id)
            option = question.options[(question.correct + 1) % len(question.options)]
            shown = prompt.options.index(option.text.get(prompt.lang))
        result = await engine.answer(actor, prompt.session_id, prompt.position, shown, sure)
        score = result.score
        prompt = result.next
    return score
