"""What a learner sends in a private chat that is no command: a number typed there answers
the computed question open there; text when no such question is open ("hi", a letter typed
instead of tapped) and a message that is not text (a photo, a sticker, a voice note) get one
short reply saying what the bot reads, once per chat per NOT_TEXT_QUIET (an album of ten
photos is ten messages; Telegram allows about one message a second per chat).
In a group the bot answers neither: it is not spoken to there."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.base.lately import SaidLately
from adapters.telegram.turn import Turn
from bot.app.compose import App
from bot.domain.product_limits import NOT_TEXT_QUIET
from bot.present.plan import Planner, Reply


class PrivateChat:
    """The handler steps for text and other messages in a learner's private chat."""

    def __init__(self, app: App, plan: Planner) -> None:
        self.engine, self.plan = app.engine, plan
        self._told = SaidLately(lambda: self.engine.clock(), NOT_TEXT_QUIET)

    async def typed(self, turn: Turn, args: Sequence[str]) -> Reply:
        """Text: the answer to the computed question open there, if any; with none open, what
        the bot reads (once per NOT_TEXT_QUIET): a first "hi" met silence, as if the bot
        were down."""
        message = turn.update.message
        if message is None or message.text is None:
            return Reply()
        typed = await self.engine.answer_text(turn.actor, message.text)
        if typed.outcome is None:
            if typed.asked or self._told(turn.chat_id):
                return Reply()
            return self.plan.text(await self.engine.language(turn.actor), "chat.no_question")
        turn.answering = int(typed.message_id) if typed.message_id else None
        return self.plan.typed(typed.outcome, turn.actor)

    async def not_text(self, turn: Turn, args: Sequence[str]) -> Reply:
        """A photo, sticker, voice note, location...: what the bot reads (buttons, a typed
        number, /help), in the learner's language, once per NOT_TEXT_QUIET."""
        if self._told(turn.chat_id):  # (the handler's filter keeps groups out)
            return Reply()
        return self.plan.text(await self.engine.language(turn.actor), "chat.not_text")
