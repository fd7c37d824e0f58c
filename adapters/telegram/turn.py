"""One update being handled: who acts, where, and replies that survive Telegram's quirks."""

from __future__ import annotations

import logging
import time

from telegram import Bot, InlineKeyboardMarkup, Message, ReplyParameters, Update
from telegram.error import BadRequest, TelegramError

from adapters.telegram.observe import error_kind
from bot.engine import Engine
from bot.metrics import Metrics
from bot.results import Actor

log = logging.getLogger(__name__)


def not_modified(exc: BadRequest) -> bool:
    """Telegram refuses an edit that changes nothing; the message already says it."""
    return "message is not modified" in exc.message.lower()


def message_gone(exc: BadRequest) -> bool:
    """The message was deleted, or is too old to edit."""
    text = exc.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


class Turn:
    """The context of one update; handlers reply through it, never through the bot."""

    def __init__(self, update: Update, bot: Bot, engine: Engine, actor: Actor,
                 metrics: Metrics | None = None) -> None:
        self.update, self.bot, self.engine, self.actor = update, bot, engine, actor
        self.metrics, self.received = metrics, time.perf_counter()  # metrics hook (issue 14)
        self.query = update.callback_query
        chat = update.effective_chat
        self.chat_id = chat.id if chat is not None else int(actor.user_id)
        self._lang: str | None = None
        self._answered = self.query is None

    async def lang(self) -> str:
        """The user's language (asks the engine once per update)."""
        if self._lang is None:
            self._lang = await self.engine.language(self.actor)
        return self._lang

    def use_lang(self, lang: str) -> None:
        """Remember a language the engine already told us (saves a lookup)."""
        self._lang = lang

    @property
    def answered(self) -> bool:
        """True once the callback query got its answer (always True for messages)."""
        return self._answered

    async def toast(self, text: str | None = None, *, alert: bool = False) -> None:
        """Answer the callback query (once); a failure here never stops the reply."""
        if self._answered or self.query is None:
            return
        self._answered = True
        try:
            await self.query.answer(text, show_alert=alert)
        except TelegramError as exc:  # e.g. a query too old after a restart
            log.warning("telegram: answerCallbackQuery failed: %s", exc)
            self.failed(exc)
        else:
            if self.metrics is not None:  # metrics hook (issue 14)
                self.metrics.observe_ack("telegram", time.perf_counter() - self.received)

    def failed(self, exc: BaseException) -> None:
        """Count a Bot API failure by kind (anything else is not an API error)."""
        kind = error_kind(exc)
        if kind is not None and self.metrics is not None:
            self.metrics.api_error("telegram", kind)

    async def say(self, text: str, markup: InlineKeyboardMarkup | None = None) -> Message:
        """Send a message to the chat (in groups, as a reply to the command)."""
        reply = None
        message = self.update.message
        if self.actor.chat_id is not None and message is not None:
            reply = ReplyParameters(message.message_id, allow_sending_without_reply=True)
        return await self.bot.send_message(self.chat_id, text, reply_markup=markup,
                                           reply_parameters=reply)

    @property
    def tapped_message_id(self) -> int | None:
        message = self.query.message if self.query is not None else None
        return message.message_id if message is not None else None

    async def edit(self, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
        """Replace the tapped message; if it vanished, send the text as a new message."""
        message_id = self.tapped_message_id
        if message_id is None:
            await self.say(text, markup)
            return
        try:
            await self.bot.edit_message_text(text, chat_id=self.chat_id, message_id=message_id,
                                             reply_markup=markup)
        except BadRequest as exc:
            if not_modified(exc):
                return
            if not message_gone(exc):
                raise
            log.info("telegram: message %s in chat %s is gone; sending a new one",
                     message_id, self.chat_id)
            await self.say(text, markup)

    async def drop_buttons(self) -> None:
        """Take the buttons off the tapped message, if it still has any."""
        message_id = self.tapped_message_id
        if message_id is None:
            return
        try:
            await self.bot.edit_message_reply_markup(chat_id=self.chat_id,
                                                     message_id=message_id, reply_markup=None)
        except BadRequest as exc:
            if not (not_modified(exc) or message_gone(exc)):
                raise

    async def finish(self) -> None:
        """Every callback query gets an answer, or the user's button spins for seconds."""
        await self.toast()
