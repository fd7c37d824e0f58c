"""The adapter's pure parts, with no network: views, the update processor, the redactor."""

from __future__ import annotations

import asyncio
import logging

import pytest
from telegram import Chat, InlineKeyboardMarkup, Update, User

from adapters.telegram.processor import PerUserUpdateProcessor
from adapters.telegram.views import HTML, actor_of, keyboard_of, text_of
from adapters.telegram.webhook import file_url
from bot.app.logs import MASK, RedactSecrets
from bot.domain import payloads as payload
from bot.domain.results import Actor, MissedQuestion, QuestionPrompt, SessionKind, Summary
from bot.present.i18n import Catalogue
from bot.present.plan import Button, Card, Planner
from tests.adapters.telegram.wire import ApiError, parse_html

TOKEN = "987654:AAFakeTokenForUnitTests_abcdefghijk"


def prompt(lang: str = "en", text: str = "Which is faster?") -> QuestionPrompt:
    return QuestionPrompt(
        session_id=1234567, quiz_id="parallelism", quiz_title="T", lang=lang,
        kind=SessionKind.FULL, position=2, total=8, question_id="q3", text=text,
        options=("a < b & c", "<script>", "x > y", "plain"))


def question_message(catalogue: Catalogue, p: QuestionPrompt, actor: Actor):
    card = Planner(catalogue, HTML, shared_chats=True).question(p, actor)
    return text_of(card), keyboard_of(card)


def test_question_html_escapes_content_and_parses_as_telegram_html(
        catalogue: Catalogue) -> None:
    actor = Actor("telegram", "1", "-100", "Tom <3 & Jerry")
    text, keyboard = question_message(catalogue, prompt(text="Is 2 < 3 & 4 > 1?"), actor)
    plain = parse_html(text)  # raises like Telegram on bad HTML
    assert plain.startswith("For Tom <3 & Jerry:\nQuestion 3/8")
    assert "Is 2 < 3 & 4 > 1?" in plain and "B) <script>" in plain
    assert "<b>A</b>) a &lt; b &amp; c" in text
    row = keyboard.inline_keyboard[0]
    assert [b.text for b in row] == ["A", "B", "C", "D"]
    assert [b.callback_data for b in row] == [payload.encode_answer(1234567, 2, i)
                                              for i in range(4)]
    assert all(len(b.callback_data.encode()) <= 64 for b in row)
    with pytest.raises(ApiError):
        parse_html("1 < 2 <b>bold</i>")


def test_urdu_row_reads_right_to_left(catalogue: Catalogue) -> None:
    _, keyboard = question_message(catalogue, prompt("ur"), Actor("telegram", "1"))
    row = keyboard.inline_keyboard[0]
    assert [b.text for b in row] == ["D", "C", "B", "A"]
    assert [payload.decode(b.callback_data).option for b in row] == [3, 2, 1, 0]


def test_summary_and_reset_buttons_belong_to_the_learner(catalogue: Catalogue) -> None:
    plan = Planner(catalogue, HTML, shared_chats=True)
    learner = Actor("telegram", str(2**52), "-100", "A")
    missed = Summary(1, "parallelism", "T", "en", SessionKind.FULL, 7, 8,
                     (MissedQuestion(2, "q3", "?", "!"),))
    perfect = Summary(1, "parallelism", "T", "en", SessionKind.FULL, 8, 8, ())

    def pressed(card):
        return [payload.decode(b.callback_data) for b in keyboard_of(card).inline_keyboard[0]]

    owner = learner.user_id
    assert pressed(plan.summary(missed, learner)) == [
        payload.ReviewPayload.of(owner, "parallelism"),
        payload.RetryPayload.of(owner, "parallelism")]
    assert pressed(plan.summary(perfect, learner)) == [
        payload.RetryPayload.of(owner, "parallelism")]
    reset = plan.reset_prompt("en", learner).send[0]
    assert pressed(reset) == [payload.ResetPayload.of(owner, "yes"),
                              payload.ResetPayload.of(owner, "no")]
    assert all(len(b.callback_data.encode()) <= 64
               for b in keyboard_of(reset).inline_keyboard[0])
    # buttons sent before owners existed still decode, and a q1 reset keeps its owner
    assert payload.decode("q1:retry:parallelism") == payload.RetryPayload("parallelism", None)
    assert payload.decode("q1:reset:yes-42") == payload.ResetPayload.of("42", "yes")
    # q2 buttons of before: the owner's id in base 36, still read the same
    assert payload.decode("q2:retry:1a:tiny") == payload.RetryPayload.of("46", "tiny")


