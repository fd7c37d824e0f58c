"""A group: the bot added to it says how to start a round; /settings there: its admins (by
getChatMember) choose the quiz and language that rounds and /quiz there use; members see
them and are politely refused a change."""

from __future__ import annotations

from typing import Any

from bot.present.i18n import strip_isolates
from bot.store.commands import groups_sql, rounds_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, buttons
from tests.adapters.telegram.support import Running

GROUP = -1001234


async def service_message(api: FakeBotAPI, who: Learner, **fields: Any) -> None:
    """A service message in the group (someone joined, the group was created) from `who`."""
    update = api.message(who.user, "", who.chat)
    del update["message"]["text"]
    update["message"].update(fields)
    await api.push_update(update)


async def test_the_bot_added_to_a_group_says_how_to_start_a_round(
        bot: Running, api: FakeBotAPI) -> None:
    """It said nothing: the organiser who added it had to guess /help. Now one message in
    the language of whoever added it (or created the group with it), for the service
    message, not for Telegram's `my_chat_member` sent alongside; another member joining, or
    the bot made an admin, gets none."""
    group = api.group_chat(GROUP, "Parallel readers")
    organiser = Learner(api, api.user(1001, "Hana"), group)
    since = organiser.mark()
    await service_message(api, organiser, new_chat_members=[api.user(2002, "Bilal")])
    await api.push_update(api.bot_status(group, organiser.user, "left", "member"))
    await service_message(api, organiser, new_chat_members=[api.bot])  # sent alongside
    hello = strip_isolates((await organiser.reply(since))["text"])
    assert hello.splitlines() == [
        "👋 Thanks for adding me! I run timed quiz rounds for this group.",
        "/round: a round of Model and pipeline parallelism, 30 s a question; /round 30 5: 5 "
        "questions, 30 s each. Answers stay private until each reveal.",
        "/quiz: a quiz of your own, in a private chat with me; it counts on this group's "
        "board too.",
        "Admins: /settings picks the group's quiz and language. /help: everything else."]
    await api.push_update(api.bot_status(group, organiser.user, "member", "administrator"))
    until = await organiser.barrier()
    # one: not for Bilal, not twice for one adding, not for the promotion
    assert len(organiser.sent(since, until, methods=("sendMessage",))) == 1
    creator = Learner(api, api.user(3003, "عائشہ", language_code="ur"),
                      api.group_chat(GROUP - 1, "نیا گروپ", kind="group"))
    since = creator.mark()
    await api.push_update(api.bot_status(creator.chat, creator.user, "left", "member"))
    await service_message(api, creator, group_chat_created=True)
    hello = strip_isolates((await creator.reply(since))["text"])
    assert hello.startswith("👋 مجھے شامل کرنے کا شکریہ!")
    assert "/round: ماڈل اور پائپ لائن متوازیت کا راؤنڈ، ہر سوال 30 سیکنڈ کا؛" in hello


async def test_the_bot_added_back_greets_in_the_groups_language(
        bot: Running, api: FakeBotAPI) -> None:
    """A group whose admins chose Urdu and its quiz, then removed the bot and added it back
    (an English-speaking admin this time), is greeted in Urdu with its own quiz: what its
    members read, not the adder's app language and the bot's default quiz."""
    group = api.group_chat(GROUP, "Parallel readers")
    admin = Learner(api, api.user(1001, "Ada"), group)
    api.members[(GROUP, 1001)] = "administrator"
    await admin.send("/settings language ur")
    await admin.send("/settings quiz long-context")
    await api.push_update(api.bot_status(group, admin.user, "member", "left"))
    since = await admin.barrier() + 1  # after its reply
    await api.push_update(api.bot_status(group, admin.user, "left", "member"))
    await service_message(api, admin, new_chat_members=[api.bot])
    hello = strip_isolates((await admin.reply(since))["text"])
    assert hello.startswith("👋 مجھے شامل کرنے کا شکریہ!")
    assert "لمبی" in hello.splitlines()[1], hello  # the group's quiz, in Urdu


async def test_a_group_upgraded_to_a_supergroup_is_not_welcomed_again(
        bot: Running, api: FakeBotAPI) -> None:
    """Telegram tells the bot it "joined" the new supergroup of an upgraded group
    (`my_chat_member` left -> member) though it never left: no "Thanks for adding me!" in
    a group it has been in all along."""
    group = api.group_chat(GROUP - 2, "Readers", kind="group")
    admin = Learner(api, api.user(1001, "Ada"), group)
    old_side, new_side = api.upgrade(group, GROUP - 3, admin.user)
    since = admin.mark()
    await api.push_update(old_side)
    await api.push_update(api.bot_status(api.chats[GROUP - 3], admin.user, "left", "member"))
    await api.push_update(new_side)
    moved = Learner(api, admin.user, api.chats[GROUP - 3])
    until = await moved.barrier()
    assert moved.sent(since, until) == [] and admin.sent(since, until) == []


