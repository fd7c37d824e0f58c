"""Rounds on Telegram: `/round` in groups, the driver's sink, deep links for solo play.

A round's question is one group message; its reveal is an edit of that message (the podium
rides on the last one), so a round costs two group messages per question. Solo play started
in a group opens in a private chat through a deep link that names the group, so the result
still counts on the group's board.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from aiolimiter import AsyncLimiter
from telegram import Bot, ChatMember
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import AIORateLimiter, ExtBot

from adapters.telegram import views
from adapters.telegram.turn import message_gone, not_modified
from bot.app.compose import App
from bot.domain.errors import BadDaily, BadRoundOptions
from bot.domain.payloads import base36
from bot.domain.platforms import TELEGRAM
from bot.domain.results import Actor, Misplaced
from bot.domain.round_results import PressRefused, RoundEvent, RoundQuestion, WhoAnswered
from bot.domain.round_rules import DEFAULT_SCORING, MAX_TEAMS, MIN_TEAMS, SCORINGS
from bot.features.round_driver import RoundDriver
from bot.features.rounds import Rounds
from bot.present.i18n import Catalogue
from bot.present.plan import Button, Card, Planner, Reply
from bot.present.round_plan import RoundPlanner

log = logging.getLogger(__name__)

PLATFORM = "telegram"
MANAGERS = frozenset({ChatMember.ADMINISTRATOR, ChatMember.OWNER})
MEMBERS = MANAGERS | {ChatMember.MEMBER, ChatMember.RESTRICTED}
# /start payload of a solo quiz opened from a group: g<-chat id, base36>_<quiz id>
GROUP_START = re.compile(r"g(?P<chat>[0-9a-z]{1,13})_(?P<quiz>[a-z0-9_-]{1,40})")
# /start payload of a reveal's "Who answered?": w<round, base36>_<question index>
WHO_START = re.compile(r"w(?P<round>[0-9a-z]{1,12})_(?P<qindex>[0-9]{1,3})")
START_PAYLOAD_LIMIT = 64
# The Bot API calls that post into a chat: the only ones Telegram's ~20 a minute per group
# applies to, so the only ones the group bucket should meter.
CHAT_POSTS = frozenset({"sendMessage", "editMessageText", "editMessageReplyMarkup",
                        "sendPhoto", "editMessageMedia", "editMessageCaption", "deleteMessage"})


ROUND_LANE = 3  # `rate_limit_args` of a round's posts: their lane (and 3 retries on 429)
REPLIES_PER_MINUTE = 10  # what command replies may take of a group's 20 posts a minute
MEMBER_QUIET = 60.0  # seconds: one reply per member while a round runs, the rest dropped


class GroupPostRateLimiter(AIORateLimiter):
    """PTB's limiter, but the per-group bucket only counts posts into the group, and a
    round's posts have a lane of their own.

    PTB meters every call with a negative chat_id (getChatMember too) against the group's
    20 a minute; admin checks and deep-link checks would then eat the budget a reveal needs.
    Command replies into a group first pass a bucket of REPLIES_PER_MINUTE, so however busy
    the members are, half the group's budget stays free and a round's posts (sent with
    `rate_limit_args=ROUND_LANE`) never queue behind replies.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._replies: dict[int, AsyncLimiter] = {}

    async def process_request(self, callback: Callable[..., Any], args: Any,
                              kwargs: dict[str, Any], endpoint: str, data: dict[str, Any],
                              rate_limit_args: int | None) -> Any:
        if endpoint not in CHAT_POSTS and "chat_id" in data:
            data = {k: v for k, v in data.items() if k != "chat_id"}  # the request keeps it
        chat = data.get("chat_id")
        if (endpoint in CHAT_POSTS and rate_limit_args != ROUND_LANE and isinstance(chat, int)
                and chat < 0):
            lane = self._replies.setdefault(chat, AsyncLimiter(REPLIES_PER_MINUTE, 60))
            async with lane:
                return await super().process_request(callback, args, kwargs, endpoint, data,
                                                      rate_limit_args)
        return await super().process_request(callback, args, kwargs, endpoint, data,
                                              rate_limit_args)


RoundOptions = tuple[str | None, int | None, int, str, bool]


def parse_round(args: Sequence[str]) -> RoundOptions | None:
    """`[quiz] [seconds] [teams N] [scoring MODE] [untimed]` in any order: (quiz, seconds,
    teams, scoring, untimed), or None when a word does not parse (the usage line)."""
    quiz_id, seconds, teams, scoring, untimed = None, None, 0, DEFAULT_SCORING, False
    words = iter(a.lower() for a in args)
    for word in words:
        if word == "teams":
            n = next(words, "")
            if not (n.isdigit() and MIN_TEAMS <= int(n) <= MAX_TEAMS):
                return None
            teams = int(n)
        elif word == "scoring":
            scoring = next(words, "")
            if scoring not in SCORINGS:
                return None
        elif word == "untimed":
            untimed = True
        elif word.isdigit():
            seconds = int(word)
        elif quiz_id is None:
            quiz_id = word
        else:
            return None
    return quiz_id, seconds, teams, scoring, untimed


