"""One update being handled: who acts, where, and carrying out the plan's `Reply`.

`Turn.deliver` is the only code that turns a plan into Bot API calls: the ack at once, then
the edit and the new messages through the chat's outbox, in order.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from telegram import Bot, Message, ReplyParameters, Update
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError, TimedOut

from adapters.telegram import views
from adapters.telegram.observe import error_kind
from adapters.telegram.outbox import Outbox
from bot.app.metrics import Metrics
from bot.domain.errors import QuizError
from bot.domain.results import Actor
from bot.present.plan import Card, Planner, Reply, draw_pictures

if TYPE_CHECKING:
    from bot.features.engine import Engine

log = logging.getLogger(__name__)
CAPTION_LIMIT = 1024  # Telegram's limit on a photo caption
MayReply = Callable[[int], Awaitable[bool]]  # update id -> may this worker reply to it
Asked = Callable[[Card, str], Awaitable[None]]  # a sent card the engine follows, message id


def not_modified(exc: BadRequest) -> bool:
    """Telegram refuses an edit that changes nothing; the message already says it."""
    return "message is not modified" in exc.message.lower()


def no_text(exc: BadRequest) -> bool:
    """A photo message (a question with its diagram) has a caption, not a text to edit."""
    return "no text in the message to edit" in exc.message.lower()


def message_gone(exc: BadRequest) -> bool:
    """The message was deleted, or is too old to edit."""
    text = exc.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


NOT_ALLOWED_TO_POST = ("not enough rights to send", "have no rights to send",
                      "chat_write_forbidden", "need administrator rights")


def may_not_post(exc: BadRequest) -> bool:
    """The chat does not let the bot post (an admin muted it, or took away the right to post
    it had as an admin): nothing sent there arrives until someone gives the right back."""
    text = exc.message.lower()
    return any(words in text for words in NOT_ALLOWED_TO_POST)


class Turn:
    """The context of one update; handlers reply through it, never through the bot."""

    def __init__(self, update: Update, bot: Bot, actor: Actor, outbox: Outbox,
                 plan: Planner, language: Callable[[Actor], Awaitable[str]],
                 metrics: Metrics | None = None, may_reply: MayReply | None = None) -> None:
        self.update, self.bot, self.actor, self.outbox = update, bot, actor, outbox
        self.plan, self._language = plan, language
        self._may_reply, self._cleared = may_reply, may_reply is None
        self.metrics, self.received = metrics, time.perf_counter()  # metrics hook (issue 14)
        self.query = update.callback_query
        chat = update.effective_chat
        self.chat_id = chat.id if chat is not None else int(actor.user_id)
        self._acked = self.query is None
        self.opens: int | None = None  # the session whose question this turn posts, if any
        # a typed answer's question message, edited as a tap edits the message tapped
        self.answering: int | None = None
        self.asked: Asked | None = None  # notes a sent question a number may answer
        self._apologised = False  # a failed send was apologised for (once: it may fail too)

    @property
    def pressed(self) -> bool:
        """True for a button press whose callback query is still unanswered."""
        return self.query is not None and not self._acked

    async def ack(self, text: str | None = None, *, alert: bool = False,
                  url: str | None = None) -> None:
        """Answer the callback query (once); a failure here never stops the reply. `url`
        (a t.me link to this bot with a start parameter) opens the private chat."""
        if self._acked or self.query is None:
            return
        self._acked = True
        if not await self.cleared():
            return
        try:
            await self.query.answer(text, show_alert=alert, url=url)
        except TelegramError as exc:  # e.g. a query too old after a restart
            self.failed(exc)
            log.warning("telegram: answerCallbackQuery failed: %s", exc)
        else:
            if self.metrics is not None:  # metrics hook (issue 14)
                self.metrics.observe_ack("telegram", time.perf_counter() - self.received)

    async def cleared(self) -> bool:
        """May this turn send? Asked once, before its first Bot API call: the webhook
        inbox marks the update done then, and says no when another worker already
        replied to it (polling: always yes)."""
        if not self._cleared and self._may_reply is not None:
            self._cleared = await self._may_reply(self.update.update_id)
            self._may_reply = None  # asked once: the answer stands for the whole turn
        return self._cleared

    def failed(self, exc: BaseException) -> None:
        """Count a Bot API failure by kind (anything else is not an API error)."""
        kind = error_kind(exc)
        if kind is not None and self.metrics is not None:
            self.metrics.api_error("telegram", kind)

    async def deliver(self, reply: Reply) -> None:
        """Carry out a plan: the ack now; the edit and new messages in the chat's order."""
        await self.ack(reply.ack, alert=reply.alert, url=reply.ack_url)
        if reply.edit is None and not reply.clear_buttons and not reply.send:
            return
        if not await self.cleared():
            return
        self.outbox.post(self.chat_id, lambda: self._guarded(self._effects(reply)))

    async def _effects(self, reply: Reply) -> None:
        await draw_pictures(reply.edit, *reply.send)
        if reply.edit is not None:
            await self.edit(reply.edit)
            if (png := reply.edit.png()) is not None:  # a text edit cannot carry a picture
                await self.bot.send_photo(self.chat_id, png[1], filename=png[0],
                                          caption=reply.edit.caption or None)
        elif reply.clear_buttons:
            await self.drop_buttons()
        for card in reply.send:
            sent = await self.say(card)
            if (card.asks is not None or card.lobby is not None) and self.asked is not None:
                await self.asked(card, str(sent.message_id))

    async def _guarded(self, work: Awaitable[None]) -> None:
        """Platform refusals of a deferred send are logged, never raised into the outbox."""
        try:
            await work
        except TelegramError as exc:
            self.failed(exc)  # metrics hook (issue 14)
            if self.opens is not None:  # a start seconds later must post it, not point at it
                self.outbox.lost(self.chat_id, self.opens)
            if isinstance(exc, Forbidden):
                log.info("telegram: chat %s blocked the bot or removed it; reply dropped (%s)",
                         self.chat_id, exc.message)
            elif isinstance(exc, BadRequest) and may_not_post(exc):  # an apology fails alike
                log.info("telegram: chat %s does not let the bot post; reply dropped (%s)",
                         self.chat_id, exc.message)
            elif isinstance(exc, BadRequest):  # our fault: say so rather than stay silent
                log.error("telegram: Telegram refused a reply to chat %s: %s", self.chat_id, exc)
                if not self._apologised:  # once: an apology refused too is not apologised for
                    self._apologised = True
                    await self.report(None)
            elif isinstance(exc, RetryAfter | TimedOut | NetworkError):
                log.warning("telegram: reply to chat %s failed: %s", self.chat_id, exc)
            else:
                raise

    async def report(self, error: QuizError | None) -> None:
        """Tell the user about a refusal (`error`) or a failure (None): a pop-up for a
        press, a message for a command; a failure here is only logged."""
        try:
            lang = await self._language(self.actor)
        except Exception:  # the store failing may be why we are here
            lang = self.plan.cat.default
        try:
            await self.deliver(self.plan.error(lang, error, pressed=self.pressed))
        except Exception as exc:  # nothing more we can tell the user
            log.warning("telegram: could not report an error to chat %s: %s", self.chat_id, exc)

    async def say(self, card: Card) -> Message:
        """Send a card to the chat (in groups, as a reply to the command)."""
        reply = None
        message = self.update.message
        if self.actor.chat_id is not None and message is not None:
            reply = ReplyParameters(message.message_id, allow_sending_without_reply=True)
        text = views.text_of(card)
        if (png := card.png()) is not None:  # a photo, captioned when the text fits
            if len(text) <= CAPTION_LIMIT:
                return await self.bot.send_photo(self.chat_id, png[1], caption=text,
                                                 filename=png[0],
                                                 reply_markup=views.keyboard_of(card),
                                                 reply_parameters=reply)
            await self.bot.send_message(self.chat_id, text, reply_parameters=reply)
            return await self.bot.send_photo(self.chat_id, png[1], filename=png[0],
                                             reply_markup=views.keyboard_of(card))
        return await self.bot.send_message(self.chat_id, text,
                                           reply_markup=views.keyboard_of(card),
                                           reply_parameters=reply)

    @property
    def tapped_message_id(self) -> int | None:
        message = self.query.message if self.query is not None else None
        return message.message_id if message is not None else self.answering

    async def edit(self, card: Card) -> None:
        """Replace the tapped message; if it vanished, send the card as a new message."""
        message_id = self.tapped_message_id
        if message_id is None:
            await self.say(card)
            return
        try:
            await self.bot.edit_message_text(views.text_of(card), chat_id=self.chat_id,
                                             message_id=message_id,
                                             reply_markup=views.keyboard_of(card))
        except BadRequest as exc:
            if not_modified(exc):
                return
            if no_text(exc):  # keep the photo, take its buttons off, post the card below
                await self.drop_buttons()
                await self.say(card)
                return
            if not message_gone(exc):
                raise
            log.info("telegram: message %s in chat %s is gone; sending a new one",
                     message_id, self.chat_id)
            await self.say(card)

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
        await self.ack()


async def note_sent(engine: Engine, actor: Actor, card: Card, message_id: str) -> None:
    """Tell the engine where a card it follows was posted: a question a typed number may
    answer (`Card.asks`), a round's lobby, whose join buttons the round's end takes off."""
    if card.asks is not None:
        await engine.question_sent(actor, *card.asks, message_id)
    if card.lobby is not None:
        await engine.lobby_posted(card.lobby, message_id)
