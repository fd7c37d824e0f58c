"""A study group of 200, English and Urdu members mixed, presses a round's question within
the same second: what it costs on the fake Bot API. Per question: one post and one edit into
its reveal, well under the group's ~20 posts a minute and 1 a second; per press: one
answerCallbackQuery (the private toast, in the member's language) and no other call; every
press counted once."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from bot.store.commands import rounds_sql
from tests.adapters.telegram.fake_bot_api import GROUP_POSTS, FakeBotAPI
from tests.adapters.telegram.learners import Learner, buttons
from tests.adapters.telegram.support import AnswerKey, Running
from tests.adapters.telegram.test_telegram_rounds import GROUP_ID, Room

MEMBERS = 200


async def test_two_hundred_presses_at_once_cost_one_call_each(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    room = Room(bot, api)
    start = room.hana.mark()
    await room.hana.send("/round 20 2")
    question = await room.question(start)
    right = key.right(question["text"])
    letters = [b["text"] for row in buttons(question) for b in row]
    wrong = letters[(letters.index(right) + 1) % len(letters)]
    members = [Learner(api, api.user(60_000 + i, f"Member {i}",
                                     language_code="ur" if i % 2 else "en"), room.group)
               for i in range(MEMBERS)]
    since = len(api.calls)
    queries = [await m.press(question, right if i % 3 else wrong)
               for i, m in enumerate(members)]  # 200 updates queued before any is handled
    await api.wait_for(lambda: len([c for c in api.calls[since:]
                                    if c.method == "answerCallbackQuery" and c.ok]) >= MEMBERS,
                       what="every press answered")
    calls = Counter(c.method for c in api.calls[since:] if c.method != "getUpdates")
    assert calls == {"answerCallbackQuery": MEMBERS}, calls  # one call a press, nothing else
    toasts = {str(c.params["callback_query_id"]): c.params.get("text")
              for c in api.calls[since:] if c.method == "answerCallbackQuery"}
    for i, query in enumerate(queries):
        lang = "ur" if i % 2 else "en"
        letter = right if i % 3 else wrong
        assert toasts[query] == bot.cat.t(lang, "round.locked", letter=letter), (i, lang)
    rnd = await bot.app.store.read(rounds_sql.active_round, "telegram", str(GROUP_ID))
    assert rnd is not None
    assert len(await bot.app.store.read(rounds_sql.round_answers, rnd.id, 0)) == MEMBERS

    room.advance(21)  # the reveal
    await room.reveal(since, question)
    room.advance(5)  # the next question
    second = await room.question(since)
    room.advance(21)  # its reveal, with the podium: the round's end
    await room.hana.edited(since, lambda m: m["message_id"] == second["message_id"]
                           and "Final podium" in m["text"])
    posts = [c for c in api.calls[start:] if c.method in GROUP_POSTS
             and c.params.get("chat_id") == GROUP_ID]
    assert Counter(c.method for c in posts) == {"sendMessage": 2, "editMessageText": 2}
    assert api.flooded == [] and api.posts_per_minute(GROUP_ID) <= 4
    assert min(b.time - a.time for a, b in pairwise(posts)) >= 1.0