def closes_in(cat: Catalogue) -> Callable[[RoundQuestion], str]:
    """Telegram shows no live timestamps: "closes in 30 s"."""
    return lambda q: views.HTML.escape(cat.t(q.lang, "round.closes_in", seconds=q.seconds))


def start_payload(chat_id: str, quiz_id: str) -> str | None:
    """The deep-link payload of a solo quiz started from group `chat_id`, if it fits."""
    chat = int(chat_id)
    if chat >= 0:
        return None
    data = f"g{base36(-chat)}_{quiz_id}"
    return data if len(data) <= START_PAYLOAD_LIMIT and GROUP_START.fullmatch(data) else None


def parse_start(data: str) -> tuple[int, str] | None:
    """(group chat id, quiz id) from a deep-link payload, or None."""
    m = GROUP_START.fullmatch(data)
    return (-int(m["chat"], 36), m["quiz"]) if m else None


async def is_member(bot: Bot, chat_id: int, user_id: int, *, manager: bool = False) -> bool:
    """Ask Telegram whether the user is in the group (or one of its administrators)."""
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except TelegramError as exc:
        log.info("telegram: getChatMember(%s, %s) failed: %s", chat_id, user_id, exc)
        return False
    if member.status == ChatMember.RESTRICTED and not manager:
        return bool(getattr(member, "is_member", False))
    return member.status in (MANAGERS if manager else MEMBERS)


