"""The question of the day: `/daily on HH:MM [+HH:MM] [quiz]`, `/daily off` (the chat's
admins), and the scheduler's handler that opens each day's question.

A day's question is a one-question round of kind "daily", open `daily.close_hours` (8) and
revealed once at its close with the takeaway: its post and its reveal are round post jobs
(`bot.features.round_jobs`), so nothing is lost across restarts and a group gets two posts
a day. Members answer privately as in rounds; the reveal names participation streaks and,
on the chat's Sundays, the week's standing. A chat that removed the bot has its daily
switched off (`chat_gone`), once, with a log line; /daily status then says why.
"""

from __future__ import annotations

import logging
import random

from bot.domain import learning
from bot.domain.errors import BadDaily, NotChatAdmin, RoundsAreForGroups, UnknownQuiz
from bot.domain.product_limits import (
    DEFAULT_CLOSE_HOURS,
    MAX_CLOSE_HOURS,
    MIN_CLOSE_HOURS,
    close_hours_ok,
)
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.domain.rights import Manages
from bot.domain.round_results import DailySet, PostingStopped
from bot.domain.shuffle import option_order
from bot.features.rounds import Rounds
from bot.store.commands import daily_sql, learning_sql
from bot.store.commands.daily_sql import DAILY_KIND
from bot.store.round_rows import DailyRow, NewRound
from bot.store.rows import JobRow

log = logging.getLogger(__name__)



