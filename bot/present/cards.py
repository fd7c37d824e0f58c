"""What a turn shows, as data: buttons, cards (one message each) and the reply of a turn.

`bot.present.plan` builds them; each adapter only carries them out.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.domain.pipeline import ScheduleSpec
from bot.domain.quiz.images import ImageRefused, read_image
from bot.present import diagrams

log = logging.getLogger(__name__)

Style = Literal["primary", "secondary", "success", "danger"]
LABEL_LIMIT = 64  # a button label: Discord allows 80; longer ones are cut on a phone anyway
Tone = Literal["neutral", "correct", "wrong"]


@dataclass(frozen=True, slots=True)
class Button:
    label: str
    payload: str
    style: Style = "secondary"
    disabled: bool = False  # shown greyed where the platform can (Discord); else left off
    url: str = ""  # a link button (payload unused), e.g. a deep link into a private chat
    web_app: str = ""  # a Telegram Mini App button (private chats only): the page's URL


@dataclass(frozen=True, slots=True)
class Card:
    """One message: a plain-text title line, a marked-up body, rows of buttons."""

    body: str
    title: str = ""
    lead: str = ""  # a marked-up line above the title, e.g. whose question it is in a group
    tone: Tone = "neutral"
    footer: str = ""
    rows: tuple[tuple[Button, ...], ...] = ()
    image: Path | None = None  # a shipped picture (a schedule diagram): a photo / embed image
    picture: bytes | None = None  # a PNG made on the fly (the /stats chart): a photo / embed
    # a schedule drawn for a computed question's numbers (bot.present.diagrams, cached)
    schedule: ScheduleSpec | None = None
    words: diagrams.Words = diagrams.SHIPPED  # the schedule picture's, in the card's language
    figure: str = ""  # the same as monospace text, for where pictures cannot go (terminal)
    # the detail under the body (a full explanation), marked up like it; `collapse`: folded
    # where the platform can (Telegram's expandable quote; a Discord embed field named
    # `detail_label`), printed in full elsewhere
    detail: str = ""
    collapse: bool = False
    detail_label: str = ""
    caption: str = ""  # the picture's caption, marked up, in the learner's language
    # (session id, position) of the question it asks that a typed number may answer: the
    # adapter notes the sent message (engine.typed_chat.asked) so that answer can edit it
    asks: tuple[int, int] | None = None
    # a round's lobby (its join buttons), by round id: the adapter notes the sent message
    # (engine.lobby_posted) so the round's end can take the buttons off
    lobby: int | None = None

    def png(self) -> tuple[str, bytes] | None:
        """The card's picture as (file name, PNG bytes), whichever kind it has."""
        if self.image is not None:
            # read again under the loader's rules: a symlink planted since is refused
            try:
                return self.image.name, read_image(self.image)
            except ImageRefused as exc:
                log.warning("picture not sent: %s", exc)
                return None
        if self.picture is not None:
            return "stats.png", self.picture
        if self.schedule is not None:
            return f"{self.schedule.name}.png", diagrams.png(self.schedule, self.words)
        return None


@dataclass(frozen=True, slots=True)
class Reply:
    """Everything one turn shows, in order: ack, then the edit (or clearing the pressed
    message's buttons), then each card of `send`."""

    ack: str | None = None  # a press's private answer (toast / ephemeral note)
    alert: bool = False  # the ack needs dismissing (errors)
    ack_url: str | None = None  # the ack opens this link instead (Telegram: a deep link)
    edit: Card | None = None  # replaces the pressed message
    clear_buttons: bool = False  # take the buttons off the pressed message
    send: tuple[Card, ...] = ()
    public: bool = False  # others in the chat should see `send` (Discord: not ephemeral)


async def draw_pictures(*cards: Card | None) -> None:
    """Draw the cards' schedule pictures in a worker thread (a wide one takes ~0.1 s), so
    that `Card.png()` then finds them cached and the event loop never waits on drawing."""
    for card in cards:
        if card is not None and card.schedule is not None:
            await asyncio.to_thread(diagrams.png, card.schedule, card.words)
