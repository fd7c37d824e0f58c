"""A number typed in a private chat (Telegram) as the answer to the question open there.

A tap edits the message it came from; a typed answer has no such message, so the question
message the bot posted is noted here (`asked`) and handed back with the answer, and the
adapter edits that message as a tap would. Text that is no number is asked again once with an
example; the second in a row gets a short hint that the buttons work too; later ones get no
reply (the learner is not answering), until a number or the next question.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.domain.results import Actor, TypedOutcome, TypedRefused
from bot.features.sessions import Sessions
from bot.store.commands.question_messages_sql import count_refusal, note_question, shown_question
from bot.store.protocol import Store

NOT_NUMBER = "typed.not_number"
NOT_NUMBER_AGAIN = "typed.not_number_again"


@dataclass(frozen=True, slots=True)
class TypedTurn:
    """What a typed text did: `outcome` None means no reply; `message_id` is the message
    showing the answered question (None: not known, the result is sent as a new message);
    `asked` is False when no question that takes a typed answer was open (the text answers
    nothing, and the adapter may say what the bot reads)."""

    outcome: TypedOutcome | None
    message_id: str | None = None
    asked: bool = True


class TypedChat:
    def __init__(self, solo: Sessions, store: Store) -> None:
        self.solo, self.store = solo, store

    async def asked(self, actor: Actor, session_id: int, position: int,
                    message_id: str) -> None:
        """The bot posted question `position` of the session as `message_id`."""
        await self.store.write(note_question, actor.platform, actor.user_id, session_id,
                               position, message_id)

    async def answer(self, actor: Actor, text: str) -> TypedTurn:
        """`text` typed in the actor's private chat; no outcome when no typed-answerable
        question is open there (the text is not for the bot)."""
        target = await self.solo.typed_target(actor)
        if target is None:
            return TypedTurn(None, asked=False)
        shown = await self.store.read(shown_question, actor.platform, actor.user_id)
        message_id = (shown.message_id if shown is not None
                      and (shown.session_id, shown.position) == target else None)
        outcome = await self.solo.answer_typed(actor, *target, text)
        if isinstance(outcome, TypedRefused) and outcome.key == NOT_NUMBER:
            refusals = await self.store.write(count_refusal, actor.platform, actor.user_id,
                                              *target)
            if refusals == 2:
                return TypedTurn(replace(outcome, key=NOT_NUMBER_AGAIN, fields=()))
            if refusals > 2:
                return TypedTurn(None)
        return TypedTurn(outcome, message_id)
