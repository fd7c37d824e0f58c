"""AiohttpRequest, PTB's network layer on aiohttp: the wire format PTB's own layer sends, and
its failures read as PTB's TimedOut / NetworkError (which the adapter's retries act on)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, NetworkError, TimedOut

from adapters.telegram.request import AiohttpRequest, json_body
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.support import TOKEN

CHAT = 1001


def bot_on(api: FakeBotAPI) -> Bot:
    api.private_chat(api.user(CHAT, "Alice"))
    return Bot(TOKEN, base_url=api.base_url, request=AiohttpRequest(4))


async def test_fields_and_files_arrive_as_ptb_sends_them(api: FakeBotAPI) -> None:
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("A ✅", callback_data="a1:7:0:0")]])
    async with bot_on(api) as bot:
        sent = await bot.send_message(CHAT, "<b>سوال</b> &amp; 1 &lt; 2 + ?=&", parse_mode="HTML",
                                      reply_markup=markup)
        await bot.send_photo(CHAT, b"\x89PNG fake bytes", caption="Pipeline <i>bubble</i>",
                             parse_mode="HTML", filename="bubble.png")
        with pytest.raises(BadRequest, match="not found"):  # the API's error, not the network's
            await bot.send_message(404, "nobody")
    text = api.calls_of("sendMessage")[0].params
    assert (text["chat_id"], text["text"], text["parse_mode"]) == (
        CHAT, "<b>سوال</b> &amp; 1 &lt; 2 + ?=&", "HTML")
    assert text["reply_markup"] == {"inline_keyboard": [[{"text": "A ✅",
                                                          "callback_data": "a1:7:0:0"}]]}
    assert sent.text == "سوال & 1 < 2 + ?=&"
    photo = api.calls_of("sendPhoto")[0].params
    assert (photo["photo.filename"], photo["photo.content"]) == ("bubble.png",
                                                                 b"\x89PNG fake bytes")
    assert photo["caption"] == "Pipeline <i>bubble</i>"


async def test_an_unanswered_call_times_out(api: FakeBotAPI) -> None:
    async with bot_on(api) as bot:
        api.hold("sendMessage")
        with pytest.raises(TimedOut):
            await bot.send_message(CHAT, "hello?", read_timeout=0.2)


async def test_a_dropped_connection_is_a_network_error(api: FakeBotAPI) -> None:
    async with bot_on(api) as bot:
        api.inject("sendMessage", drop=True)
        with pytest.raises(NetworkError) as caught:
            await bot.send_message(CHAT, "hello?")
        assert not isinstance(caught.value, TimedOut)
        assert (await bot.send_message(CHAT, "again")).text == "again"  # the pool recovers


async def test_a_request_needs_initializing() -> None:
    with pytest.raises(RuntimeError, match="not initialized"):
        await AiohttpRequest().do_request("http://127.0.0.1:9/x", "POST")


def test_bodies_are_utf8_json_of_ptbs_parameters() -> None:
    rng = random.Random(7)
    alphabet = [chr(c) for c in range(300)] + list("سوال ✅❌😀\u200f\u2066&=+%\"\\")
    def word(longest: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(longest)))
    for _ in range(500):
        fields: dict[str, Any] = {word(6) or "k": word(80) for _ in range(rng.randrange(1, 5))}
        fields["reply_markup"] = {"inline_keyboard": [[{"text": word(9), "callback_data": "a"}]]}
        fields["chat_id"] = rng.randrange(-10**12, 10**12)
        assert json.loads(json_body(fields)) == fields
    assert json_body({"text": "سوال"}) == '{"text":"سوال"}'.encode()  # UTF-8, not \\u escapes


def test_half_an_emoji_from_the_api_reads_as_one_replacement_character() -> None:
    # Telegram sends UTF-8, but an escaped lone surrogate parses into a str that cannot be
    # stored or sent back: a group title, a name or a text with one keeps U+FFFD instead.
    payload = b'{"ok":true,"result":[{"title":"Study \\ud83d","text":"\\ud83d\\ude00 hi"}]}'
    assert AiohttpRequest.parse_json_payload(payload)["result"] == [
        {"title": "Study \ufffd", "text": "😀 hi"}]
    assert AiohttpRequest.parse_json_payload(b'{"ok":true,"result":"\xd8\xb3"}') == {
        "ok": True, "result": "س"}
