"""/leaderboard in a big Telegram group: the top ten, how many more the board ranks, and the
asker's own place (or how to get on the board), in English and Urdu."""

from __future__ import annotations

from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.present.i18n import strip_isolates
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner
from tests.adapters.telegram.support import Running
from tests.dashboard_support import play

GROUP_ID = -1001234500077


async def test_a_member_past_the_top_ten_finds_their_place(
        bot: Running, api: FakeBotAPI, quizzes: dict[str, Quiz]) -> None:
    # Twelve members finished the quiz from the group; /leaderboard showed ten lines and
    # stopped: nothing said two more were ranked, and the member in 12th place (or one not
    # on the board) could not find themselves.
    group = api.group_chat(GROUP_ID, "Pipeline Club")
    for i in range(12):  # scores 8, 7, ... 1, then four level on 0
        await play(bot.app.engine, quizzes, Actor("telegram", str(4000 + i), str(GROUP_ID),
                                                  f"Member{i}"), wrong=set(range(min(i, 8))))
    last = Learner(api, api.user(4011, "Member11"), group)
    since = last.mark()
    await last.send("/leaderboard")
    board = strip_isolates((await last.reply(since))["text"]).splitlines()
    assert board[0] == "Leaderboard here: Model and pipeline parallelism"
    assert board[1].endswith("1. Member0: 8/8 🏅") and "Member9: 0/8" in board[10]
    assert board[11:] == ["…and 2 more members", "", "Your place: 12 of 12 · 0/8"]

    shown = Learner(api, api.user(4002, "Member2"), group)  # on the rows: no line of its own
    since = shown.mark()
    await shown.send("/leaderboard")
    assert strip_isolates((await shown.reply(since))["text"]).splitlines()[-1] == \
        "…and 2 more members"

    newcomer = Learner(api, api.user(4050, "Naveed", language_code="ur"), group)
    since = newcomer.mark()
    await newcomer.send("/leaderboard")
    lines = strip_isolates((await newcomer.reply(since))["text"]).splitlines()
    assert lines[-3:] == ["…اور 2 مزید اراکین", "", bot.cat.t("ur", "leaderboard.absent")]
    assert lines[-1].endswith("/quiz")
