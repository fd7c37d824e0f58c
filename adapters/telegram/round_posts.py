"""A round's posts on Telegram: each question one group message, edited into its reveal.

The podium rides on the last reveal, so a round costs two group messages per question.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, cast

from telegram import Bot
from telegram.error import BadRequest, ChatMigrated, Forbidden
from telegram.ext import ExtBot

from adapters.telegram import views
from adapters.telegram.ratelimit import ROUND_LANE
from adapters.telegram.turn import message_gone, not_modified
from bot.app.compose import App
from bot.domain.platforms import TELEGRAM
from bot.domain.round_results import RoundEvent, RoundQuestion
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
        whose question is gone becomes a new message. Raises what is worth another try
        (a rate limit, a time-out, Telegram failing): the scheduler tries again."""
        # the application's bot is an ExtBot: its calls take the limiter's arguments
        bot, chat = cast("ExtBot[Any]", self._bot()), int(event.chat_id)
        if isinstance(event, RoundQuestion):
            card = self.plan.question(event)
        else:
            card = self.plan.reveal(event)
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
        except (Forbidden, ChatMigrated, BadRequest) as exc:
            if isinstance(exc, BadRequest) and not chat_gone(exc):
                raise
            # never sendable again (removed, deleted, or now a supergroup with a new id):
            # the round ends there instead of posting its questions into the void
            log.info("telegram: group %s removed the bot or is gone; round %s ends (%s)",
                     chat, event.round_id, exc.message)
            await self.engine.chat_gone(PLATFORM, event.chat_id)
        return None


def chat_gone(exc: BadRequest) -> bool:
    """Telegram no longer knows the chat (deleted, or the bot is out of it for good)."""
    return "chat not found" in exc.message.lower()
