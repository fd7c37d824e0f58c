"""A round's button that is forged or from a round long gone says so in the round's words,
in the presser's language: "its round is over, or it is not this chat's; a new round:
/round". It said "That button is no longer valid. Send /quiz to continue.", which sends a
group member to a solo quiz they never asked about."""

from __future__ import annotations

from bot.domain import payloads as payload
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner
from tests.adapters.telegram.support import Running
from tests.adapters.telegram.test_telegram_rounds import Room


async def test_a_forged_or_stale_round_button_says_the_round_is_over(
        bot: Running, api: FakeBotAPI) -> None:
    room = Room(bot, api)
    sana = Learner(api, api.user(4004, "Sana", language_code="ur"), room.group)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    for who, lang in ((room.bilal, "en"), (sana, "ur")):
        for data in ("r1:!!:0:0", "r2:1:0:0", "w1:1:9999", "q2:nope:1:x"):
            toast = (await who.toast(await who.tap(question, data))).params["text"]
            assert toast == bot.cat.t(lang, "round.button_gone"), (lang, data)
            assert "/quiz" not in toast and "/round" in toast
    # a page of a round's private "Who answered?" list, forged, in the private chat
    alone = Learner(api, room.bilal.user)
    page = payload.WhoPagePayload.of("2002", "zz-x-1").pack()
    toast = (await alone.toast(await alone.tap(question | {"chat": alone.chat}, page)))
    assert toast.params["text"] == bot.cat.t("en", "round.button_gone")
