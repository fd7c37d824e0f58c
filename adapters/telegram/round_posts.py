"""A round's posts on Telegram: each question one group message, edited into its reveal.

The podium rides on the last reveal, so a round costs two group messages per question.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any, cast

from telegram import Bot
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, TelegramError
from telegram.ext import ExtBot

from adapters.telegram import views
from adapters.telegram.ratelimit import ROUND_LANE
from adapters.telegram.request import maybe_delivered
from adapters.telegram.turn import may_not_post, message_gone, not_modified
from bot.app.compose import App
from bot.domain.platforms import TELEGRAM
from bot.domain.round_results import MAYBE_POSTED, RoundEvent, RoundQuestion, RoundReveal
from bot.present.i18n import Catalogue
from bot.present.round_plan import RoundPlanner

log = logging.getLogger(__name__)

PLATFORM = "telegram"


def closes_in(cat: Catalogue) -> Callable[[RoundQuestion], str]:
    """Telegram shows no live timestamps: "closes in 30 s"."""
    return lambda q: views.HTML.escape(cat.t(q.lang, "round.closes_in", seconds=q.seconds))


class RoundPosts:
    """Carries a round's events out into its group: the sink the scheduler shows them through."""

    def __init__(self, app: App, bot: Callable[[], Bot]) -> None:
        self.engine = app.engine
        self.plan = RoundPlanner(app.catalogue, views.HTML, closes_in(app.catalogue),
                                 limit=TELEGRAM.card_limit)
        self._bot = bot

    async def show(self, event: RoundEvent) -> str | None:
        """Post a question (returning its message id) or edit it into its reveal; a reveal
        whose question is gone becomes a new message. A group upgraded to a supergroup
        moves there (`Engine.chat_moved`) and the post is tried once more at its new id.
        Raises what is worth another try (a rate limit, Telegram failing, a post that never
        left): the scheduler tries again. A question whose post got no answer may be in the
        group already: `MAYBE_POSTED`, never sent twice (its reveal edits it once a press
        says where it is, else is a message of its own)."""
        try:
            try:
                ref = await self._post(event)
                await self._close_lobby(event)
                return ref
            except ChatMigrated as exc:
                new_id = str(exc.new_chat_id)
                await self.engine.chat_moved(PLATFORM, event.chat_id, new_id)
                # the question's message stayed in the old chat: a reveal is a new message
                event = (replace(event, chat_id=new_id) if isinstance(event, RoundQuestion)
                         else replace(event, chat_id=new_id, message_ref=None))
                return await self._post(event)
        except (Forbidden, ChatMigrated, BadRequest) as exc:
            muted = isinstance(exc, BadRequest) and may_not_post(exc)
            if isinstance(exc, BadRequest) and not (muted or chat_gone(exc)):
                raise
            # not sendable (removed, deleted, moved twice over, or muted by an admin): the
            # round ends there instead of posting its questions into the void; the daily
            # stays on for a muted bot, whose right to post may come back
            log.info("telegram: group %s %s; round %s ends (%s)", event.chat_id,
                     "does not let the bot post" if muted else "removed the bot or is gone",
                     event.round_id, exc.message)
            await self.engine.chat_gone(PLATFORM, event.chat_id, for_good=not muted)
        return None

    async def _close_lobby(self, event: RoundEvent) -> None:
        """The round is over: its lobby says so and how to start another, and its join
        buttons come off (one edit, in the round's lane of the group's budget). Left as it
        is when that fails: pressed, the buttons say the round is over."""
        if not isinstance(event, RoundReveal) or event.lobby_ref is None:
            return
        bot = cast("ExtBot[Any]", self._bot())
        try:  # an edit of the text without reply_markup takes the keyboard off
            await bot.edit_message_text(self.plan.lobby_over(event), chat_id=int(event.chat_id),
                                        message_id=int(event.lobby_ref),
                                        rate_limit_args=ROUND_LANE)
        except TelegramError as exc:
            log.info("telegram: round %s: the lobby's buttons stay in group %s: %s",
                     event.round_id, event.chat_id, exc)

    async def _post(self, event: RoundEvent) -> str | None:
        """Send or edit the event's message; raises what Telegram refused."""
        # the application's bot is an ExtBot: its calls take the limiter's arguments
        bot, chat = cast("ExtBot[Any]", self._bot()), int(event.chat_id)
        if isinstance(event, RoundQuestion):
            card = self.plan.question(event)
        else:
            card = self.plan.reveal(event)
        text, keyboard = views.text_of(card), views.keyboard_of(card)
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
        try:
            message = await bot.send_message(chat, text, reply_markup=keyboard,
                                             rate_limit_args=ROUND_LANE)
        except NetworkError as exc:
            if not (isinstance(event, RoundQuestion) and maybe_delivered(exc)):
                raise  # a reveal is sent again: two of it beat a round without its end
            log.warning("telegram: round %s question %d got no answer from group %s (%s); "
                        "perhaps posted, so not posted again", event.round_id,
                        event.qindex + 1, event.chat_id, exc)
            return MAYBE_POSTED
        return str(message.message_id)


def chat_gone(exc: BadRequest) -> bool:
    """Telegram no longer knows the chat (deleted, or the bot is out of it for good)."""
    return "chat not found" in exc.message.lower()
