"""Computed questions on Telegram: the question shows the attempt's numbers, and the answer
comes with the schedule drawn for those numbers as a photo (real python-telegram-bot against
the fake Bot API)."""

from __future__ import annotations

from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import draw
from bot.present import diagrams
from bot.present.i18n import strip_isolates
from bot.store.commands import sessions_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, is_question
from tests.adapters.telegram.support import LINE, Running

NUMBERS = "parallelism-numbers"


def right_letter(quiz: Quiz, text: str, seed: int) -> tuple[str, object]:
    shown = {m[1]: m[2] for line in strip_isolates(text).splitlines()
             if (m := LINE.match(line.strip()))}
    for question in quiz.questions:
        d = draw(question, seed)
        if strip_isolates(d.text.get("en")) in strip_isolates(text):
            key = d.options[d.correct].text.get("en")
            return next(letter for letter, option in shown.items() if option == key), d
    raise AssertionError(f"no drawn question in {text!r}")


async def test_drawn_numbers_and_their_schedule_photo(bot: Running, api: FakeBotAPI) -> None:
    quiz = bot.app.engine.quiz(NUMBERS)
    learner = Learner(api, api.user(1001, "Alice"))
    since = learner.mark()
    await learner.send(f"/start {NUMBERS}")
    question = await learner.reply(since, is_question)
    row = await bot.app.store.read(sessions_sql.active_session, "telegram", "1001", NUMBERS)
    assert row is not None and row.seed is not None
    for n in range(4):  # three pictured schedules (GPipe, 1F1B, interleaved), then none
        letter, drawn = right_letter(quiz, question["text"], row.seed)
        assert "{" not in question["text"]
        since = learner.mark()
        await learner.toast(await learner.press(question, letter))
        nxt = await learner.reply(since, is_question)
        until = await learner.barrier()
        photos = [c for c in api.calls[since:until] if c.method == "sendPhoto" and c.ok]
        if n < 3:
            assert drawn.schedule is not None
            [photo] = photos
            assert photo.params["photo.filename"] == f"{drawn.schedule.name}.png"
            assert photo.params["photo.content"] == diagrams.png(drawn.schedule)
        else:
            assert drawn.schedule is None and photos == []
        edited = api.messages[(learner.chat_id, question["message_id"])]
        assert "Correct!" in edited["text"] or "Not quite." in edited["text"]
        assert "{" not in edited["text"]
        question = nxt
