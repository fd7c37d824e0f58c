"""At DEBUG, in text and JSON alike, logs hold ids only: no message text a learner typed,
no display name, no secret (the webhook secret however short, the token)."""

from __future__ import annotations

import json
import logging

import aiohttp
import pytest

from bot.app.logs import JsonFormatter, RedactSecrets
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, is_question
from tests.adapters.telegram.support import SECRET_PART, TOKEN, AnswerKey, BotFactory, free_port

FIRST, LAST = "Zebulon", "Quartzwhistle"
GROUP = "Privet Study Circle"
TYPED = "my private musings 4711"
SHORT_SECRET = "s3Cr7"  # under 8 characters: masked all the same


def both_formats(records: list[logging.LogRecord]) -> str:
    text = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    as_json = JsonFormatter()
    lines = []
    for record in records:
        lines.append(text.format(record))
        lines.append(as_json.format(record))
        json.loads(lines[-1])
    return "\n".join(lines)


def leaks(logged: str) -> list[str]:
    words = (FIRST, LAST, GROUP, TYPED, "musings", TOKEN, SECRET_PART, SHORT_SECRET)
    return [w for w in words if w in logged]


async def test_a_whole_quiz_at_debug_logs_no_text_and_no_name(
        start_bot: BotFactory, api: FakeBotAPI, key: AnswerKey,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    learner = Learner(api, api.user(1001, FIRST, LAST))
    async with start_bot():
        since = learner.mark()
        await learner.send("/quiz parallelism")
        question = await learner.reply(since, is_question)
        for _ in range(8):
            since = learner.mark()
            await learner.press(question, key.right(question["text"]))
            nxt = await learner.reply(since, lambda m: is_question(m)
                                      or "Finished" in m.get("text", ""))
            if not is_question(nxt):
                break
            question = nxt
        await learner.send(TYPED)  # free text the bot does not understand
        await learner.send(f"/start {TYPED}")
        group = api.group_chat(-100777, GROUP)
        await api.push_update(api.message(learner.user, "/leaderboard", group))
        await learner.barrier()
    logged = both_formats(caplog.records)
    assert "Calling Bot API endpoint `sendMessage`" in logged  # DEBUG really was on
    assert "1001" in logged  # the ids are still there
    assert leaks(logged) == []


async def test_webhook_secret_of_any_length_is_masked(
        start_bot: BotFactory, api: FakeBotAPI, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    port = free_port()
    webhook = {"listen": "127.0.0.1", "port": port, "url_path": "hook",
               "public_url": "https://bot.example.test/hook", "secret_token": SHORT_SECRET}
    learner = Learner(api, api.user(1002, FIRST, LAST))
    async with start_bot(mode="webhook", webhook=webhook), aiohttp.ClientSession() as http:
        since = learner.mark()
        for n, text in enumerate((TYPED, f"/start {TYPED}")):
            update = {"update_id": 5 + n, **api.message(learner.user, text)}
            async with http.post(f"http://127.0.0.1:{port}/hook", json=update, headers={
                    "X-Telegram-Bot-Api-Secret-Token": SHORT_SECRET}) as response:
                assert response.status == 200
        await learner.reply(since)
    assert api.calls_of("setWebhook")[-1].params["secret_token"] == SHORT_SECRET
    assert leaks(both_formats(caplog.records)) == []


def test_short_secrets_are_masked_and_kept_apart_from_words() -> None:
    redact = RedactSecrets(["abc12", "", "123:xy", "k"])
    assert redact.scrub("secret abc12 here") == "secret <token> here"
    assert redact.scrub("{'secret_token': 'abc12'}") == "{'secret_token': '<token>'}"
    assert redact.scrub("token 123:xy") == "token <token>"
    assert redact.scrub("keep abc123 and k9 and kilo; k") == "keep abc123 and k9 and kilo; <token>"


def test_discord_payloads_are_cut_to_ids_too() -> None:
    """discord.py logs gateway events (dicts) and request bodies (JSON text) at DEBUG."""
    event = {"op": 0, "t": "MESSAGE_CREATE", "d": {"id": "1234", "channel_id": "55",
             "content": TYPED, "author": {"id": "77", "username": FIRST,
                                          "global_name": LAST}}}
    record = logging.LogRecord("discord.gateway", logging.DEBUG, __file__, 1,
                               "For Shard ID %s: WebSocket Event: %s", (0, event), None)
    body = logging.LogRecord("discord.http", logging.DEBUG, __file__, 1,
                             "%s %s with %s has returned %s",
                             ("POST", "/channels/55/messages", json.dumps(
                                 {"content": f"{FIRST} scored 8/8"}), 200), None)
    ours = logging.LogRecord("adapters.discord", logging.INFO, __file__, 1, "%s",
                             ("a plain argument stays",), None)
    redact = RedactSecrets([])
    for r in (record, body, ours):
        redact.filter(r)
        redact.filter(r)  # once on the logger, once on the handler
    logged = both_formats([record, body])
    assert leaks(logged) == []
    assert "d.id=1234" in record.getMessage() and "d.author.id=77" in record.getMessage()
    assert body.getMessage().endswith("has returned 200")
    assert ours.getMessage() == "a plain argument stays"