async def test_group_admins_choose_the_quiz_and_language(bot: Running, api: FakeBotAPI) -> None:
    group = api.group_chat(GROUP)
    admin = Learner(api, api.user(1001, "Ada"), group)
    member = Learner(api, api.user(1002, "Lin"), group)
    api.members[(GROUP, 1001)] = "administrator"

    since = member.mark()
    await member.send("/settings quiz long-context")
    assert (await member.reply(since))["text"] == (
        "Only this group's admins can change its settings. /settings shows them.")

    since = admin.mark()
    await admin.send("/settings quiz long-context")
    text = (await admin.reply(since))["text"]
    assert text.splitlines()[:2] == ["Saved.", "This group's settings"]
    assert "Quiz for rounds and /quiz here: Long sequences and sharded data parallelism\n" \
        in text and "long-context" not in text  # its title, never its id
    since = admin.mark()
    await admin.send("/settings language ur")
    assert "Language of round posts: اردو" in (await admin.reply(since))["text"]

    since = member.mark()
    await member.send("/settings")
    shown = (await member.reply(since))["text"]
    assert "Long sequences and sharded data parallelism" in shown and "long-context" not in shown
    assert "/settings in a private chat" in shown

    since = member.mark()
    await member.send("/quiz")  # no quiz named: the admins' choice, not the catalogue
    (button,) = [b for row in buttons(await member.reply(since)) for b in row]
    assert button["url"].endswith("_long-context")

    since = member.mark()
    await member.send("/round")  # no quiz named: the group's, in the group's language
    await member.reply(since, lambda m: bool(m.get("reply_markup")))  # question 1 posted
    row = await bot.app.store.read(rounds_sql.active_round, "telegram", str(GROUP))
    assert row is not None and (row.quiz_id, row.lang) == ("long-context", "ur")


async def test_help_in_a_group_says_what_settings_does_there(bot: Running,
                                                             api: FakeBotAPI) -> None:
    """/help said '/settings: mark answers "sure" or "guess"', which /settings in a group
    does not do: there it shows (and admins change) the group's quiz and language."""
    group = api.group_chat(GROUP, "Parallel readers")
    for user, line in (
            (api.user(1001, "Hana"),
             '/settings: mark answers "sure" or "guess"; in a group, its quiz and language '
             "(admins)"),
            (api.user(3003, "عائشہ", language_code="ur"),
             '\u200f/settings: جوابات پر "یقین" یا "اندازہ" کا نشان؛ گروپ میں، اس کا کوئز اور '
             "زبان (منتظمین)")):
        member = Learner(api, user, group)
        since = member.mark()
        await member.send("/help")
        assert line in strip_isolates((await member.reply(since))["text"]).splitlines()


async def test_help_and_start_in_a_group_offer_the_quiz_its_admins_chose(
        bot: Running, api: FakeBotAPI) -> None:
    """A biology group whose admins chose their own quiz was told by /help and /start 'start
    with Model and pipeline parallelism (8 questions)', and the Start button under it opened
    that: the bot's default, not the group's quiz."""
    group = api.group_chat(GROUP, "Biology 101")
    admin = Learner(api, api.user(1001, "Ada"), group)
    member = Learner(api, api.user(1002, "Lin"), group)
    api.members[(GROUP, 1001)] = "administrator"
    since = admin.mark()
    await admin.send("/settings quiz long-context")
    await admin.reply(since)
    for command in ("/help", "/start"):
        since = member.mark()
        await member.send(command)
        text = strip_isolates((await member.reply(since))["text"])
        assert "start with Long sequences and sharded data parallelism" in text.replace(
            "Start with", "start with"), command
        assert "Model and pipeline parallelism" not in text, command
    alone = Learner(api, api.user(1002, "Lin"))  # in a private chat, the bot's default
    since = alone.mark()
    await alone.send("/help")
    assert "start with Model and pipeline parallelism" in strip_isolates(
        (await alone.reply(since))["text"])


async def test_a_demoted_admin_is_no_longer_noted_as_the_groups_manager(
        bot: Running, api: FakeBotAPI) -> None:
    """Ada set the group up as its admin (noted: her dashboard lists the group, "You manage
    this group"), then was demoted. Her next /settings is refused, and with it the note goes;
    getChatMember failing says nothing about her, so a refusal then keeps it."""
    group = api.group_chat(GROUP)
    ada = Learner(api, api.user(1001, "Ada"), group)
    api.members[(GROUP, 1001)] = "administrator"
    since = ada.mark()
    await ada.send("/settings quiz long-context")
    assert (await ada.reply(since))["text"].startswith("Saved.")
    assert [g for g, _ in await bot.app.store.read(groups_sql.managed_groups, "telegram",
                                                  "1001")] == [str(GROUP)]

    api.inject("getChatMember", 500, "Internal Server Error")  # Telegram cannot tell
    since = ada.mark()
    await ada.send("/settings quiz parallelism")
    assert "Only this group's admins" in (await ada.reply(since))["text"]
    assert [g for g, _ in await bot.app.store.read(groups_sql.managed_groups, "telegram",
                                                  "1001")] == [str(GROUP)]

    api.members[(GROUP, 1001)] = "member"  # demoted
    since = ada.mark()
    await ada.send("/settings quiz parallelism")
    assert "Only this group's admins" in (await ada.reply(since))["text"]
    assert await bot.app.store.read(groups_sql.managed_groups, "telegram", "1001") == []
