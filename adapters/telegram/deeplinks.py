"""Deep links into the private chat: a solo quiz opened from a group (it still counts on the
group's board) and a reveal's "Who answered?" list.

Solo play started in a group opens in a private chat through a deep link that names the
group; the group itself only gets one message with a button.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from telegram import Bot

from adapters.telegram.members import is_member, member_where
from adapters.telegram.views import HTML, PLATFORM
from bot.app.compose import App
from bot.domain.payloads import base36
from bot.domain.results import Actor, CatalogueEntry, Misplaced, QuizList
from bot.domain.round_results import PressRefused, WhoAnswered
from bot.present.i18n import person
from bot.present.plan import Button, Card, Reply

# /start payload of a solo quiz opened from a group: g<-chat id, base36>_<quiz id>
GROUP_START = re.compile(r"g(?P<chat>[0-9a-z]{1,13})_(?P<quiz>[a-z0-9_-]{1,40})")
# /start payload of a reveal's "Who answered?": w<round, base36>_<question index>
WHO_START = re.compile(r"w(?P<round>[0-9a-z]{1,12})_(?P<qindex>[0-9]{1,3})")
START_PAYLOAD_LIMIT = 64


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


class DeepLinks:
    """The links a group hands out, and what `/start <payload>` opens from them."""

    def __init__(self, app: App, bot: Callable[[], Bot]) -> None:
        self.engine, self.cat = app.engine, app.catalogue
        self._bot = bot

    def _text(self, lang: str, key: str, **params: object) -> str:
        return HTML.escape(self.cat.t(lang, key, **params))

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
        text = self._text(lang, "round.private_quiz", name=person(lang, actor.display_name or ""))
        button = Button(self.cat.t(lang, "round.private_button"), "", "primary", url=url)
        return Reply(send=(Card(text, rows=((button,),)),))

    def catalogue(self, actor: Actor, quizzes: QuizList,
                  plan: Callable[[QuizList], Reply]) -> Reply | None:
        """The catalogue in a group: no one member's marks, and each quiz a link that opens it
        in a private chat, counted on this group's board (anyone there may tap it; one
        message, no second one per tap); None in a private chat or where links cannot be."""
        username = self._bot().username
        links = ([start_payload(actor.chat_id, e.info.id) for e in quizzes.entries]
                 if actor.chat_id is not None else [])
        if not username or not links or None in links:
            return None
        reply = plan(replace(quizzes, entries=tuple(CatalogueEntry(e.info)
                                                    for e in quizzes.entries)))
        card = reply.send[0]
        rows = tuple((replace(b, payload="", url=f"https://t.me/{username}?start={data}"),)
                     for (b,), data in zip(card.rows, links, strict=True))
        return replace(reply, send=(replace(card, rows=rows),))

    async def group_start(self, actor: Actor, data: str) -> tuple[Actor, Reply | None] | None:
        """`/start g<chat>_<quiz>` in private: the actor as seen from that group (if Telegram
        says they are in it), and a note when they are not; None if it is no such link."""
        parsed = parse_start(data)
        if parsed is None or actor.chat_id is not None:
            return None
        linked, quiz_id = parsed
        self.engine.quiz(quiz_id)  # UnknownQuiz for a forged one
        chat_id, member = await member_where(self._bot(), linked, int(actor.user_id))
        if chat_id != linked:  # the group is a supergroup now: the link counts there
            await self.engine.chat_moved(PLATFORM, str(linked), str(chat_id))
        if member:
            return Actor(actor.platform, actor.user_id, str(chat_id), actor.display_name,
                         actor.locale), None
        lang = await self.engine.language(actor)
        return actor, Reply(send=(Card(self._text(lang, "round.not_member")),))

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
        who = await self.engine.who_answered(actor, int(m["round"], 36), int(m["qindex"]))
        if isinstance(who, WhoAnswered) and not await is_member(
                self._bot(), int(who.chat_id), int(actor.user_id)):
            return Misplaced(who.lang)
        return who
