"""Rewards on the fake Discord: `/reward set` refused for non-admins, without Manage Roles
and for a role above the bot's; a round's podium grants the role once (with a DM), a member
holding it is left alone, and a role removed by hand is not added back until earned again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapters.discord import replies
from adapters.discord.role_rewards import DiscordRewards
from adapters.discord.views import MARKDOWN
from bot.store.commands import groups_sql

from .conftest import ALICE, BOB, GUILD, PLAY, answer, replied, right_id, running
from .fake_discord import FakeDiscord
from .payloads import ALL_PERMISSIONS
from .test_rounds import Room, letter_of, question_of

BOT_ROLE, SCHOLAR, MODS = "1700000000000000001", "1700000000000000002", "1700000000000000003"


def role(role_id: str, name: str, position: int) -> dict[str, Any]:
    return {"id": role_id, "name": name, "permissions": "0", "position": position, "color": 0,
            "hoist": False, "managed": False, "mentionable": False, "flags": 0}


async def reward_set(fake: FakeDiscord, who: dict[str, Any], role_: dict[str, Any],
                     score: int = 2) -> str:
    ix = await replied(fake, await fake.slash(who, "reward", guild=GUILD, subcommand="set",
                                              options={"quiz": "parallelism", "role": role_,
                                                       "score": score}))
    assert ix.original is not None and ix.original.ephemeral
    return ix.original.content


async def play_round(fake: FakeDiscord, room: Room, right_answers: int) -> None:
    """Alice plays a 2-question round, right on the first `right_answers`."""
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                         options={"seconds": 20, "questions": 2}))
    for number in (1, 2):
        message = await room.question(number)
        question = question_of(message)
        pick = question.correct if number <= right_answers else (question.correct + 1) % 4
        await room.press(ALICE, message, letter_of(message, pick))
        room.advance(20)
        await room.reveal(message)
        room.advance(5)
    fake.channel_messages.clear()  # the next round's "Question 1" is a new message


async def test_a_role_granted_once_and_the_permission_replies(fake: FakeDiscord,
                                                              config_path: Path) -> None:
    fake.roles[GUILD] = [role(BOT_ROLE, "quizbot", 5), role(SCHOLAR, "Scholar", 2),
                         role(MODS, "Mods", 9)]
    fake.member_roles[(GUILD, fake.bot["id"])] = {BOT_ROLE}
    scholar, mods = fake.roles[GUILD][1], fake.roles[GUILD][2]
    async with running(config_path) as app:
        fake.permissions[BOB["id"]] = "0"  # not an admin
        assert await reward_set(fake, BOB, scholar) == \
            "Only members who may Manage Server can do that."
        fake.app_permissions = "0"  # the bot lacks Manage Roles
        assert (await reward_set(fake, ALICE, scholar)).startswith(
            "I cannot grant roles here: give my role the Manage Roles permission")
        fake.app_permissions = ALL_PERMISSIONS
        assert (await reward_set(fake, ALICE, mods)).startswith(
            "Mods sits at or above my highest role")
        assert (await reward_set(fake, ALICE, scholar, score=9)).startswith(
            "Choose a score from 1 to 8")
        assert (await reward_set(fake, ALICE, scholar)).startswith(
            "🏅 Done: reaching 2/8 on Model and pipeline")
        # a server admin's command, as /settings and /daily: noted as the server's manager
        assert [g for g, _ in await app.store.read(groups_sql.managed_groups, "discord",
                                                  ALICE["id"])] == [str(GUILD)]
        assert await app.store.read(groups_sql.managed_groups, "discord", BOB["id"]) == []

        room = Room(fake, app)
        alice = (GUILD, ALICE["id"])
        await play_round(fake, room, 2)  # earns it: granted, and told in a DM
        await fake.wait_for(lambda: fake.role_adds, what="the role granted")
        assert fake.role_adds == [(GUILD, ALICE["id"], SCHOLAR)]
        await fake.wait_for(lambda: any("earned the role Scholar" in m.content
                                        for m in fake.channel_messages), what="the DM")
        await play_round(fake, room, 2)  # earns it again while holding it: left alone
        looked = ("GET", f"/guilds/{GUILD}/members/{ALICE['id']}")
        await fake.wait_for(lambda: fake.requests.count(looked) == 2, what="the second look")
        fake.member_roles[alice].discard(SCHOLAR)  # an admin removes it by hand
        await play_round(fake, room, 1)  # not earned this time: stays removed
        assert fake.role_adds == [(GUILD, ALICE["id"], SCHOLAR)]
        assert SCHOLAR not in fake.member_roles[alice]
        await play_round(fake, room, 2)  # earned again: granted again
        await fake.wait_for(lambda: len(fake.role_adds) == 2, what="the second grant")

        ix = await replied(fake, await fake.slash(ALICE, "reward", guild=GUILD,
                                                  subcommand="remove",
                                                  options=PLAY))
        assert ix.original is not None
        assert ix.original.content.startswith("No more role for Model and pipeline")


async def test_a_solo_quiz_in_the_server_earns_the_role(fake: FakeDiscord,
                                                        config_path: Path) -> None:
    fake.roles[GUILD] = [role(BOT_ROLE, "quizbot", 5), role(SCHOLAR, "Scholar", 2)]
    fake.member_roles[(GUILD, fake.bot["id"])] = {BOT_ROLE}
    async with running(config_path):
        await reward_set(fake, ALICE, fake.roles[GUILD][1], score=8)
        ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options=PLAY))
        question = ix.original
        assert question is not None
        for _ in range(8):
            ix = await answer(fake, ALICE, question, right_id(question))
            (question,) = ix.followups[:1]
        await fake.wait_for(lambda: len(ix.followups) == 2, what="the private note")
        note = ix.followups[1]
        assert note.ephemeral and note.content.startswith(
            "🏅 You reached 8 on Model and pipeline")
        assert fake.role_adds == [(GUILD, ALICE["id"], SCHOLAR)]


async def test_the_role_check_is_inside_the_three_seconds(
        fake: FakeDiscord, config_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """/reward set first reads the bot's own member (a REST call, slow when Discord rate
    limits it): a slow look gets the early ack, not a callback after Discord gave up."""
    fake.roles[GUILD] = [role(BOT_ROLE, "quizbot", 5), role(SCHOLAR, "Scholar", 2)]
    fake.member_roles[(GUILD, fake.bot["id"])] = {BOT_ROLE}
    monkeypatch.setattr(replies, "DEFER_AFTER", 0.05)
    check = DiscordRewards._cannot_grant

    async def slow_check(self: DiscordRewards, interaction: Any, role_: Any) -> str | None:
        pending = list(fake.interactions.values())[-1]
        await fake.wait_for(lambda: pending.callback is not None, what="the early ack")
        return await check(self, interaction, role_)

    monkeypatch.setattr(DiscordRewards, "_cannot_grant", slow_check)
    async with running(config_path):
        ix = await fake.slash(ALICE, "reward", guild=GUILD, subcommand="set",
                              options={"quiz": "parallelism", "role": fake.roles[GUILD][1],
                                       "score": 2})
        done = await fake.wait_for(lambda: ix.original if ix.original and ix.original.content
                                   else None, what="the thinking message to be filled")
        assert ix.callback is not None and ix.callback.type == 5  # "thinking…" first
        assert done.ephemeral and done.content.startswith("🏅 Done: reaching 2/8 on Model")


async def test_a_rounds_reward_dm_is_in_the_members_language(fake: FakeDiscord,
                                                             config_path: Path) -> None:
    """Alice hosts in English, so the round's posts are in English; Bob reads Urdu, and the
    direct message telling him he earned the role is his alone: in Urdu, quiz title and all
    (it was in the round's English)."""
    fake.roles[GUILD] = [role(BOT_ROLE, "quizbot", 5), role(SCHOLAR, "Scholar", 2)]
    fake.member_roles[(GUILD, fake.bot["id"])] = {BOT_ROLE}
    async with running(config_path) as app:
        await reward_set(fake, ALICE, fake.roles[GUILD][1], score=1)
        await replied(fake, await fake.slash(BOB, "language", guild=GUILD,
                                             options={"language": "ur"}))
        room = Room(fake, app)
        await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                             options={"seconds": 20, "questions": 1}))
        message = await room.question(1)
        await room.press(BOB, message, letter_of(message, question_of(message).correct))
        room.advance(20)
        dm = await fake.wait_for(lambda: next(
            (m for m in fake.channel_messages if m.channel_id == fake.dm_channel(BOB)),
            None), what="the DM")
        title = app.engine.quiz_info("ur", "parallelism").title
        assert dm.content == MARKDOWN.escape(app.catalogue.t(
            "ur", "reward.granted", role="Scholar", title=title, score=1,
            server=f"guild {GUILD}"))
        assert "ماڈل اور پائپ لائن متوازیت" in dm.content and "Model" not in dm.content
