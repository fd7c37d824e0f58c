"""Double presses, stale and foreign buttons, malformed ids, Discord refusing or expiring."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from adapters.discord import handlers, replies
from bot.app.compose import App
from bot.app.logs import MASK
from bot.domain import payloads as payload
from bot.domain.results import Actor
from bot.present.i18n import person
from bot.present.plan import draw_pictures
from bot.store.commands import sessions_sql

from .conftest import (
    ALICE,
    BOB,
    CHANNEL,
    GUILD,
    PLAY,
    answer,
    replied,
    right_id,
    running,
    settle,
    write_config,
    wrong_id,
)
from .fake_discord import TOKEN, FakeDiscord, Message

CHANNEL_POST = r"^/channels/\d+/messages$"


async def start_quiz(fake: FakeDiscord, who: dict[str, Any], guild: int | None = GUILD,
                     ) -> Message:
    """/quiz, and the question message it answered with."""
    ix = await replied(fake, await fake.slash(who, "quiz", guild=guild, options=PLAY))
    assert ix.original is not None
    return ix.original


async def test_someone_elses_buttons_of_every_kind_change_nothing(fake: FakeDiscord,
                                                                   bot: App) -> None:
    """Alice's messages are ephemeral in a server, but the rule must not rest on that: the
    owner in each button's payload is what refuses Bob, and nothing of Alice's changes."""
    def refusal(command: str) -> str:  # and what gives Bob his own
        return bot.catalogue.t("en", "error.not_your_button", command=command)

    async def refused(message: Message, label: str, command: str) -> None:
        ix = await replied(fake, await fake.press(BOB, message, message.button(label)[
            "custom_id"]))
        assert ix.original is not None and ix.original.ephemeral
        assert ix.original.content == refusal(command)
        assert ix.callback is not None and ix.callback.type == 4  # a note, not an edit

    language = (await replied(fake, await fake.slash(ALICE, "language", guild=GUILD))).original
    assert language is not None
    await refused(language, "اردو", "/language")
    reset = (await replied(fake, await fake.slash(ALICE, "reset", guild=GUILD))).original
    assert reset is not None
    await refused(reset, "Yes, delete", "/reset")
    question = await start_quiz(fake, ALICE)
    for n in range(8):
        ix = await answer(fake, ALICE, question, wrong_id(question) if n == 0
                          else right_id(question))
        question = ix.followups[0]
    await refused(question, "🔁 Review missed", "/review")
    await refused(question, "↻ Try again", "/quiz")
    assert await bot.store.read(sessions_sql.active_session,
                                "discord", BOB["id"], "parallelism") is None
    assert await bot.engine.language(Actor("discord", BOB["id"])) == "en"
    assert (await bot.engine.stats(Actor("discord", ALICE["id"]))).attempts == 1  # not reset


async def test_double_press_is_counted_once(fake: FakeDiscord, bot: App) -> None:
    question = await start_quiz(fake, ALICE)
    pick = right_id(question)
    first, second = await asyncio.gather(fake.press(ALICE, question, pick),
                                         fake.press(ALICE, question, pick))
    await fake.wait_for(lambda: first.callback is not None and second.callback is not None)
    kinds = sorted(ix.callback.type for ix in (first, second) if ix.callback)
    assert kinds == [4, 7]  # one edit of the question, one note
    accepted, repeated = (first, second) if first.callback.type == 7 else (second, first)
    await replied(fake, accepted, followups=1)
    await settle()
    assert repeated.original is not None and repeated.original.ephemeral
    assert repeated.original.content == "You already answered this one."
    assert repeated.followups == []
    session = await bot.store.read(sessions_sql.active_session,
                                   "discord", ALICE["id"], "parallelism")
    assert session is not None and (session.position, session.score) == (1, 1)
    assert len(await bot.store.read(sessions_sql.answers, session.id)) == 1


async def test_stale_presses(fake: FakeDiscord, bot: App) -> None:
    question = await start_quiz(fake, ALICE)
    # a button for question 5 while the session is at question 1 (forged or from a bug)
    session_id = payload.decode(question.buttons[0]["custom_id"]).session_id  # type: ignore[union-attr]
    forged = payload.encode_answer(session_id, 4, 0)
    question.components[0]["components"][0]["custom_id"] = forged
    ix = await replied(fake, await fake.press(ALICE, question, forged), followups=1)
    assert ix.original is not None and ix.original.ephemeral
    assert ix.original.content.startswith("That question is no longer active")
    assert ix.followups[0].embeds[0]["title"].startswith("Question 1/8")

    # the session is abandoned (Try again elsewhere): its old buttons are over. It has an
    # answer first: an unanswered attempt seconds old is joined by a second start, not
    # abandoned (library.JOIN_SECONDS)
    current = (await answer(fake, ALICE, ix.followups[0], right_id(ix.followups[0]))
               ).followups[0]
    assert current.embeds[0]["title"].startswith("Question 2/8")
    await bot.engine.restart(Actor("discord", ALICE["id"], str(GUILD)))
    ix = await replied(fake, await fake.press(ALICE, current, right_id(current)))
    await settle()
    assert ix.original is not None and ix.original.content.startswith("That quiz is over")
    assert ix.followups == []


async def test_someone_elses_buttons_are_refused(fake: FakeDiscord, bot: App) -> None:
    question = await start_quiz(fake, ALICE)
    ix = await replied(fake, await fake.press(BOB, question, right_id(question)))
    assert ix.original is not None and ix.original.ephemeral
    assert ix.original.content.startswith("This question belongs to someone else")
    session = await bot.store.read(sessions_sql.active_session,
                                   "discord", ALICE["id"], "parallelism")
    assert session is not None and session.position == 0
    assert await bot.store.read(sessions_sql.active_session,
                                "discord", BOB["id"], "parallelism") is None

    ix = await replied(fake, await fake.slash(ALICE, "help", guild=GUILD))
    help_message = ix.original
    assert help_message is not None
    ix = await replied(fake, await fake.press(BOB, help_message,
                                              help_message.button("▶ Start")["custom_id"]))
    assert ix.original is not None and ix.original.ephemeral
    assert ix.original.content == \
        "These buttons belong to whoever asked for them. For your own, send /quiz"
    assert await bot.store.read(sessions_sql.active_session,
                                "discord", BOB["id"], "parallelism") is None


@pytest.mark.parametrize("custom_id", ["a1:zz", "a1:1:2", "q1:bogus:", "q9:start:x"])
async def test_our_malformed_buttons_get_a_note(fake: FakeDiscord, bot: App,
                                                custom_id: str) -> None:
    question = await start_quiz(fake, ALICE)
    question.components[0]["components"][0]["custom_id"] = custom_id
    ix = await replied(fake, await fake.press(ALICE, question, custom_id))
    assert ix.original is not None and ix.original.ephemeral
    assert ix.original.content == "That button is no longer valid. Send /quiz to continue."


async def test_foreign_buttons_are_ignored(fake: FakeDiscord, bot: App,
                                           caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="adapters.discord")
    question = await start_quiz(fake, ALICE)
    question.components[0]["components"][0]["custom_id"] = "poll:vote:3"
    ix = await fake.press(ALICE, question, "poll:vote:3")
    ix.expect_reply = False
    await settle()
    assert ix.callback is None
    assert "not one of ours" in caplog.text
    # still alive
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options=PLAY))
    assert ix.original is not None


async def test_quiz_errors_become_short_notes(fake: FakeDiscord, bot: App) -> None:
    ix = await replied(fake, await fake.slash(ALICE, "review", guild=GUILD))
    assert ix.original is not None and ix.original.ephemeral
    assert ix.original.content.startswith("Nothing to review")
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                              options={"quiz": "no_such_quiz"}))
    assert ix.original is not None and ix.original.ephemeral
    assert ix.original.content.startswith(r"There is no quiz called no\_such\_quiz.")
    ix = await replied(fake, await fake.slash(ALICE, "nonexistent", guild=GUILD))
    assert ix.original is not None and ix.original.content.startswith("Unknown command")


async def test_expired_interaction_is_logged_not_fatal(
        fake: FakeDiscord, bot: App, caplog: pytest.LogCaptureFixture) -> None:
    question = await start_quiz(fake, ALICE)
    ix = await fake.press(ALICE, question, right_id(question), expired=True)
    await fake.wait_for(lambda: ix.refused == 1)
    await settle()
    assert "expired before we could answer" in caplog.text
    assert ix.callback is None and ix.followups == []
    # the answer is in the database; /quiz picks up at question 2
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options=PLAY))
    assert ix.original is not None
    assert ix.original.embeds[0]["title"].startswith("Question 2/8")


async def test_rate_limited_follow_up_is_retried(fake: FakeDiscord, bot: App) -> None:
    question = await start_quiz(fake, ALICE)
    fake.rate_limit("POST", r"^/webhooks/\d+/[^/]+$")
    ix = await answer(fake, ALICE, question, wrong_id(question))
    assert "Not quite" in question.embeds[0]["description"]
    posts = [p for m, p in fake.requests if m == "POST" and p.startswith("/webhooks/")]
    assert len(posts) == len(ix.followups) + 1  # the 429, then the same request again


async def test_missing_permission_to_announce(tmp_path: Path, fake: FakeDiscord,
                                              caplog: pytest.LogCaptureFixture) -> None:
    fake.fail("POST", CHANNEL_POST, 403, {"message": "Missing Permissions", "code": 50013})
    async with running(write_config(tmp_path, fake, announce_results=True)) as app:
        question = await start_quiz(fake, BOB)
        for _ in range(8):
            ix = await answer(fake, BOB, question, right_id(question))
            question = ix.followups[0]
        assert "8/8" in question.text
        await fake.wait_for(lambda: ("POST", f"/channels/{CHANNEL}/messages") in fake.requests)
        await settle()
        assert "could not announce a result" in caplog.text
        assert fake.channel_messages == []
        # the next quiz still works, and this time the channel hears about it
        ix = await replied(fake, await fake.press(BOB, question,
                                                  question.button("↻ Try again")["custom_id"]))
        question = ix.original
        for _ in range(8):
            ix = await answer(fake, BOB, question, right_id(question))
            question = ix.followups[0]
        await fake.wait_for(lambda: len(fake.channel_messages) == 1)
        assert fake.channel_messages[0].content == \
            "Bob scored 8/8 on Model and pipeline parallelism."
        assert (await app.engine.stats(Actor("discord", BOB["id"]))).attempts == 2


async def test_an_announcement_is_in_the_servers_language(tmp_path: Path,
                                                          fake: FakeDiscord) -> None:
    """The server's admins chose Urdu for its posts; Bob reads English. His result, posted
    for the whole channel, is in the server's Urdu, as its rounds are (it was in Bob's
    English: each member's own language leaked into the shared channel)."""
    async with running(write_config(tmp_path, fake, announce_results=True)) as app:
        await replied(fake, await fake.slash(ALICE, "settings", guild=GUILD,
                                             options={"language": "ur"}))
        question = await start_quiz(fake, BOB)
        for _ in range(8):
            ix = await answer(fake, BOB, question, right_id(question))
            question = ix.followups[0]
        assert "8/8" in question.text  # Bob's own messages: his English
        await fake.wait_for(lambda: len(fake.channel_messages) == 1)
        title = app.engine.quiz_info("ur", "parallelism").title
        assert fake.channel_messages[0].content == app.catalogue.t(
            "ur", "summary.public", name=person("ur", "Bob"), score=8, total=8, title=title)


