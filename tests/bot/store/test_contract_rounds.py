"""Round commands added for rounds at size (issue 18), on SQLite and PostgreSQL alike."""

from __future__ import annotations

from bot.store.commands import daily_sql, jobs_sql, rounds_sql
from bot.store.protocol import Store
from bot.store.round_rows import NewPress, NewRound, RoundRow


async def opened_round(store: Store) -> RoundRow:
    """A two-question round in group "g", its first question opened at t = 1000 s (30 s each)."""
    rnd = await store.write(rounds_sql.create_round, NewRound("t", "g", "g", "1", "H", "quiz", "en",
                                            ("a", "b"), ((0, 1), (1, 0)), 30, 1.0), 1000.0)
    assert rnd is not None
    await store.write(rounds_sql.open_due_questions, "t", 1000.0)
    return rnd


async def test_round_answers_list_every_member_by_question_then_speed(any_store: Store):
    store = any_store
    rnd = await opened_round(store)
    for user, at in (("3", 1009.0), ("2", 1002.0), ("4", 1005.0)):
        await store.write(rounds_sql.press_round,
                          NewPress(rnd.id, 0, user, f"U{user}", 0, user != "4", at))
    await store.write(rounds_sql.reveal_due_questions, "t", 1031.0)
    await store.write(rounds_sql.open_due_questions, "t", 1032.0)
    await store.write(rounds_sql.press_round, NewPress(rnd.id, 1, "4", "U4", 1, True, 1033.0))
    first = await store.read(rounds_sql.round_answers, rnd.id, 0)
    assert [(a.user_id, a.correct, a.elapsed) for a in first] == [
        ("2", True, 2.0), ("4", False, 5.0), ("3", True, 9.0)]
    both = await store.read(rounds_sql.round_answers, rnd.id, 1)
    assert [(a.qindex, a.user_id) for a in both] == [(0, "2"), (0, "4"), (0, "3"), (1, "4")]
    assert await store.read(rounds_sql.round_answers, rnd.id + 99, 1) == ()


async def test_every_post_is_a_job_written_with_its_claim(any_store: Store):
    store = any_store
    rnd = await opened_round(store)
    await store.write(rounds_sql.press_round, NewPress(rnd.id, 0, "2", "U2", 1, True, 1004.0))
    await store.write(rounds_sql.reveal_due_questions, "t", 1031.0)
    [question, reveal] = await store.write(jobs_sql.claim_due,
                                           1031.0, 10, "host:1", 60.0, ("round:t",))
    assert (question.key, reveal.key) == (f"round:{rnd.id}:0:q", f"round:{rnd.id}:0:r")
    assert reveal.payload == {"round": rnd.id, "qindex": 0, "what": "r"}
    assert await store.read(jobs_sql.job_live,
                            question.key) and await store.read(jobs_sql.claimers,
                                                               "round:t") == ["host:1"]
    assert await store.write(jobs_sql.finish_job,
                             question, None) and not await store.read(jobs_sql.job_live,
                                                                      question.key)
    post = await store.read(rounds_sql.round_post, rnd.id, 0)
    assert post is not None and post.revealed_at == 1031.0 and post.deadline == 1030.0
    assert [a.user_id for a in post.answers] == ["2"]
    # a failed try goes back with its count; a dead worker's claim can be released
    assert await store.write(jobs_sql.retry_job, reveal, 1033.0)
    assert await store.write(jobs_sql.claim_due, 1032.0, 10, "host:2", 60.0, ("round:t",)) == []
    [again] = await store.write(jobs_sql.claim_due, 1033.0, 10, "host:2", 60.0, ("round:t",))
    assert again.attempts == 2
    assert await store.write(jobs_sql.release_claims, "host:2", "round:t") == 1
    [third] = await store.write(jobs_sql.claim_due, 1033.0, 10, "host:3", 60.0, ("round:t",))
    assert third.key == reveal.key
    assert await store.write(jobs_sql.claim_due,
                             2000.0, 10, "x", 60.0, ("reminder",)) == []  # kinds apart
    stopped = await store.write(rounds_sql.stop_round, rnd.id, 1040.0)
    assert stopped is not None
    keys = [j.key for j in await store.write(jobs_sql.claim_due,
                                             1040.0, 10, "host:4", 60.0, ("round:t",))]
    assert keys == [f"round:{rnd.id}:0:s"]


