"""Round commands added for rounds at size (issue 18), on SQLite and PostgreSQL alike."""

from __future__ import annotations

from bot.store.protocol import Store
from bot.store.round_rows import NewPress, NewRound


async def test_round_answers_list_every_member_by_question_then_speed(any_store: Store):
    store = any_store
    rnd = await store.create_round(NewRound("t", "g", "g", "1", "H", "quiz", "en",
                                            ("a", "b"), ((0, 1), (1, 0)), 30, 1.0), 1000.0)
    assert rnd is not None
    await store.open_due_questions("t", 1000.0)
    for user, at in (("3", 1009.0), ("2", 1002.0), ("4", 1005.0)):
        await store.press_round(NewPress(rnd.id, 0, user, f"U{user}", 0, user != "4", at))
    await store.reveal_due_questions("t", 1031.0)
    await store.open_due_questions("t", 1032.0)
    await store.press_round(NewPress(rnd.id, 1, "4", "U4", 1, True, 1033.0))
    first = await store.round_answers(rnd.id, 0)
    assert [(a.user_id, a.correct, a.elapsed) for a in first] == [
        ("2", True, 2.0), ("4", False, 5.0), ("3", True, 9.0)]
    both = await store.round_answers(rnd.id, 1)
    assert [(a.qindex, a.user_id) for a in both] == [(0, "2"), (0, "4"), (0, "3"), (1, "4")]
    assert await store.round_answers(rnd.id + 99, 1) == ()