class Dailies:
    """Switches a chat's question of the day on and off, and opens each day's question
    (the scheduler's handler for jobs of kind `DAILY_KIND`)."""

    kind = DAILY_KIND

    def __init__(self, rounds: Rounds, *, close_hours: float = DEFAULT_CLOSE_HOURS) -> None:
        if not close_hours_ok(close_hours):
            raise ValueError(f"daily.close_hours must be {MIN_CLOSE_HOURS}-{MAX_CLOSE_HOURS}")
        self.rounds, self.store = rounds, rounds.store
        self.close_hours = close_hours

    async def switch_on(self, actor: Actor, chat_id: str | None, at: str,
                        offset: str | None = None, quiz_id: str | None = None, *,
                        may_manage: Manages = False) -> DailySet:
        """Post a question every day at local time `at` ("09:00", at `offset` or the
        admin's own), from `quiz_id` (or the default quiz); replaces the chat's old one."""
        if chat_id is None or actor.chat_id is None:
            raise RoundsAreForGroups()
        minute = learning.parse_time(at)
        east = None if offset is None else learning.parse_offset(offset)
        if minute is None or (offset is not None and east is None):
            raise BadDaily()
        await self._admin(actor, may_manage)
        quiz = self.rounds.library.quiz(quiz_id)
        lang = await self.rounds.library.language(actor)
        if east is None:
            east = (await self.store.read(learning_sql.learner_settings,
                                          actor.platform, actor.user_id)
                    ).utc_offset or 0
        now = self.rounds.clock()
        due = learning.next_occurrence(now, minute, east)
        await self.store.write(daily_sql.set_daily, DailyRow(
            actor.platform, chat_id, actor.chat_id, quiz.id if quiz_id else None, lang, minute,
            east, self.close_hours, actor.user_id, actor.display_name), due, now)
        return DailySet(lang, True, quiz.title.get(lang), minute, east, self.close_hours, due)

    async def switch_off(self, actor: Actor, chat_id: str | None, *,
                         may_manage: Manages = False) -> DailySet:
        """No more questions of the day here (one already open still gets its reveal)."""
        if chat_id is None:
            raise RoundsAreForGroups()
        await self._admin(actor, may_manage)
        await self.store.write(daily_sql.drop_daily, actor.platform, chat_id)
        return DailySet(await self.rounds.library.language(actor), False)

    async def _admin(self, actor: Actor, manages: Manages) -> None:
        if not await self.rounds.groups.manages(actor, manages):
            raise NotChatAdmin()

    async def status(self, actor: Actor, chat_id: str | None) -> DailySet:
        """/daily status: the chat's question of the day as it stands, or why it went off."""
        if chat_id is None:
            raise RoundsAreForGroups()
        lang = await self.rounds.library.language(actor)
        daily = await self.store.read(daily_sql.get_daily, actor.platform, chat_id)
        if daily is None:
            why = await self.store.read(daily_sql.daily_stopped, actor.platform, chat_id)
            return DailySet(lang, False, stopped=why)
        due = learning.next_occurrence(self.rounds.clock(), daily.post_minute, daily.utc_offset)
        return DailySet(lang, True, self._quiz(daily).title.get(lang), daily.post_minute,
                        daily.utc_offset, daily.close_hours, due)

    async def chat_gone(self, platform: str, chat_id: str, reason: str = "forbidden", *,
                        for_good: bool = True) -> PostingStopped:
        """The platform says the bot can no longer post in this chat: its running round
        ends and, for good (removed, not muted), its daily goes off, kept with why for
        /daily status. Whom to tell: each host the first time only."""
        daily = None
        if for_good and (daily := await self.store.write(
                daily_sql.stop_daily, platform, chat_id, reason, self.rounds.clock())):
            log.info("daily: %s chat %s no longer lets the bot post (%s); its question of "
                     "the day is switched off", platform, chat_id, reason)
        ended = await self.rounds.chat_gone(platform, chat_id)
        return PostingStopped(platform, chat_id, reason, ended.host_id if ended else None,
                              daily.host_id if daily else None)

    async def server_gone(self, platform: str, board_chat: str) -> list[PostingStopped]:
        """The bot left (or was removed from) a server: every round running in its channels
        ends and every question of the day there goes off, as `chat_gone` does for one."""
        chats = await self.store.read(daily_sql.posting_chats, platform, board_chat)
        return [await self.chat_gone(platform, chat_id) for chat_id in chats]

    # --- the scheduler's handler -----------------------------------------------------------

    async def __call__(self, job: JobRow) -> float | None:
        """Open the day's question (once, however often the job runs); return when the
        next one is due (None: the chat switched it off)."""
        platform, chat_id = str(job.payload["platform"]), str(job.payload["chat_id"])
        daily = await self.store.read(daily_sql.get_daily, platform, chat_id)
        if daily is None:
            return None
        now = self.rounds.clock()
        following = learning.next_occurrence(now, daily.post_minute, daily.utc_offset)
        if now - job.due_at >= daily.close_hours * 3600:  # the bot was down all that time
            log.info("daily: %s chat %s missed its question due at %.0f", platform, chat_id,
                     job.due_at)
            return following
        new = self._new_round(daily, self._quiz(daily), job.due_at)
        if await self.store.write(daily_sql.start_daily, new, job.due_at, now) is not None:
            self.rounds.wake()
        return following

    def _quiz(self, daily: DailyRow) -> Quiz:
        try:
            return self.rounds.library.quiz(daily.quiz_id)
        except UnknownQuiz:  # removed since: the default quiz goes on
            return self.rounds.library.quiz(None)

    def _new_round(self, daily: DailyRow, quiz: Quiz, due_at: float) -> NewRound:
        """That day's question: every question of the quiz once (in an order of the chat's
        own) before any comes again; a computed one draws its numbers for the day."""
        day = learning.local_day(due_at, daily.utc_offset)
        n = len(quiz.questions)
        order = list(range(n))
        random.Random(f"{daily.platform}:{daily.chat_id}:{quiz.id}:{day // n}").shuffle(order)
        question = quiz.questions[order[day % n]]
        rng = random.Random(f"{daily.platform}:{daily.chat_id}:{day}")
        return NewRound(daily.platform, daily.chat_id, daily.board_chat, daily.host_id,
                        daily.host_name, quiz.id, daily.lang, (question.id,),
                        (option_order(rng, question),),
                        round(daily.close_hours * 3600), 0.0, seed=rng.getrandbits(62),
                        kind="daily")