class TelegramRounds:
    """The `/round` command, the deep-link parts of /quiz and /start, and the sink."""

    def __init__(self, app: App, bot: Callable[[], Bot]) -> None:
        self.rounds: Rounds = app.rounds
        self.engine, self.cat = app.engine, app.catalogue
        self.dailies = app.engine.dailies
        self.plan = Planner(app.catalogue, views.HTML, shared_chats=True)
        self.round_plan = RoundPlanner(app.catalogue, views.HTML, closes_in(app.catalogue),
                                       limit=TELEGRAM.card_limit)
        self._bot = bot
        self.driver = RoundDriver(self.rounds, PLATFORM, self.show)
        # (group, member) -> when they last got a reply during a round; losing it at a
        # restart only allows one more reply
        self._replied: dict[tuple[str, str], float] = {}
        self._monotonic = time.monotonic

    # --- commands --------------------------------------------------------------------------

    async def command(self, actor: Actor, args: Sequence[str], *,
                      group_admin: bool = False) -> Reply:
        """/round [quiz] [seconds] | /round stop | /round skip. `group_admin`: Telegram
        says the sender is an administrator (an anonymous admin posting as the group)."""
        lang = await self.engine.language(actor)
        if actor.chat_id is None:
            return self.plan.text(lang, "round.groups_only")
        word = args[0].lower() if args else ""
        manage: bool | Callable[[], Awaitable[bool]] = (
            True if group_admin else self._manager_check(actor))
        if word == "stop":
            self.driver.submit(await self.rounds.stop(actor, actor.chat_id, may_manage=manage))
            return Reply()
        if word == "skip":
            await self.rounds.skip(actor, actor.chat_id, may_manage=manage)
            return Reply()
        options = parse_round(args)
        if options is None:
            raise BadRoundOptions()
        quiz_id, seconds, teams, scoring, untimed = options
        started = await self.rounds.start(actor, actor.chat_id, quiz_id, seconds=seconds,
                                          scoring=scoring, teams=teams, untimed=untimed)
        if started.lobby:  # members join by button before question 1
            return self.round_plan.started(started)
        return Reply()  # the first question, posted by the driver at once, is the answer

    async def daily(self, actor: Actor, args: Sequence[str], *,
                    group_admin: bool = False) -> Reply:
        """/daily on HH:MM [+HH:MM] [quiz] | /daily off: the group's admins only."""
        lang = await self.engine.language(actor)
        if actor.chat_id is None:
            return self.plan.text(lang, "round.groups_only")
        manage: bool | Callable[[], Awaitable[bool]] = (
            True if group_admin else self._manager_check(actor))
        words = [a.lower() for a in args]
        if words == ["off"]:
            done = await self.dailies.switch_off(actor, actor.chat_id, may_manage=manage)
            return self.round_plan.daily_set(done)
        if len(words) < 2 or words[0] != "on" or len(words) > 4:
            raise BadDaily()
        at, rest = words[1], words[2:]
        offset = next((w for w in rest if w[:1] in "+-" or w.startswith(("utc", "gmt"))), None)
        quizzes = [w for w in rest if w != offset]
        if len(quizzes) > 1:
            raise BadDaily()
        done = await self.dailies.switch_on(actor, actor.chat_id, at, offset,
                                            quizzes[0] if quizzes else None, may_manage=manage)
        return self.round_plan.daily_set(done)

    async def quiet(self, actor: Actor) -> bool:
        """True when this group command should go unanswered: a round is running here and
        the member had their one reply in the last MEMBER_QUIET seconds (the group's posts
        are for the round; one member typing /leaderboard 40 times gets one answer)."""
        if actor.chat_id is None or await self.rounds.store.active_round(
                PLATFORM, actor.chat_id) is None:
            return False
        now = self._monotonic()
        if len(self._replied) > 10_000:  # forget what no longer matters
            self._replied = {k: t for k, t in self._replied.items() if now - t < MEMBER_QUIET}
        key = (actor.chat_id, actor.user_id)
        if now - self._replied.get(key, -MEMBER_QUIET) < MEMBER_QUIET:
            return True
        self._replied[key] = now
        return False

    def _manager_check(self, actor: Actor) -> Callable[[], Awaitable[bool]]:
        async def check() -> bool:
            assert actor.chat_id is not None
            if not actor.user_id.isdigit():  # a channel posting in the group: no member
                return False
            return await is_member(self._bot(), int(actor.chat_id), int(actor.user_id),
                                   manager=True)
        return check

    def solo_link(self, actor: Actor, lang: str, quiz_id: str | None) -> Reply | None:
        """/quiz in a group: one message with a button into a private chat, or None where
        the bot's username or the payload do not allow a link."""
        assert actor.chat_id is not None
        quiz = self.engine.quiz(quiz_id)
        data = start_payload(actor.chat_id, quiz.id)
        return self.private_link(actor, lang, data) if data is not None else None

    def private_link(self, actor: Actor, lang: str, data: str) -> Reply | None:
        """One message with a button that opens `/start <data>` in a private chat with the
        bot: how a group hands a learner their solo questions without filling up."""
        username = self._bot().username
        if not username:
            return None
        url = f"https://t.me/{username}?start={data}"
        text = self.plan.t(lang, "round.private_quiz", name=actor.display_name or "")
        button = Button(self.cat.t(lang, "round.private_button"), "", "primary", url=url)
        return Reply(send=(Card(text, rows=((button,),)),))

    async def group_start(self, actor: Actor, data: str) -> tuple[Actor, Reply | None] | None:
        """`/start g<chat>_<quiz>` in private: the actor as seen from that group (if Telegram
        says they are in it), and a note when they are not; None if it is no such link."""
        parsed = parse_start(data)
        if parsed is None or actor.chat_id is not None:
            return None
        chat_id, quiz_id = parsed
        self.engine.quiz(quiz_id)  # UnknownQuiz for a forged one
        if await is_member(self._bot(), chat_id, int(actor.user_id)):
            return Actor(actor.platform, actor.user_id, str(chat_id), actor.display_name,
                         actor.locale), None
        return actor, self.plan.text(await self.engine.language(actor), "round.not_member")

    # --- "Who answered?": the full list in the private chat ---------------------------------

    def who_link(self, who: WhoAnswered) -> str | None:
        """The deep link that opens a reveal's full list in the private chat with the bot."""
        username = self._bot().username
        if not username:
            return None
        return f"https://t.me/{username}?start=w{base36(who.round_id)}_{who.qindex}"

    async def who_start(self, actor: Actor, data: str
                        ) -> WhoAnswered | PressRefused | Misplaced | None:
        """`/start w<round>_<question>` in private: the list's first page, for members of
        the round's group only (Telegram is asked); None if it is no such link."""
        m = WHO_START.fullmatch(data)
        if m is None or actor.chat_id is not None:
            return None
        who = await self.rounds.who(actor, int(m["round"], 36), int(m["qindex"]))
        if isinstance(who, WhoAnswered) and not await is_member(
                self._bot(), int(who.chat_id), int(actor.user_id)):
            return Misplaced(who.lang)
        return who

    # --- the driver's sink -------------------------------------------------------------------

    async def show(self, event: RoundEvent) -> str | None:
        """Post a question (returning its message id) or edit it into its reveal; a reveal
        whose question is gone becomes a new message. Raises what is worth another try
        (a rate limit, a time-out, Telegram failing): the driver tries again."""
        # the application's bot is an ExtBot: its calls take the limiter's arguments
        bot, chat = cast("ExtBot[Any]", self._bot()), int(event.chat_id)
        if isinstance(event, RoundQuestion):
            card = self.round_plan.question(event)
        else:
            card = self.round_plan.reveal(event)
        text, keyboard = views.text_of(card), views.keyboard_of(card)
        try:
            if not isinstance(event, RoundQuestion) and event.message_ref is not None:
                try:
                    await bot.edit_message_text(text, chat_id=chat,
                                                message_id=int(event.message_ref),
                                                reply_markup=keyboard,
                                                rate_limit_args=ROUND_LANE)
                    return None
                except BadRequest as exc:
                    if not_modified(exc):
                        return None
                    if not message_gone(exc):
                        raise
            message = await bot.send_message(chat, text, reply_markup=keyboard,
                                             rate_limit_args=ROUND_LANE)
            return str(message.message_id)
        except Forbidden as exc:  # never sendable again: done
            log.info("telegram: group %s removed the bot; round %s unseen (%s)", chat,
                     event.round_id, exc.message)
            await self.dailies.chat_gone(PLATFORM, event.chat_id)
        return None
