"""The reply plan on the wire: Bot API calls per answer, one owner per button, HTML-safe
titles. Real python-telegram-bot against the fake Bot API on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import yaml

from adapters.telegram import TelegramAdapter
from bot.app.compose import open_app
from bot.app.config import load_config
from bot.domain import payloads as payload
from bot.domain.results import Actor
from bot.store.commands import sessions_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data, buttons, is_question
from tests.adapters.telegram.support import TOKEN, AnswerKey, Running, write_config
from tests.conftest import FIXTURES

TITLE = "Pipes & <Tensors>"


def next_or_summary(message: dict) -> bool:
    """The next question, or the summary (photos carry no text)."""
    return is_question(message) or "Finished" in message.get("text", "")


async def play_through(learner: Learner, count: int, pick: Callable[[dict], str], *,
                       by_label: bool = False, quiz: str = "parallelism") -> dict:
    """/quiz, then `count` answers (`pick`: a button's data, or its label); the summary."""
    since = learner.mark()
    await learner.send(f"/quiz {quiz}")
    question = await learner.reply(since, is_question)
    for _ in range(count):
        since = learner.mark()
        chosen = pick(question)
        await learner.toast(await learner.press(question, chosen) if by_label
                            else await learner.tap(question, chosen))
        question = await learner.reply(since, next_or_summary)
    return question


async def test_an_answered_question_costs_three_bot_api_calls(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    learner = Learner(api, api.user(1001, "Alice"))
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    photos = 0
    for n in range(8):
        since = learner.mark()
        pick = key.right(question["text"]) if n % 2 else key.wrong(question["text"])
        query = await learner.press(question, pick)
        await learner.toast(query)
        if n < 7:
            nxt = await learner.reply(since, is_question)
        else:
            nxt = await learner.reply(since, lambda m: m["text"].startswith("Finished"))
        until = await learner.barrier()
        calls = [c.method for c in api.calls[since:until]
                 if c.method not in ("getUpdates", "getMe") and c.ok]
        # the ack, one edit that turns the question into its result and explanation, and
        # one message with what comes next (the barrier's /help reply is `until` itself);
        # an explanation with a schedule diagram adds the picture after the edit
        photos += calls.count("sendPhoto")
        expected = ["answerCallbackQuery", "editMessageText", "sendMessage"]
        assert calls in (expected, [*expected[:2], "sendPhoto", expected[2]]), calls
        edited = api.messages[(learner.chat_id, question["message_id"])]
        assert "Correct!" in edited["text"] or "Not quite." in edited["text"]
        assert [[b["text"] for b in row] for row in buttons(edited)] == [["⚑ Report a problem"]]
        question = nxt
    assert photos == sum(q.image is not None for q in key.quiz.questions) > 0


async def test_someone_elses_buttons_of_every_kind_are_refused(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    group = api.group_chat(-1009)
    api.group_limit = 10**6  # a whole solo quiz played in a group would hit the flood limit
    alice = Learner(api, api.user(1001, "Alice"), group)
    bob = Learner(api, api.user(2002, "Bob"), group)
    not_yours = bot.cat.t("en", "answer.not_yours")

    def not_your_button(command: str) -> str:  # and what gives Bob his own
        return bot.cat.t("en", "error.not_your_button", command=command)

    async def refused(message: dict, label: str, expected: str) -> None:
        before = len(api.calls)
        query = await bob.press(message, label)
        assert (await bob.toast(query)).params["text"] == expected
        until = await bob.barrier()
        changed = [c for c in api.calls[before:until] if c.ok and c.method in (
            "editMessageText", "editMessageReplyMarkup")]
        assert changed == []  # nothing of Alice's was touched

    since = alice.mark()
    await alice.send("/start")
    welcome = await alice.reply(since)
    await refused(welcome, "اردو", not_your_button("/language"))  # language
    await refused(welcome, "▶ Start", not_your_button("/quiz"))  # start
    since = alice.mark()
    await alice.send("/reset")
    confirm = await alice.reply(since)
    await refused(confirm, "Yes, delete", not_your_button("/reset"))  # reset
    # Alice's questions go to her private chat; Bob's taps there are forged callbacks.
    alice = Learner(api, api.user(1001, "Alice"))
    bob = Learner(api, api.user(2002, "Bob"), alice.chat)
    since = alice.mark()
    await alice.send("/quiz parallelism")
    question = await alice.reply(since, is_question)
    await refused(question, key.right(question["text"]), not_yours)  # answer
    for n in range(8):
        since = alice.mark()
        query = await alice.press(question, key.wrong(question["text"]) if n == 0
                                  else key.right(question["text"]))
        await alice.toast(query)
        question = await alice.reply(since, next_or_summary)
    summary = question
    await refused(summary, "🔁 Review missed", not_your_button("/review"))  # review
    await refused(summary, "↻ Try again", not_your_button("/quiz"))  # retry
    assert await bot.app.store.read(sessions_sql.active_session,
                                    "telegram", "2002", "parallelism") is None
    assert (await bot.app.engine.stats(alice_actor())).attempts == 1
    assert await bot.app.engine.language(bob_actor()) == "en"


def alice_actor() -> Actor:
    return Actor("telegram", "1001")


def bob_actor() -> Actor:
    return Actor("telegram", "2002", None, "Bob")


@pytest.fixture
async def ampersand_bot(tmp_path: Path, api: FakeBotAPI) -> AsyncIterator[Running]:
    content = tmp_path / "content"
    content.mkdir()
    data = yaml.safe_load((FIXTURES / "content" / "minimal.yaml").read_text(encoding="utf-8"))
    data["title"] = {"en": TITLE, "ur": TITLE}
    (content / "tiny.yaml").write_text(yaml.safe_dump(data, allow_unicode=True),
                                       encoding="utf-8")
    path = write_config(tmp_path, api)
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["content"] = {"dir": str(content)}
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    async with open_app(load_config(path, env={"TELEGRAM_BOT_TOKEN": TOKEN})) as app:
        adapter = TelegramAdapter(app)
        await adapter.start()
        try:
            yield Running(app, adapter)
        finally:
            await adapter.stop()


async def test_a_title_with_html_characters_reaches_telegram_intact(
        ampersand_bot: Running, api: FakeBotAPI) -> None:
    learner = Learner(api, api.user(1001, "Alice"))
    summary = await play_through(learner, 2, lambda q: button_data(q)[0], quiz="tiny")
    assert summary["text"].startswith(f"Finished {TITLE}:")  # parsed as Telegram parses HTML
    for command, heading in (("/stats", f"Your stats: {TITLE}"),
                             ("/leaderboard", f"Global leaderboard: {TITLE}")):
        since = learner.mark()
        await learner.send(command)
        reply = await learner.reply(since)
        # /stats comes as a photo with its text as the caption once there is progress
        assert (reply.get("text") or reply.get("caption", "")).startswith(heading)
    assert not api.errors_of("sendMessage") and not api.errors_of("sendPhoto")
    assert payload.decode(button_data(summary)[-1]) == payload.RetryPayload.of("1001", "tiny")


@pytest.mark.parametrize("second_start", ["↻ Try again", "🔁 Review missed", "/quiz parallelism"])
async def test_a_second_start_seconds_later_joins_the_first(
        bot: Running, api: FakeBotAPI, key: AnswerKey, second_start: str) -> None:
    # two devices (or a double tap): before, each started an attempt and posted question 1
    alice = Learner(api, api.user(1001, "Alice"))
    missed = iter([True] + [False] * 7)
    summary = await play_through(alice, 8, lambda q: (key.wrong if next(missed) else key.right)(
        q["text"]), by_label=True)
    since = alice.mark()
    if second_start.startswith("/"):
        await alice.send(second_start)
        await alice.send(second_start)
        queries: list[str] = []
    else:
        queries = [await alice.press(summary, second_start) for _ in range(2)]
    toasts = [(await alice.toast(q)).params.get("text", "") for q in queries]
    until = await alice.barrier()
    posted = [c.result for c in alice.sent(since, until, ("sendMessage", "sendPhoto"))]
    questions = [m for m in posted if is_question(m)]
    assert len(questions) == 1, posted
    note = bot.cat.t("en", "question.joined", number=1)
    assert note in toasts or any(note == m.get("text") for m in posted), (toasts, posted)
    active = await bot.app.store.read(sessions_sql.active_session,
                                      "telegram", "1001", "parallelism")
    pressed = payload.decode(button_data(questions[0])[0])
    assert active is not None and active.position == 0
    assert getattr(pressed, "session_id", None) == active.id  # the one posted is the one kept