async def test_a_question_posted_late_is_timed_from_its_post(any_store: Store):
    store = any_store
    rnd = await opened_round(store)
    assert await store.write(rounds_sql.time_from_post, rnd.id, 0, 1012.0) == 1042.0
    assert await store.read(rounds_sql.next_round_due, "t") == 1042.0
    await store.write(rounds_sql.press_round, NewPress(rnd.id, 0, "2", "U2", 1, True, 1020.0))
    assert [a.elapsed for a in await store.read(rounds_sql.round_answers, rnd.id, 0)] == [8.0]
    await store.write(rounds_sql.set_round_message, rnd.id, 0, "m1")
    assert await store.write(rounds_sql.time_from_post, rnd.id, 0, 1030.0) is None  # out
    await store.write(rounds_sql.reveal_due_questions, "t", 1042.0)
    post = await store.read(rounds_sql.round_post, rnd.id, 0)
    assert post is not None and post.revealed_at == 1042.0


async def test_a_question_whose_post_is_not_out_is_held_not_revealed(any_store: Store):
    store = any_store
    rnd = await opened_round(store)
    assert await store.write(rounds_sql.hold_unshown, "t", 1040.0) == 1  # post still tried
    assert await store.read(rounds_sql.next_round_due, "t") == 1070.0
    assert await store.write(rounds_sql.reveal_due_questions, "t", 1069.0) == []
    [post] = await store.write(jobs_sql.claim_due, 1040.0, 10, "host:1", 60.0, ("round:t",))
    assert await store.write(jobs_sql.finish_job, post, None)  # given up: no longer held
    assert await store.write(rounds_sql.hold_unshown, "t", 1070.0) == 0
    assert await store.write(rounds_sql.reveal_due_questions, "t", 1070.0) == [(rnd.id, 0)]


async def test_a_round_nobody_can_see_ends_with_nothing_left_to_post(any_store: Store):
    """The bot removed from the round's chat: the round ends as a stop does, but its open
    question is closed without a reveal job and its waiting post jobs are dropped; a
    server's chats with a round or a daily are what its removal ends."""
    store = any_store
    rnd = await opened_round(store)
    other = await store.write(rounds_sql.create_round, NewRound(
        "t", "g2", "g2", "1", "H", "quiz", "en", ("a",), ((0, 1),), 30, 1.0), 1000.0)
    assert other is not None
    await store.write(rounds_sql.press_round, NewPress(rnd.id, 0, "2", "U2", 1, True, 1004.0))
    assert await store.read(daily_sql.posting_chats, "t", "g") == ["g"]  # not g2's
    assert await store.read(jobs_sql.job_live, f"round:{rnd.id}:0:q")  # not posted yet
    assert await store.write(rounds_sql.end_unseen_round, rnd.id, 1010.0)
    assert not await store.write(rounds_sql.end_unseen_round, rnd.id, 1011.0)  # once
    ended = await store.read(rounds_sql.get_round, rnd.id)
    assert ended is not None and ended.status == "stopped" and ended.finished_at == 1010.0
    post = await store.read(rounds_sql.round_post, rnd.id, 0)
    assert post is not None and post.revealed_at == 1010.0
    # nothing of it is left to post: no question, no reveal
    assert await store.write(jobs_sql.claim_due, 2000.0, 10, "host:1", 60.0, ("round:t",)) == []
    assert await store.read(daily_sql.posting_chats, "t", "g") == []
    assert await store.read(daily_sql.posting_chats, "t", "g2") == ["g2"]