async def test_token_never_logged(tmp_path: Path, fake: FakeDiscord,
                                  caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with running(write_config(tmp_path, fake)):
        logging.getLogger("discord.http").warning("leaked %s", TOKEN)
        question = await start_quiz(fake, ALICE)
        await answer(fake, ALICE, question, right_id(question))
    assert f"leaked {MASK}" in caplog.text
    assert TOKEN not in caplog.text


async def test_a_slow_engine_is_acknowledged_first(fake: FakeDiscord, bot: App,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replies, "DEFER_AFTER", 0.05)

    def slow(call: Callable[..., Awaitable[object]]) -> Callable[..., Awaitable[object]]:
        async def slowly(*args: object, **kwargs: object) -> object:
            # a busy database: it finishes only once the interaction was acknowledged, so
            # the ack must come while the engine still works (an event, not a stopwatch)
            ix = list(fake.interactions.values())[-1]
            await fake.wait_for(lambda: ix.callback is not None, what="the early ack")
            return await call(*args, **kwargs)
        return slowly

    monkeypatch.setattr(bot.engine, "start", slow(bot.engine.start))
    monkeypatch.setattr(bot.engine, "answer", slow(bot.engine.answer))
    ix = await fake.slash(ALICE, "quiz", guild=GUILD, options=PLAY)
    question = await fake.wait_for(lambda: ix.original if ix.original and ix.original.embeds
                                   else None, what="the thinking message to be filled")
    assert ix.callback is not None and ix.callback.type == 5  # "thinking…" first
    assert question.ephemeral and question.embeds[0]["title"].startswith("Question 1/8")

    ix = await answer(fake, ALICE, question, right_id(question))
    assert ix.callback is not None and ix.callback.type == 6  # deferred update
    assert [what for what, _ in ix.events] == ["callback 6", "edit", "follow-up"]
    assert all(b["disabled"] for b in question.buttons  # edited through @original
               if b["custom_id"].startswith("a1:"))  # ("Report a problem" stays pressable)
    assert "Correct!" in question.embeds[0]["description"]
    assert ix.followups[0].embeds[0]["title"].startswith("Question 2/8")


async def test_drawing_the_reply_is_inside_the_three_seconds(
        fake: FakeDiscord, bot: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply's pictures (a schedule diagram takes ~0.1 s, more on a busy machine) are drawn
    while the 3-second timer runs: slow drawing gets the early ack, not a late edit."""
    question = await start_quiz(fake, ALICE)
    monkeypatch.setattr(replies, "DEFER_AFTER", 0.05)

    async def slow_draw(*cards: object) -> None:
        # drawing finishes only once the press was acknowledged (an event, not a stopwatch)
        ix = list(fake.interactions.values())[-1]
        await fake.wait_for(lambda: ix.callback is not None, what="the ack before drawing")
        await draw_pictures(*cards)  # type: ignore[arg-type]

    monkeypatch.setattr(handlers, "draw_pictures", slow_draw)
    ix = await answer(fake, ALICE, question, right_id(question))
    assert ix.callback is not None and ix.callback.type == 6  # deferred update, then the edit
    assert [what for what, _ in ix.events] == ["callback 6", "edit", "follow-up"]
    assert "Correct!" in question.embeds[0]["description"]
    assert ix.followups[0].embeds[0]["title"].startswith("Question 2/8")


async def test_unexpected_errors_are_logged_and_apologised_for(
        fake: FakeDiscord, bot: App, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    question = await start_quiz(fake, ALICE)
    monkeypatch.setattr(bot.engine, "stats", broken)
    monkeypatch.setattr(bot.engine, "answer", broken)
    for ix in (await fake.slash(ALICE, "stats", guild=GUILD),
               await fake.press(ALICE, question, right_id(question))):
        await replied(fake, ix)
        assert ix.original is not None and ix.original.ephemeral
        assert ix.original.content.startswith("Something went wrong on our side")
    assert caplog.text.count("RuntimeError: disk on fire") == 2
