"""/settings in a group: its admins (by getChatMember) choose the quiz and language that
rounds and /quiz there use; members see them and are politely refused a change."""

from __future__ import annotations

from bot.store.commands import rounds_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner
from tests.adapters.telegram.support import Running

GROUP = -1001234


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
    assert "Quiz for rounds and /quiz here: " in text and "(long-context)" in text
    since = admin.mark()
    await admin.send("/settings language ur")
    assert "Language of round posts: اردو" in (await admin.reply(since))["text"]

    since = member.mark()
    await member.send("/settings")
    shown = (await member.reply(since))["text"]
    assert "(long-context)" in shown and "/settings in a private chat" in shown

    since = member.mark()
    await member.send("/round")  # no quiz named: the group's, in the group's language
    await member.reply(since, lambda m: bool(m.get("reply_markup")))  # question 1 posted
    row = await bot.app.store.read(rounds_sql.active_round, "telegram", str(GROUP))
    assert row is not None and (row.quiz_id, row.lang) == ("long-context", "ur")
