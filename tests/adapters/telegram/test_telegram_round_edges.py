"""A study group's round at its edges, on the fake Bot API with the test's clock: the bot
taken out of the group, muted there (or the group deleted) mid-round;
members whose names are in Urdu letters or carry a right-to-left override."""

from __future__ import annotations

import pytest

from bot.domain.results import Actor
from bot.present.i18n import LRI, PDI, strip_isolates
from bot.store.commands import daily_sql, jobs_sql, rounds_sql
from bot.store.round_rows import post_key
from tests.adapters.telegram.fake_bot_api import GROUP_POSTS, FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data
from tests.adapters.telegram.support import AnswerKey, BotFactory, Running
from tests.adapters.telegram.test_telegram_rounds import (
    GROUP_ID,
    Clock,
    Room,
    is_round_question,
)

GONE = {
    "kicked": dict(status=403, description="Forbidden: bot was kicked from the supergroup chat"),
    "deleted": dict(status=400, description="Bad Request: chat not found"),
    # an admin took away the bot's right to post (it may give it back: the daily stays on)
    "muted": dict(status=400,
                  description="Bad Request: not enough rights to send text messages to the chat"),
}  # a group upgraded to a supergroup moves there: test_telegram_upgrade.py


@pytest.mark.parametrize("how", list(GONE))
async def test_a_group_the_bot_can_no_longer_post_in_ends_its_round(
        bot: Running, api: FakeBotAPI, key: AnswerKey, how: str) -> None:
    room = Room(bot, api)
    api.members[(GROUP_ID, 1001)] = "administrator"
    since = room.hana.mark()
    await room.hana.send("/daily on 08:00")
    assert (await room.hana.reply(since))["text"].startswith("📅")
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    right = key.right(question["text"])
    assert await room.press(room.hana, question, right) == f"🔒 Locked in: {right}"
    for method in GROUP_POSTS:
        api.inject(method, times=1000, **GONE[how])  # type: ignore[arg-type]
    since = len(api.calls)
    scheduler = bot.app.scheduler
    for _ in range(24):  # ten minutes: long past all eight questions and every retry
        room.advance(25)
        await scheduler.run_until_idle()
        await scheduler.idle()
    tries = [c for c in api.calls[since:] if c.method in GROUP_POSTS
             and c.params.get("chat_id") == GROUP_ID]
    # the reveal finds the group gone, and the podium of the round it ended finds it gone
    # too: not eight questions and reveals, each tried again for minutes (with an error
    # logged each time, which the autouse fixture refuses)
    assert len(tries) <= 2, [c.method for c in tries]
    assert not await bot.app.engine.round_running("telegram", str(GROUP_ID))
    daily = await bot.app.store.read(daily_sql.get_daily, "telegram", str(GROUP_ID))
    assert (daily is not None) == (how == "muted")
    api.heal()  # the bot is back in the group
    since = room.hana.mark()
    await room.hana.send("/leaderboard rounds")  # what was answered before still counts
    board = strip_isolates((await room.hana.reply(since))["text"])
    assert "Hana: 1/" in board


REMOVED = {  # the bot's new status in the group, and its rights there
    "kicked": ("kicked", {}),
    "left": ("left", {}),
    "muted": ("restricted", {"can_send_messages": False}),
}


