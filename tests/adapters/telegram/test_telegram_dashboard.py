"""/dashboard on Telegram: a web_app button in private, a deep link in groups, and the
group view's membership check through getChatMember on the running bot."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from aiohttp import ClientSession

from bot.store.commands.dashboard_sql import chat_titles
from tests.adapters.telegram.dashboard_bot import PUBLIC_URL, dashboard_bot, finish_quiz
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, buttons
from tests.adapters.telegram.support import TOKEN, AnswerKey, BotFactory
from tests.dashboard_support import init_data

GROUP = -1001234567890


async def test_private_dashboard_is_a_web_app_button(tmp_path: Path, api: FakeBotAPI) -> None:
    async with dashboard_bot(tmp_path, api) as running:
        learner = Learner(api, api.user(1001, "Alice"))
        since = learner.mark()
        await learner.send("/dashboard")
        reply = await learner.reply(since)
        assert reply["text"] == running.app.catalogue.t("en", "dashboard.open")
        [[button]] = buttons(reply)
        assert button["web_app"] == {"url": f"{PUBLIC_URL}/app"}
        english = {c["command"] for c in api.commands[None]}
        assert "dashboard" in english and "dashboard" in {c["command"] for c in api.commands["ur"]}


async def test_group_dashboard_links_to_the_private_chat_which_opens_the_group_view(
        tmp_path: Path, api: FakeBotAPI) -> None:
    async with dashboard_bot(tmp_path, api) as running:
        cat = running.app.catalogue
        group = api.group_chat(GROUP)
        alice = api.user(1001, "Alice", language_code="ur")
        in_group = Learner(api, alice, group)
        since = in_group.mark()
        await in_group.send("/dashboard")
        reply = await in_group.reply(since)
        [[button]] = buttons(reply)
        assert "web_app" not in button  # web_app buttons only work in private chats
        link = button["url"]
        assert link.startswith(f"https://t.me/{api.bot['username']}?start=dashg")

        private = Learner(api, alice)
        since = private.mark()
        await private.send("/start " + link.split("start=")[1])
        opened = await private.reply(since)
        assert opened["text"] == cat.t("ur", "dashboard.group_open")
        [[web_app]] = buttons(opened)
        assert web_app["web_app"]["url"] == f"{PUBLIC_URL}/app?group={GROUP}"


async def test_group_view_asks_telegram_who_is_a_member(tmp_path: Path, api: FakeBotAPI,
                                                        key: AnswerKey) -> None:
    async with dashboard_bot(tmp_path, api) as running:
        group = api.group_chat(GROUP)
        alice = Learner(api, api.user(1001, "Alice"), group)
        await alice.send("/start")  # writing in the group makes her a member of the fake
        api.members[(GROUP, 1002)] = "administrator"
        now = running.app.engine.clock()
        async with ClientSession() as http:
            async def status(user_id: int) -> tuple[int, dict[str, object]]:
                data = init_data(TOKEN, user_id, f"user{user_id}", auth_date=now)
                async with http.get(f"{running.url}/api/groups/{GROUP}",
                                    headers={"Authorization": f"tma {data}"}) as r:
                    return r.status, json.loads(await r.text())

            assert (await status(1003))[0] == 403  # never in the group
            code, view = await status(1001)
            assert code == 200 and view["admin"] is False
            code, view = await status(1002)
            assert code == 200 and view["admin"] is True
        asked = [(c.params["chat_id"], c.params["user_id"]) for c in api.calls
                 if c.method == "getChatMember"]
        assert {(int(c), int(u)) for c, u in asked} >= {(GROUP, 1001), (GROUP, 1002),
                                                        (GROUP, 1003)}


async def test_without_a_public_url_the_dashboard_says_it_is_not_set_up(
        start_bot: BotFactory, api: FakeBotAPI) -> None:
    async with start_bot():
        learner = Learner(api, api.user(1001, "Alice"))
        since = learner.mark()
        await learner.send("/dashboard")
        reply = await learner.reply(since)
        # what to do, not only what is wrong: who can turn it on, and what shows meanwhile
        assert reply["text"] == (
            "The dashboard is not set up on this bot; whoever runs the bot can turn it on. "
            "Meanwhile /stats shows your progress.")
        assert not buttons(reply)


@pytest.mark.parametrize("wrong", [{1}])
async def test_quiz_played_in_telegram_shows_up_in_the_api(tmp_path: Path, api: FakeBotAPI,
                                                           key: AnswerKey, wrong: set[int]
                                                           ) -> None:
    async with dashboard_bot(tmp_path, api) as running:
        learner = Learner(api, api.user(1001, "Alice", "Smith"))
        await finish_quiz(learner, key, wrong)
        data = init_data(TOKEN, 1001, "Alice", auth_date=running.app.engine.clock())
        async with ClientSession() as http, http.get(
                f"{running.url}/api/me", headers={"Authorization": f"tma {data}"}) as r:
            me = await r.json()
        main = next(q for q in me["quizzes"] if q["id"] == "parallelism")
        assert (main["best"], main["last"]) == (7, 7)
        assert me["user"]["name"] == "Alice Smith"
        assert [m["question"] for m in me["misses"]] == [key.quiz.questions[1].id]


async def test_a_groups_title_is_kept_from_its_updates_and_renames(
        tmp_path: Path, api: FakeBotAPI) -> None:
    async with dashboard_bot(tmp_path, api) as running:

        async def title() -> str | None:
            for _ in range(500):  # the update is handled in the background (bounded: 10 s)
                titles = await running.app.store.read(chat_titles, "telegram", [str(GROUP)])
                if titles.get(str(GROUP)) != seen:
                    return titles.get(str(GROUP))
                await asyncio.sleep(0.02)
            return seen

        seen: str | None = None
        group = api.group_chat(GROUP, title="Pipeline Club")
        alice = Learner(api, api.user(1001, "Alice"), group)
        await alice.send("/help")
        seen = await title()
        assert seen == "Pipeline Club"
        renamed = {**group, "title": "Pipeline Club 2"}
        update = api.message(api.user(1001, "Alice"), "", renamed)
        del update["message"]["text"]
        update["message"]["new_chat_title"] = "Pipeline Club 2"
        await api.push_update(update)
        assert await title() == "Pipeline Club 2"


async def test_a_group_seen_without_a_title_is_asked_for_it_once(
        tmp_path: Path, api: FakeBotAPI) -> None:
    async with dashboard_bot(tmp_path, api) as running:
        untitled = {"id": GROUP, "type": "supergroup"}  # an update that carries no title
        api.chats[GROUP] = {**untitled, "title": "Pipeline Club"}  # what getChat knows
        alice = Learner(api, api.user(1001, "Alice"), untitled)
        await alice.barrier()
        await alice.barrier()  # later updates do not ask again
        assert await running.app.store.read(chat_titles, "telegram", [str(GROUP)]) == {
            str(GROUP): "Pipeline Club"}
        assert len(api.calls_of("getChat")) == 1


async def test_a_group_the_bot_was_removed_from_says_so_not_members_only(
        tmp_path: Path, api: FakeBotAPI) -> None:
    """A teacher opening the page of a group the bot was removed from was told 'This group's
    page is for its members only' (untrue, and no way on): Telegram answers getChatMember
    with 'chat not found' there, so the API says 403 {"error": "bot_gone"} and the page says
    to add the bot back; a member who left is still just not a member."""
    async with dashboard_bot(tmp_path, api) as running:
        group = api.group_chat(GROUP)
        alice = Learner(api, api.user(1001, "Alice"), group)
        since = alice.mark()
        await alice.send("/start")
        await alice.reply(since)  # answered before the bot is removed
        now = running.app.engine.clock()
        async with ClientSession() as http:
            async def status(user_id: int) -> tuple[int, object]:
                data = init_data(TOKEN, user_id, f"user{user_id}", auth_date=now)
                async with http.get(f"{running.url}/api/groups/{GROUP}",
                                    headers={"Authorization": f"tma {data}"}) as r:
                    return r.status, (await r.json())["error"] if r.status != 200 else ""

            api.members[(GROUP, 1002)] = "left"
            assert await status(1002) == (403, "forbidden")  # a member who left
            del api.chats[GROUP]  # the bot was removed: Telegram no longer knows it there
            assert await status(1001) == (403, "bot_gone")
