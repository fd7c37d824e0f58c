"""A number typed in a private chat answers the open computed question (real
python-telegram-bot against the fake Bot API): a named mistake gets its why-not, a right
number counts, text that is no number is asked again with an example (once: then a short
hint, then no reply). A typed answer ends like a tap: the question message is edited into its
answered state (no buttons left to press), with fewer Bot API calls than a tap makes."""

from __future__ import annotations

from bot.domain import numeric
from bot.domain.quiz.computed import draw, drawn_values
from bot.present.i18n import strip_isolates
from bot.store.commands import sessions_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, buttons, is_question
from tests.adapters.telegram.support import Running

NUMBERS = "parallelism-numbers"


async def test_a_typed_number_is_the_answer(bot: Running, api: FakeBotAPI) -> None:
    quiz = bot.app.engine.quiz(NUMBERS)
    learner = Learner(api, api.user(1001, "Alice"))
    since = learner.mark()
    await learner.send(f"/start {NUMBERS}")
    question = await learner.reply(since, is_question)
    assert "Or type the number" in question["text"]

    async def values(position: int) -> tuple[str, list[float], str]:
        row = await bot.app.store.read(sessions_sql.active_session, "telegram", "1001", NUMBERS)
        assert row is not None and row.seed is not None
        q = quiz.question(row.question_ids[position])
        assert q is not None and q.computed is not None
        return q.computed.unit, [float(v) for v in drawn_values(q, row.seed)[1]], q.id

    unit, vals, qid = await values(0)
    since = learner.mark()
    await learner.send("no idea")  # not a number: asked again, with an example
    again = await learner.reply(since)
    assert numeric.example(unit, vals) in strip_isolates(again["text"])
    since = learner.mark()
    await learner.send("still no idea")  # a second in a row: a short hint, no example
    hint = strip_isolates((await learner.reply(since))["text"])
    assert "Tap a letter" in hint and numeric.example(unit, vals) not in hint
    await learner.send("chatting on")  # a third: not an answer attempt, no reply
    barrier = await learner.barrier()
    assert not [c for c in learner.sent(since, barrier) if "Tap a letter" not in
                c.result["text"] and "/quiz" not in c.result["text"]]
    assert len(learner.sent(since, barrier)) == 1
    since = learner.mark()
    await learner.send("12 furlongs" if unit == "" else
                       ("12 ms" if unit in ("%", "GB", "MB") else "12 GB"))
    wrong_unit = strip_isolates((await learner.reply(since))["text"])
    assert "wrong kind of unit" in wrong_unit or "can't read" in wrong_unit
    since = learner.mark()
    await learner.send("9" * 3000)  # very long: refused politely, not echoed
    too_long = strip_isolates((await learner.reply(since))["text"])
    assert "too long" in too_long and "999" not in too_long and len(too_long) < 200
    assert (await bot.app.store.read(sessions_sql.active_session,
                                     "telegram", "1001", NUMBERS)).position == 0

    since = learner.mark()
    await learner.send(numeric.shown(vals[1], unit))  # a named mistake
    answered = await learner.edited(since, lambda m: "Not quite." in m["text"])
    assert answered["message_id"] == question["message_id"]  # the question, answered
    assert not any(b.get("callback_data", "").startswith("a") for row in buttons(answered)
                   for b in row)  # no answer buttons left to press
    text = strip_isolates(answered["text"])
    row = await bot.app.store.read(sessions_sql.active_session, "telegram", "1001", NUMBERS)
    assert row is not None and row.seed is not None
    q = quiz.question(qid)
    assert q is not None
    shown = draw(q, row.seed).options[1].text.get("en")  # as the option writes it
    assert f"You typed: {shown}" in text and "Why not" in text
    nxt = await learner.reply(since, is_question)
    done = await learner.barrier()
    # a tap makes an ack, one edit, then posts the next question; typed has no ack to make,
    # so the answer itself costs one call: the edit
    calls = [c for c in learner.api.calls[since:done] if c.method != "getUpdates"]
    assert calls[0].method == "editMessageText"
    assert [c.method for c in calls].count("editMessageText") == 1
    assert all(c.method in ("sendMessage", "sendPhoto") and "You typed" not in
               str(c.result.get("text", c.result.get("caption", ""))) for c in calls[1:])

    unit, vals, _qid = await values(1)
    since = learner.mark()
    await learner.send(numeric.shown(vals[0], unit).replace(".", ","))  # a comma decimal
    right = await learner.edited(since, lambda m: "Correct!" in m["text"])
    assert right["message_id"] == nxt["message_id"]
    assert "You typed" in strip_isolates(right["text"])
    await learner.reply(since, is_question)
    row = await bot.app.store.read(sessions_sql.active_session, "telegram", "1001", NUMBERS)
    assert row is not None and row.position == 2 and row.score == 1
    assert nxt["message_id"] != question["message_id"]


async def test_a_typed_answer_to_a_photo_question_clears_its_buttons(
        bot: Running, api: FakeBotAPI) -> None:
    """A question sent as a captioned photo has no text to edit: its buttons come off and
    the answer follows as a new message (as for a tap on it)."""
    quiz = bot.app.engine.quiz(NUMBERS)
    learner = Learner(api, api.user(1002, "Bilal"))
    since = learner.mark()
    await learner.send(f"/start {NUMBERS}")
    question = await learner.reply(since, is_question)
    await learner.barrier()  # the question is noted as the one a number answers
    row = await bot.app.store.read(sessions_sql.active_session, "telegram", "1002", NUMBERS)
    assert row is not None and row.seed is not None
    q = quiz.question(row.question_ids[0])
    assert q is not None and q.computed is not None
    right = numeric.shown(float(drawn_values(q, row.seed)[1][0]), q.computed.unit)
    api.inject("editMessageText", 400, "Bad Request: there is no text in the message to edit")
    since = learner.mark()
    await learner.send(right)
    answered = await learner.reply(since, lambda m: "Correct!" in m.get("text", ""))
    assert "You typed" in strip_isolates(answered["text"])
    key = (learner.chat_id, question["message_id"])

    def cleared() -> int | None:  # where in the call log the question's buttons came off
        return next((i for i, c in enumerate(api.calls) if i >= since and c.ok
                     and c.method == "editMessageReplyMarkup"
                     and (c.params.get("chat_id"), c.params.get("message_id")) == key), None)
    at = await api.wait_for(cleared, timeout=30, what="the photo question's buttons to come off")
    assert buttons(api.messages[key]) == []
    assert api.errors_of("editMessageText")  # the text edit was tried, and refused
    answer_at = next(i for i, c in enumerate(api.calls) if i >= since and c.ok
                     and c.method == "sendMessage" and "Correct!" in c.result["text"])
    assert at < answer_at  # as for a tap: the buttons come off, then the answer follows