@pytest.mark.parametrize("how", list(REMOVED))
async def test_a_round_ends_the_moment_the_group_removes_or_mutes_the_bot(
        bot: Running, api: FakeBotAPI, key: AnswerKey, how: str) -> None:
    """Telegram says at once (`my_chat_member`) that the bot was removed or muted; the bot
    never asked for that update, so the round ran on until its next post was refused, up
    to a question's time later. Now it is stored as ended at once, with what was answered,
    and nothing more of it is posted (not even the reveal, which would be refused)."""
    room = Room(bot, api)
    api.members[(GROUP_ID, 1001)] = "administrator"
    await room.hana.send("/daily on 08:00")
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    right = key.right(question["text"])
    assert await room.press(room.hana, question, right) == f"🔒 Locked in: {right}"
    rnd = await bot.app.store.read(rounds_sql.active_round, "telegram", str(GROUP_ID))
    assert rnd is not None
    status, rights = REMOVED[how]
    since = len(api.calls)
    await api.push_update(api.bot_status(room.group, room.hana.user, "administrator",
                                         status, **rights))
    # Hana's updates are handled in order: her private /help is answered after it
    await Learner(api, room.hana.user, api.private_chat(room.hana.user)).barrier()
    ended = await bot.app.store.read(rounds_sql.get_round, rnd.id)
    assert ended is not None and ended.status == "stopped", ended
    assert ended.finished_at == room.clock.now  # no time passed: at once
    assert not await bot.app.store.read(jobs_sql.job_live, post_key(rnd.id, 0, "r"))
    daily = await bot.app.store.read(daily_sql.get_daily, "telegram", str(GROUP_ID))
    assert (daily is not None) == (how == "muted")  # a muted bot may get its right back
    for _ in range(4):  # past the question's deadline and the next question's opening
        room.advance(25)
        await bot.app.scheduler.run_until_idle()
        await bot.app.scheduler.idle()
    # nothing more tried there (the fake would take it; Telegram would refuse each)
    assert [c.method for c in api.calls[since:] if c.method in GROUP_POSTS
            and c.params.get("chat_id") == GROUP_ID] == []
    since = room.hana.mark()
    await room.hana.send("/leaderboard rounds")  # what was answered still counts
    assert "Hana: 1/" in strip_isolates((await room.hana.reply(since))["text"])


@pytest.mark.parametrize("how", ["kicked", "muted"])
async def test_the_host_hears_privately_why_their_round_stopped(
        bot: Running, api: FakeBotAPI, how: str) -> None:
    """Bilal started the round; an admin (Hana) took the bot out, or muted it: the round
    vanished from the group with no word to him. Now he is told why and how to start
    again in his private chat, in Urdu, his language; Hana, who did it, is told nothing."""
    room = Room(bot, api)
    bilal = Learner(api, room.bilal.user, api.private_chat(room.bilal.user))
    await bilal.send("/language ur")
    await bilal.barrier()
    since = room.bilal.mark()
    await room.bilal.send("/round 20")
    await room.question(since)
    status, rights = REMOVED[how]
    since = bilal.mark()
    await api.push_update(api.bot_status(room.group, room.hana.user, "member", status,
                                         **rights))
    told = strip_isolates((await bilal.reply(since))["text"])
    said = strip_isolates(bot.cat.t("ur", "round.stopped_removed" if how == "kicked"
                                    else "round.stopped_muted", group="Parallel readers"))
    assert told == said and "/round" in told
    hana = Learner(api, room.hana.user, api.private_chat(room.hana.user))
    until = await hana.barrier()
    assert hana.sent(since, until) == []
    # the host who took the bot out himself is not told what he did
    since = room.bilal.mark()
    await api.push_update(api.bot_status(room.group, room.bilal.user, "left", "member"))
    await room.bilal.send("/round 20")
    await room.question(since)
    since = bilal.mark()
    await api.push_update(api.bot_status(room.group, room.bilal.user, "member", "left"))
    until = await bilal.barrier()
    assert bilal.sent(since, until) == []


