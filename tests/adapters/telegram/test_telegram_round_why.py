"""A round's "📖 Why? · Who answered" opens the question's full explanation privately. The
pipeline-bubble question's explanation says "The picture shows p = 4", and no picture came
with it (a learner's own answer shows the diagram): it now comes, in Urdu drawn with Urdu
words, on the first page only."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from bot.present.i18n import strip_isolates
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, buttons
from tests.adapters.telegram.support import AnswerKey, Running
from tests.adapters.telegram.test_telegram_rounds import Room

BUBBLE = {"en": 'What is the "bubble"', "ur": "ببل (bubble) کیا ہوتا ہے"}


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_why_after_a_pictured_question_brings_its_picture(
        bot: Running, api: FakeBotAPI, key: AnswerKey, lang: str) -> None:
    room = Room(bot, api)
    host = room.hana if lang == "en" else Learner(
        api, api.user(4004, "عائشہ", language_code="ur"), room.group)
    since = host.mark()
    await host.send("/round 20")  # all 8 questions, in the round's own order
    question: dict[str, Any] = await room.question(since)
    while True:
        since = host.mark()
        await room.press(host, question, key.right(question["text"], lang))
        room.advance(20)  # its deadline (after question 1 the one member's answer does it)
        shown = question["message_id"]
        revealed = await host.edited(since, lambda m, shown=shown: m["message_id"] == shown)
        if BUBBLE[lang] in strip_isolates(question["text"]):
            break
        since = host.mark()
        room.advance(5)  # the next one opens
        question = await room.question(since)
    (why,) = [b["callback_data"] for row in buttons(revealed) for b in row]
    toast = await host.toast(await host.tap(revealed, why))
    start = parse_qs(urlparse(toast.params["url"]).query)["start"][0]

    private = Learner(api, host.user)
    since = private.mark()
    await private.send(f"/start {start}")
    photo = await private.reply(since, lambda m: "photo" in m)
    texts = [c.params.get("text") or c.params.get("caption") or ""
             for c in private.sent(since, methods=("sendMessage", "sendPhoto"))]
    said = strip_isolates(" ".join(str(t) for t in texts))
    assert ("The picture shows p = 4" if lang == "en" else "تصویر میں p = 4") in said
    assert photo["photo"]  # the diagram itself
    assert len(private.sent(since, methods=("sendMessage", "sendPhoto"))) <= 2
