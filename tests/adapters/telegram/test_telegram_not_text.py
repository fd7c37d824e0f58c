"""A photo, sticker, voice note or location sent to the bot in a private chat gets one short
reply in the learner's language saying what the bot reads (the buttons, a typed number,
/help), once per chat per NOT_TEXT_QUIET however many come; it got no reply at all, and the
learner could not tell a bot that ignores them from one that is down. In a group, with
hundreds of members, such messages are never answered."""

from __future__ import annotations

from bot.domain.product_limits import NOT_TEXT_QUIET
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner
from tests.adapters.telegram.support import Running
from tests.adapters.telegram.wire import command_names
from tests.clock import FakeClock


async def test_a_message_that_is_not_text_gets_one_short_reply(bot: Running,
                                                               api: FakeBotAPI) -> None:
    clock = FakeClock(bot.app.engine.clock())
    bot.app.engine.clock = clock  # the quiet window on the test's clock
    learner = Learner(api, api.user(8008, "Ali", language_code="ur"))
    since = learner.mark()
    for kind in ("sticker", "photo", "voice"):  # three in a row: one reply
        await api.push_update(api.media(learner.user, kind, learner.chat))
    until = await learner.barrier()
    said = [c.result for c in learner.sent(since, until)]
    assert [m["text"] for m in said] == [bot.cat.t("ur", "chat.not_text")]
    assert command_names(said[0]) == ["help"]  # tappable

    clock.advance(NOT_TEXT_QUIET - 1)
    since = learner.mark()
    await api.push_update(api.media(learner.user, "location", learner.chat))
    until = await learner.barrier()
    assert learner.sent(since, until) == []  # still within the window
    clock.advance(1)
    since = learner.mark()
    await api.push_update(api.media(learner.user, "photo", learner.chat))
    until = await learner.barrier()
    assert [c.result["text"] for c in learner.sent(since, until)] == [
        bot.cat.t("ur", "chat.not_text")]

    english = Learner(api, api.user(8009, "Sam"))
    since = english.mark()
    await api.push_update(api.media(english.user, "sticker", english.chat))
    until = await english.barrier()
    assert [c.result["text"] for c in english.sent(since, until)] == [
        bot.cat.t("en", "chat.not_text")]


async def test_a_group_never_hears_about_photos_or_stickers(bot: Running,
                                                            api: FakeBotAPI) -> None:
    group = api.group_chat(-1009990001, "Readers")
    member = Learner(api, api.user(8010, "Hana"), group)
    since = member.mark()
    for kind in ("sticker", "photo", "voice", "location"):
        await api.push_update(api.media(member.user, kind, group))
    until = await member.barrier()  # /help in the group: everything before it is done
    assert member.sent(since, until) == []
    assert Learner(api, member.user).sent(since, until) == []  # nor privately


async def test_text_that_answers_nothing_gets_one_short_reply(bot: Running,
                                                              api: FakeBotAPI) -> None:
    """A first 'hi' in the private chat, with no question open that takes a typed answer,
    met silence (as if the bot were down): it gets one pointer to /quiz and /help, in the
    learner's language, once per NOT_TEXT_QUIET; a number typed for an open computed question
    still answers it, and a group hears nothing."""
    clock = FakeClock(bot.app.engine.clock())
    bot.app.engine.clock = clock
    learner = Learner(api, api.user(8009, "Sana", language_code="ur"))
    since = learner.mark()
    await learner.send("hi")
    await learner.send("anyone there?")  # within the window: one reply for both
    until = await learner.barrier()
    said = [c.result for c in learner.sent(since, until)]
    assert [m["text"] for m in said] == [bot.cat.t("ur", "chat.no_question")]
    assert sorted(command_names(said[0])) == ["help", "quiz"]  # tappable
    clock.advance(NOT_TEXT_QUIET)
    english = Learner(api, api.user(8010, "Sam"))
    since = english.mark()
    await english.send("hello")
    until = await english.barrier()
    assert [c.result["text"] for c in english.sent(since, until)] == [
        "No question here is waiting for a typed answer: tap the buttons under a question, or "
        "send /quiz to start one. "
        "/help lists everything I can do."]
    group = Learner(api, english.user, api.group_chat(-100777))
    since = group.mark()
    await group.send("hello everyone")
    until = await group.barrier()
    assert group.sent(since, until) == []
