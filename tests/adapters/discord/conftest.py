"""Fixtures: a fake Discord, a config pointing at it, the adapter running on a real SQLite
file, and helpers that find the right button through the quiz file."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from adapters.discord import DiscordAdapter, replies
from adapters.discord.views import MARKDOWN
from bot.app.compose import App, open_app
from bot.app.config import load_config
from bot.domain.quiz import Question, Quiz, default_content_dir, load_quizzes
from bot.present.render import content_text

from .fake_discord import TOKEN, FakeDiscord, Interaction, Message, user

GUILD, CHANNEL = 1_400_000_000_000_000_001, 1_400_000_000_000_000_002
ALICE = user(1_500_000_000_000_000_001, "alice")
PLAY = {"quiz": "parallelism"}  # /quiz with a quiz named (no quiz: the catalogue)
BOB = user(1_500_000_000_000_000_002, "bob")
QUIZ: Quiz = load_quizzes([default_content_dir()])["parallelism"]


@pytest.fixture(autouse=True)
def prompt_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The defer timer is the test's, not the machine's: the engine is never "slow" unless a
    test says so (one that wants the deferred path sets DEFER_AFTER itself), so a loaded
    machine cannot turn an expected callback 7 into a deferred 6."""
    monkeypatch.setattr(replies, "DEFER_AFTER", 60.0)


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord(guilds={GUILD: CHANNEL})
    await fake.start()
    try:
        yield fake
    finally:
        await fake.close()
    assert not fake.unhandled, f"the bot called endpoints the fake lacks: {fake.unhandled}"
    for ix in fake.interactions.values():
        if ix.expired or not ix.expect_reply:
            continue
        assert ix.callback is not None, f"interaction {ix.id} got no callback"
        # the callback is the first thing the bot sent on it (no wall-clock check here: a
        # loaded machine is slow, not wrong; `timely` deferring is tested with a slow engine)
        assert ix.events[0][0].startswith("callback"), f"{ix.id} sent {ix.events} first"


def write_config(tmp_path: Path, fake: FakeDiscord, *, content: Path | None = None,
                 **discord: Any) -> Path:
    """A config file pointing at the fake and at a SQLite file in tmp_path (and at `content`,
    e.g. the `process_content` fixture, as its content folder)."""
    data: dict[str, Any] = {
        "storage": {"url": f"sqlite:///{tmp_path / 'quiz.db'}"},
        "telegram": {"enabled": False},
        "discord": {"api_base_url": fake.api_base_url, "guild_ids": [GUILD], **discord},
    }
    if content is not None:
        data["content"] = {"dir": str(content)}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@asynccontextmanager
async def running_adapter(path: Path, *, ready: bool = True
                          ) -> AsyncIterator[tuple[App, DiscordAdapter]]:
    """The app on its database and its started Discord adapter (`ready`: past discord.py's
    READY, guilds and all); stopped on exit."""
    config = load_config(path, env={"DISCORD_BOT_TOKEN": TOKEN})
    async with open_app(config) as app:
        adapter = DiscordAdapter(app, ready_timeout=10.0)
        await adapter.start()
        try:
            if ready:
                assert adapter.client is not None
                await adapter.client.wait_until_ready()
            yield app, adapter
        finally:
            await adapter.stop()


@asynccontextmanager
async def running(path: Path) -> AsyncIterator[App]:
    """The app on its database, with a started Discord adapter; stopped on exit."""
    async with running_adapter(path, ready=False) as (app, _):
        yield app


@pytest.fixture
def config_path(tmp_path: Path, fake: FakeDiscord) -> Path:
    return write_config(tmp_path, fake)


@pytest.fixture
async def bot(config_path: Path) -> AsyncIterator[App]:
    async with running(config_path) as app:
        yield app


# --- driving a conversation ------------------------------------------------------------------


def slow_after_the_ack(fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch, engine: Any,
                       name: str) -> None:
    """Make `engine.<name>` answer only once the newest interaction got its early ack
    ("thinking…", sent after a shortened `replies.DEFER_AFTER`): a read that must run
    inside Discord's three seconds is seen to do so."""
    monkeypatch.setattr(replies, "DEFER_AFTER", 0.05)
    read = getattr(engine, name)

    async def slowly(*args: object, **kwargs: object) -> object:
        pending = list(fake.interactions.values())[-1]
        await fake.wait_for(lambda: pending.callback is not None, what="the early ack")
        return await read(*args, **kwargs)

    monkeypatch.setattr(engine, name, slowly)


async def replied(fake: FakeDiscord, ix: Interaction, followups: int = 0) -> Interaction:
    """Wait for the callback and `followups` follow-up messages of `ix`."""
    await fake.wait_for(lambda: ix.callback is not None and len(ix.followups) >= followups,
                        what=f"a reply with {followups} follow-ups to interaction {ix.id}")
    return ix


async def said(fake: FakeDiscord, ix: Interaction) -> Message:
    """The private answer to a press on a channel message (a round's question or reveal, the
    daily question): acknowledged first (callback 6, before any database work), then said in
    one ephemeral follow-up."""
    await replied(fake, ix, followups=1)
    assert ix.callback is not None and ix.callback.type == 6, ix.events
    assert ix.followups[0].ephemeral
    return ix.followups[0]


async def answer(fake: FakeDiscord, who: dict[str, Any], message: Message,
                 custom_id: str) -> Interaction:
    """Press an answer button and wait for the edit (the question turned into its result and
    explanation) and what comes next."""
    return await replied(fake, await fake.press(who, message, custom_id), followups=1)


def question_on(message: Message, lang: str = "en") -> tuple[Question, list[str]]:
    """The quiz question a question message shows, and its option lines in shown order."""
    lines = message.embeds[0]["description"].splitlines()
    for question in QUIZ.questions:
        if MARKDOWN.escape(content_text(lang, question.text.get(lang))) in lines:
            return question, lines[-len(question.options):]
    raise AssertionError(f"no quiz question on {message.embeds[0]!r}")


def shown_index(message: Message, option: int, lang: str = "en") -> int:
    """Where the quiz file's option `option` stands on this message (the order is shuffled)."""
    question, lines = question_on(message, lang)
    text = MARKDOWN.escape(content_text(lang, question.options[option].text.get(lang)))
    return next(i for i, line in enumerate(lines) if line.endswith(f") {text}"))


def right_id(message: Message, lang: str = "en") -> str:
    """custom_id of the right answer's button, found through the quiz file."""
    question, _ = question_on(message, lang)
    return button_for(message, shown_index(message, question.correct, lang))


def wrong_id(message: Message, lang: str = "en") -> str:
    """custom_id of some wrong answer's button."""
    question, _ = question_on(message, lang)
    wrong = (question.correct + 1) % len(question.options)
    return button_for(message, shown_index(message, wrong, lang))


def button_for(message: Message, shown: int) -> str:
    """custom_id of the button lettered for shown option `shown` (rows run right to left
    in Urdu, so the letter decides, not the position)."""
    return str(message.button("ABCDEFGHIJ"[shown])["custom_id"])


async def settle() -> None:
    """Give the bot a moment to send anything more. Only used to assert that nothing else
    arrives; waiting for something expected always goes through `fake.wait_for`."""
    await asyncio.sleep(0.2)