def test_a_keyboard_gives_the_json_ptb_would() -> None:
    card = Card("body", rows=[
        [Button("A ✅", "a1:7:0:0"), Button("B", "a1:7:0:1", disabled=True)],
        [Button("Open", "", url="https://t.me/quizbot?start=x")],
        [Button("📊 Dashboard", "", web_app="https://example.org/app")], [Button("Gone", "x",
                                                                           disabled=True)]])
    keyboard = keyboard_of(card)
    assert keyboard is not None
    generic = InlineKeyboardMarkup.to_dict(keyboard)  # PTB's own walk over the buttons
    assert keyboard.to_dict() == generic == {"inline_keyboard": [
        [{"text": "A ✅", "callback_data": "a1:7:0:0"}],
        [{"text": "Open", "url": "https://t.me/quizbot?start=x"}],
        [{"text": "📊 Dashboard", "web_app": {"url": "https://example.org/app"}}]]}


def test_actor_of_private_and_group_updates() -> None:
    user = User(7, "Ayesha", False, last_name="Khan", language_code="ur")
    private = Update.de_json({"update_id": 1, "message": {
        "message_id": 1, "date": 0, "chat": {"id": 7, "type": Chat.PRIVATE},
        "from": user.to_dict(), "text": "hi"}}, None)
    group = Update.de_json({"update_id": 2, "message": {
        "message_id": 1, "date": 0, "chat": {"id": -1005, "type": Chat.SUPERGROUP, "title": "g"},
        "from": user.to_dict(), "text": "hi"}}, None)
    assert actor_of(private) == Actor("telegram", "7", None, "Ayesha Khan", "ur")
    assert actor_of(group) == Actor("telegram", "7", "-1005", "Ayesha Khan", "ur")


def test_file_url_follows_the_api_base() -> None:
    assert file_url("https://api.telegram.org/bot") == "https://api.telegram.org/file/bot"
    assert file_url("http://127.0.0.1:8081/bot/") == "http://127.0.0.1:8081/file/bot"


def update_from(user_id: int, n: int) -> Update:
    return Update.de_json({"update_id": n, "message": {
        "message_id": n, "date": 0, "chat": {"id": user_id, "type": "private"},
        "from": {"id": user_id, "is_bot": False, "first_name": "U"}, "text": str(n)}}, None)


async def test_processor_serialises_a_user_and_parallelises_users() -> None:
    processor = PerUserUpdateProcessor(16)
    events: list[tuple[str, int, int]] = []
    release = asyncio.Event()

    async def work(user_id: int, n: int) -> None:
        events.append(("start", user_id, n))
        await release.wait()
        events.append(("end", user_id, n))

    async with processor:
        tasks = [asyncio.create_task(processor.process_update(update_from(u, n), work(u, n)))
                 for n, u in enumerate([1, 1, 2, 1, 2])]
        for _ in range(5):
            await asyncio.sleep(0)
        started = [(u, n) for kind, u, n in events if kind == "start"]
        assert started == [(1, 0), (2, 2)]  # one update per user at a time, users in parallel
        assert processor.busy_users == 2
        release.set()
        await asyncio.gather(*tasks)
    user_one = [n for kind, u, n in events if u == 1 and kind == "start"]
    assert user_one == [0, 1, 3]  # in arrival order
    for n in (0, 1):
        assert events.index(("end", 1, n)) < events.index(("start", 1, [0, 1, 3][n + 1]))
    assert processor.busy_users == 0  # locks go away when nobody needs them


async def test_processor_closes_an_update_cancelled_while_queued() -> None:
    processor = PerUserUpdateProcessor(4)
    gate = asyncio.Event()

    async def blocker() -> None:
        await gate.wait()

    async def never() -> None:
        raise AssertionError("must not run")

    first = asyncio.create_task(processor.process_update(update_from(1, 1), blocker()))
    await asyncio.sleep(0)
    second = asyncio.create_task(processor.process_update(update_from(1, 2), never()))
    await asyncio.sleep(0)
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second
    gate.set()
    await first
    assert processor.busy_users == 0  # and no "coroutine never awaited" warning


def test_redactor_scrubs_message_args_and_traceback() -> None:
    redactor = RedactSecrets([TOKEN])
    secret = TOKEN.split(":")[1]
    record = logging.LogRecord("httpx", logging.WARNING, __file__, 1,
                               "POST %s failed", (f"https://x/bot{TOKEN}/getMe",), None)
    assert redactor.filter(record)
    assert record.getMessage() == f"POST https://x/bot{MASK}/getMe failed"
    try:
        raise RuntimeError(f"url with {secret} inside")
    except RuntimeError as exc:
        record = logging.LogRecord("telegram", logging.ERROR, __file__, 1, "boom", (),
                                   (type(exc), exc, exc.__traceback__))
    redactor.filter(record)
    assert secret not in logging.Formatter().format(record)
    assert MASK in record.exc_text