async def test_urdu_and_overriding_names_stay_in_their_place_in_an_english_group(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    room = Room(bot, api)
    ayesha = Learner(api, api.user(4004, "عائشہ", "خان"), room.group)
    spoof = Learner(api, api.user(5005, "\u202eevil"), room.group)  # RIGHT-TO-LEFT OVERRIDE
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    right = key.right(question["text"])
    for member in (room.hana, ayesha, spoof):
        assert await room.press(member, question, right) == f"🔒 Locked in: {right}"
    since = room.hana.mark()
    await room.hana.send("/round stop")  # the open question is revealed with the podium
    reveal = (await room.hana.edited(
        since, lambda m: m["message_id"] == question["message_id"]))["text"]
    since = room.hana.mark()
    await room.hana.send("/leaderboard rounds")
    board = (await room.hana.reply(since))["text"]
    for text in (reveal, board):
        assert "\u202e" not in text  # the override is dropped: the line reads as written
        # the Urdu name is isolated, so the score after it stays after it; Latin names, in
        # an English text, are left as they are
        assert f"{LRI}عائشہ خان{PDI}:" in text and "Hana:" in text and "evil:" in text
    assert f"Got it right: Hana, {LRI}عائشہ خان{PDI}, evil" in reveal


async def test_a_question_posted_late_gets_its_full_time_from_the_post(
        bot: Running, api: FakeBotAPI, key: AnswerKey, caplog: pytest.LogCaptureFixture) -> None:
    # Telegram failing (or a restart) held the question's post back 15 s: it said "Closes in
    # 20 s" but closed 5 s after it appeared, and a member pressing 12 s after seeing it was
    # told it had closed. Its time now runs from the post.
    room = Room(bot, api)
    api.inject("sendMessage", 502, "Bad Gateway", times=4)  # the post fails four times
    since = room.hana.mark()
    await room.hana.send("/round 20")
    for n in range(1, 5):
        await api.wait_for(lambda n=n: len(api.errors_of("sendMessage")) == n,
                           what=f"failed post {n}")
        room.advance(2 ** (n - 1))  # the scheduler's backoff: 1, 2, 4, 8 s
    question = await room.question(since)
    caplog.clear()  # the four failures, logged with their tracebacks
    assert "Closes in 20 s" in question["text"]
    room.advance(12)  # 27 s after the round opened it, 12 s after members could see it
    assert await room.press(room.hana, question, key.right(question["text"])) == \
        f"🔒 Locked in: {key.right(question['text'])}"
    since = room.hana.mark()
    room.advance(8)
    reveal = await room.reveal(since, question)
    assert "Got it right: Hana" in reveal and "Hana: 1 right · 12.0 s" in reveal


async def test_a_press_after_the_round_ended_says_it_is_over(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    # A member tapping the open question just as the host stopped the round was told "This
    # question has closed; wait for the next one." No next one was coming. It then said only
    # that the round was over, not what to do next.
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    data = button_data(question)[0]
    since = room.hana.mark()
    await room.hana.send("/round stop")
    await room.hana.edited(since, lambda m: m["message_id"] == question["message_id"])
    late = await room.bilal.tap(question, data)  # a client still showing the letters
    assert (await room.bilal.toast(late)).params["text"] == \
        "That round is over. Start a new one: /round"


async def test_a_question_not_out_before_a_restart_is_asked_after_it(
        start_bot: BotFactory, api: FakeBotAPI, key: AnswerKey,
        caplog: pytest.LogCaptureFixture) -> None:
    # The bot went down just as /round opened question 1 (its post failed) and came back
    # 40 s later, past the question's 20 s: the group got the reveal of a question it never
    # saw ("Nobody answered this one in time") and never got to answer it.
    clock = Clock()
    api.clock = clock
    group = api.group_chat(GROUP_ID)
    hana = Learner(api, api.user(1001, "Hana"), group)
    api.inject("sendMessage", 502, "Bad Gateway")
    async with start_bot() as running:
        assert running.app.engine.rounds is not None
        running.app.engine.rounds.clock = running.app.scheduler.clock = clock
        await hana.send("/round 20")
        await api.wait_for(lambda: api.errors_of("sendMessage"), what="the failed post")
    caplog.clear()  # the failure, logged with its traceback
    clock.now += 40
    async with start_bot() as running:
        assert running.app.engine.rounds is not None
        running.app.engine.rounds.clock = running.app.scheduler.clock = clock
        since = hana.mark()
        running.app.scheduler.wake()
        question = await hana.reply(since, is_round_question)
        assert "Closes in 20 s" in question["text"]
        clock.now += 10
        query = await hana.press(question, key.right(question["text"]))
        assert (await hana.toast(query)).params["text"].startswith("🔒 Locked in")
        since = hana.mark()
        clock.now += 10
        running.app.scheduler.wake()
        reveal = await hana.edited(since, lambda m: m["message_id"] == question["message_id"])
        assert "Got it right: Hana" in strip_isolates(reveal["text"])


async def test_a_round_too_short_or_too_long_is_told_how_on_telegram(
        bot: Running, api: FakeBotAPI) -> None:
    room = Room(bot, api)
    ayesha = Learner(api, api.user(4004, "عائشہ", language_code="ur"), room.group)
    for who, command, lang in ((room.hana, "/round 5", "en"), (room.hana, "/round 20 9", "en"),
                               (ayesha, "/round 20 0", "ur")):
        since = who.mark()
        await who.send(command)
        reply = strip_isolates((await who.reply(since))["text"])
        assert reply == strip_isolates(bot.cat.t(lang, "round.bad_length", low=10, high=300,
                                                 count=8, some=5)), command
    assert reply == ("ہر سوال کے لیے 10 سے 300 سیکنڈ اور 1 سے 8 سوال چنیں، مثلاً /round 30 5 سے "
                     "5 سوال، ہر ایک 30 سیکنڈ کا۔")
    assert bot.cat.t("en", "round.bad_length", low=10, high=300, count=8, some=5) == (
        "Choose 10–300 seconds per question and 1–8 questions, for example /round 30 5 for 5 "
        "questions of 30 s")


async def test_a_telegram_round_of_fewer_questions(bot: Running, api: FakeBotAPI,
                                                   key: AnswerKey) -> None:
    """`/round [quiz] [seconds] [questions]`, Discord's order: the second number is how many
    questions. It used to replace the seconds ('/round parallelism 20 3' asked for 3 s a
    question and was refused), so a Telegram host could not shorten a round."""
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round parallelism 20 3")
    question = await room.question(since)
    assert question["text"].startswith("Round · Question 1/3")
    assert "Closes in 20 s" in question["text"]
    for n in range(3):
        assert await room.press(room.hana, question, key.right(question["text"]))
        since = room.hana.mark()
        room.advance(20)
        reveal = await room.reveal(since, question)
        if n < 2:
            since = room.hana.mark()
            room.advance(5)
            question = await room.question(since)
            assert question["text"].startswith(f"Round · Question {n + 2}/3")
    assert "🏁 Final podium" in reveal and "🥇 1. Hana: 3 right" in reveal


async def test_a_press_on_an_earlier_question_points_to_the_open_one(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    # Bilal answered question 1; with question 2 open he tapped question 1's letters (his
    # client still showed them, higher up) and was told "Already locked in: B. It cannot be
    # changed.", which reads as if question 2 were answered: he left it unanswered.
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    first = await room.question(since)
    data = button_data(first)
    await room.press(room.bilal, first, key.right(first["text"]))
    since = room.hana.mark()
    room.advance(20)
    await room.reveal(since, first)
    since = room.hana.mark()
    room.advance(5)
    await room.question(since)
    for pressed in (data[0], data[1]):
        tap = await room.bilal.tap(first, pressed)
        assert (await room.bilal.toast(tap)).params["text"] == \
            "That question is over; answer the one that is open now."


async def test_members_level_at_a_rounds_end_share_their_place_on_the_board(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    """A round's members all finish at its end: two level on score got 🥇 and 🥈 by chance
    on /leaderboard (the round's podium had them both 🥇 1.). They share the place now, and
    the next place counts them, with no medal for nothing right; a later round's equal score
    still places after them."""
    room = Room(bot, api)

    async def one_question_round(right: tuple[Learner, ...], wrong: tuple[Learner, ...]
                                 ) -> None:
        since = room.hana.mark()
        await room.hana.send("/round 20 1")
        question = await room.question(since)
        for who in right + wrong:
            pick = (key.right if who in right else key.wrong)(question["text"])
            assert await room.press(who, question, pick) == f"🔒 Locked in: {pick}"
        since = room.hana.mark()
        room.advance(20)
        assert "🏁 Final podium" in await room.reveal(since, question)

    await one_question_round((room.hana, room.bilal), (room.chen,))
    for command in ("/leaderboard rounds", "/leaderboard"):
        since = room.hana.mark()
        await room.hana.send(command)
        lines = strip_isolates((await room.hana.reply(since))["text"]).splitlines()[1:]
        # no 🏅: one question of eight is no full attempt (test_a_round_cut_short_...)
        assert sorted(lines[:2]) == ["🥇 1. Bilal: 1/1", "🥇 1. Hana: 1/1"], command
        assert lines[2:] == ["   3. Chen: 0/1"], command  # no 🥉 for nothing right
        room.advance(61)  # a member's one reply a minute while a round runs: none runs now
    await one_question_round((room.chen,), ())
    since = room.chen.mark()
    await room.chen.send("/leaderboard rounds")
    lines = strip_isolates((await room.chen.reply(since))["text"]).splitlines()[1:]
    assert lines[2:] == ["🥉 3. Chen: 1/1"]


async def test_a_round_cut_short_earns_no_badge_on_the_board(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    """A host stopped a round after question 3: Bilal's 3/3 showed the quiz's 🏅 on
    /leaderboard while his /stats (and the dashboard) said no badge, whose rule is 7 of the
    quiz's 8 in one attempt. The board keeps the same rule: an attempt that asked every
    question."""
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    for n in range(3):
        await room.press(room.bilal, question, key.right(question["text"]))
        if n == 0:  # a member who then falls silent: no early reveal races the stop below
            await room.press(room.chen, question, key.wrong(question["text"]))
        since = room.hana.mark()
        if n == 2:
            await room.hana.send("/round stop")
            assert "🏁 Final podium" in await room.reveal(since, question)
        else:
            room.advance(20)
            await room.reveal(since, question)
            since = room.hana.mark()
            room.advance(5)
            question = await room.question(since)
    for command in ("/leaderboard", "/leaderboard rounds"):
        room.advance(61)  # a member's one reply a minute while a round runs: none runs now
        since = room.bilal.mark()
        await room.bilal.send(command)
        board = strip_isolates((await room.bilal.reply(since))["text"])
        assert "🥇 1. Bilal: 3/3" in board and "🏅" not in board, command
    stats = await bot.app.engine.stats(Actor("telegram", "2002", str(GROUP_ID)))
    assert (stats.best_score, stats.best_total, stats.total) == (3, 3, 8)


async def test_a_question_nobody_answered_shows_no_empty_standings(
        bot: Running, api: FakeBotAPI) -> None:
    """Nobody answered question 1: its reveal printed the "Standings:" heading over nothing,
    between "Nobody answered this one in time." and the scoring line."""
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    since = room.hana.mark()
    room.advance(20)
    reveal = await room.reveal(since, question)
    assert "Nobody answered this one in time." in reveal
    assert "Standings" not in reveal
    assert reveal.endswith("Scoring: accuracy (1 point per right answer; less time breaks a "
                           "tie)\n\nNext question in 5 s.")


async def test_members_whose_names_show_nothing_are_shown_as_someone(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    """Telegram names made 'invisible' (a Hangul filler; or only direction controls, which
    are dropped) left blanks: 'Got it right: Hana, ㅤ, ' and '🥇 1. : 1 right'. Such a member
    is 👤, in every language."""
    room = Room(bot, api)
    filler = Learner(api, api.user(4004, "\u3164"), room.group)
    controls = Learner(api, api.user(5005, "\u202e\u2066 \u200b"), room.group)
    since = room.hana.mark()
    await room.hana.send("/round 20 1")
    question = await room.question(since)
    right = key.right(question["text"])
    for member in (room.hana, filler, controls):
        assert await room.press(member, question, right) == f"🔒 Locked in: {right}"
    since = room.hana.mark()
    room.advance(20)
    reveal = await room.reveal(since, question)
    assert "Got it right: Hana, 👤, 👤" in reveal
    assert reveal.count("🥇 1. 👤: 1 right") == 2
    since = room.hana.mark()
    await room.hana.send("/leaderboard rounds")
    board = strip_isolates((await room.hana.reply(since))["text"])
    assert board.count("🥇 1. 👤: 1/1") == 2 and "\u3164" not in board
