"""Embeds, buttons and views: engine results rendered for Discord.

Buttons are `DynamicItem`s whose `template` is the payload regex, registered once on the
client, so a button keeps working after a restart: the custom_id only points, the database
decides. Views are rendering only (see `_frozen`).
"""

from __future__ import annotations

import io
import re
from typing import Any, Protocol, cast

import discord

from bot.domain import payloads as payload
from bot.domain.numeric import MAX_TYPED
from bot.domain.payloads import (
    ActionPayload,
    AnswerPayload,
    RoundPayload,
    TeamPayload,
    WhoPayload,
)
from bot.domain.results import Where
from bot.present.plan import Button, Card
from bot.present.render import Markup

FIELD_LIMIT = 1024  # characters in an embed field's value
MAX_ROWS = 5  # action rows per message, and buttons per row
MESSAGE_LIMIT = 2000  # characters in a message's content; an embed description holds 4096
COLOUR = discord.Colour.blurple()



def _escape(text: str) -> str:
    # Markdown, and mentions too: a display name "<@id>" or "@everyone" must stay text in
    # content and embeds alike (allowed_mentions is empty anyway; embeds would still render
    # a user mention as a link to that user).
    return discord.utils.escape_mentions(discord.utils.escape_markdown(text))


MARKDOWN = Markup(
    escape=_escape,
    bold=lambda text: f"**{text}**",
    link=lambda title, url: f"[{title}](<{url}>)",  # <url> keeps Discord from unfurling it
)


def where_of(interaction: discord.Interaction[Any]) -> Where:
    """The pressed message as Discord names it: its channel, its id, and whether the whole
    channel sees it (not ephemeral, in a server)."""
    message = interaction.message
    shared = (interaction.guild_id is not None and message is not None
              and not message.flags.ephemeral)
    return Where(str(interaction.channel_id), str(message.id) if message else None, shared)


class ButtonHandler(Protocol):
    """What a pressed button calls; the client carries one as `flows`."""

    async def press(self, interaction: discord.Interaction[Any],
                    pressed: payload.Payload | None) -> None:
        ...

    async def type_it(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        ...


def handler_of(interaction: discord.Interaction[Any]) -> ButtonHandler:
    """The handler of the client this interaction arrived on."""
    return cast(ButtonHandler, interaction.client.flows)


class AnswerButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=payload.ANSWER_RE):
    """A lettered answer button; its custom_id is `payload.encode_answer(...)`."""

    def __init__(self, custom_id: str, *, label: str,
                 style: discord.ButtonStyle = discord.ButtonStyle.primary,
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, disabled=disabled,
                                           custom_id=custom_id))
        pressed = payload.decode(custom_id)
        assert isinstance(pressed, AnswerPayload)  # the template guarantees it
        self.pressed = pressed

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str],
                             ) -> AnswerButton:
        return cls(match.group(0), label=getattr(item, "label", None) or "?")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await handler_of(interaction).press(interaction, self.pressed)


class ActionButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=payload.ACTION_RE):
    """Review missed, Try again, a language, a reset confirmation: `payload.encode_action`."""

    def __init__(self, custom_id: str, *, label: str,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, disabled=disabled,
                                           custom_id=custom_id))
        pressed = payload.decode(custom_id)
        # None for an action this version does not know (an old or forged button)
        self.pressed = pressed if isinstance(pressed, ActionPayload) else None

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str],
                             ) -> ActionButton:
        return cls(match.group(0), label=getattr(item, "label", None) or "?")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await handler_of(interaction).press(interaction, self.pressed)


class NumberButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=payload.NUMBER_RE):
    """"Type it" on a computed question: opens the modal a typed answer is sent with."""

    def __init__(self, custom_id: str, *, label: str,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, disabled=disabled,
                                           custom_id=custom_id))
        self.custom_id = custom_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str],
                             ) -> NumberButton:
        return cls(match.group(0), label=getattr(item, "label", None) or "?")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await handler_of(interaction).type_it(interaction, self.custom_id)


def number_modal(custom_id: str, title: str, label: str) -> discord.ui.Modal:
    """The modal "Type it" opens. Stopped before it is sent, as `_frozen` views are: its
    submission is routed by custom_id (`QuizClient.on_interaction`), so it works after a
    restart and nothing waits in discord.py's store."""
    modal = discord.ui.Modal(title=title[:45], custom_id=custom_id, timeout=None)
    modal.add_item(discord.ui.TextInput(label=label[:45], custom_id="value", min_length=1,
                                        max_length=MAX_TYPED))
    modal.stop()
    return modal


def typed_value(interaction: discord.Interaction[Any]) -> str:
    """The text a modal submission carries ("" when none)."""
    data = cast(dict[str, Any], interaction.data or {})
    for row in data.get("components") or []:
        for item in ([row.get("component")] if "component" in row
                     else row.get("components") or []):
            if item and item.get("custom_id") == "value":
                return str(item.get("value") or "")
    return ""




def _frozen(*items: discord.ui.Item[Any]) -> discord.ui.View:
    """A view to send, stopped before it goes out.

    Presses are dispatched by the DynamicItem templates registered on the client, never by
    this object, so it must not sit in discord.py's view store: a stopped view is not stored,
    gets no 15-minute ephemeral timer, and cannot leak memory over thousands of questions.
    """
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    view.stop()
    return view


# --- plan cards ------------------------------------------------------------------------------

TONES = {"neutral": COLOUR, "correct": discord.Colour.green(), "wrong": discord.Colour.red()}
STYLES = {"primary": discord.ButtonStyle.primary, "secondary": discord.ButtonStyle.secondary,
          "success": discord.ButtonStyle.success, "danger": discord.ButtonStyle.danger}


def button_of(button: Button) -> discord.ui.Item[Any]:
    """A plan button as the DynamicItem whose template matches its payload."""
    style = STYLES[button.style]
    if button.url:  # a link button (e.g. /dashboard's signed link): no custom_id
        return discord.ui.Button(label=button.label, url=button.url)
    if button.payload.startswith("a1:"):
        return AnswerButton(button.payload, label=button.label, style=style,
                            disabled=button.disabled)
    if button.payload.startswith("n1:"):
        return NumberButton(button.payload, label=button.label, style=style,
                            disabled=button.disabled)
    return ActionButton(button.payload, label=button.label, style=style,
                        disabled=button.disabled)


def message_of(card: Card) -> dict[str, Any]:
    """Keyword arguments that show a card: an embed when it has a title (or is too long
    for a plain message), else plain content; its buttons as a frozen view."""
    message: dict[str, Any] = {}
    body = card.body
    if card.caption and card.png() is not None:  # the picture's words, right above it
        body = f"{body}\n\n*{card.caption}*"
    if card.detail and not card.collapse:
        body = f"{body}\n\n{card.detail}"
    if (card.title or card.image or card.picture or card.schedule or card.detail
            or len(body) > MESSAGE_LIMIT):
        embed = discord.Embed(title=card.title or None, description=body,
                              colour=TONES[card.tone])
        if card.detail and card.collapse:  # the explanation in its own field(s), under
            for i, chunk in enumerate(chunks(card.detail, FIELD_LIMIT)):
                embed.add_field(name=card.detail_label if i == 0 else "\u200b", value=chunk,
                                inline=False)
        if card.footer:
            embed.set_footer(text=card.footer)
        if (png := card.png()) is not None:  # a schedule diagram or the /stats chart
            name, data = png
            # from memory: discord.py need not close a file it did not open
            message["file"] = discord.File(io.BytesIO(data), filename=name)
            embed.set_image(url=f"attachment://{name}")
        message["embed"] = embed
    else:
        message["content"] = body
    items: list[discord.ui.Item[Any]] = []
    for number, row in enumerate(_rows(card.rows)):  # the plan's rows stay rows (sure / guess)
        for b in row:
            item = button_of(b)
            item.row = number
            items.append(item)
    if items:  # no view at all otherwise: send_message refuses view=None
        message["view"] = _frozen(*items)
    return message


def chunks(text: str, limit: int, seps: tuple[str, ...] = ("\n\n", "\n", " ")
           ) -> list[str]:
    """`text` in pieces of at most `limit` characters, cut between paragraphs, else lines,
    else words (an embed field holds 1,024)."""
    if len(text) <= limit:
        return [text] if text else []
    if not seps:
        return [text[i:i + limit] for i in range(0, len(text), limit)]
    out: list[str] = []
    current = ""
    for piece in text.split(seps[0]):
        joined = f"{current}{seps[0]}{piece}" if current else piece
        if len(joined) <= limit:
            current = joined
            continue
        if current:
            out.append(current)
        current = piece
        if len(piece) > limit:
            *whole, current = chunks(piece, limit, seps[1:])
            out += whole
    return [*out, current] if current else out


def _rows(rows: tuple[tuple[Button, ...], ...]) -> list[tuple[Button, ...]]:
    """The plan's rows, or, past Discord's 5 rows of 5 buttons (a catalogue of 6 quizzes, a
    button each), the same buttons in order, evenly over 5 rows at most."""
    if len(rows) <= MAX_ROWS:
        return list(rows)
    flat = [b for row in rows for b in row][:MAX_ROWS * MAX_ROWS]
    per_row = -(-len(flat) // MAX_ROWS)
    return [tuple(flat[i:i + per_row]) for i in range(0, len(flat), per_row)]


def edit_of(card: Card) -> dict[str, Any]:
    """Keyword arguments that turn an existing message into `card`."""
    message = message_of(card)
    message.setdefault("content", None)
    message.setdefault("embed", None)
    message.setdefault("view", None)  # an edit with no buttons takes the old ones off
    if "file" in message:
        message["attachments"] = [message.pop("file")]
    return message


# --- a round's buttons (on its channel messages) ---------------------------------------------

class _RoundChatButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                       template=payload.ROUND_RE):
    """What every button on a round's public message does: hand its payload to
    `DiscordRounds.press` (anyone in the channel may press; the store decides)."""

    style = discord.ButtonStyle.primary

    def __init__(self, custom_id: str, *, label: str,
                 style: discord.ButtonStyle | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=style or self.style,
                                           custom_id=custom_id))
        pressed = payload.decode(custom_id)
        assert isinstance(pressed, RoundPayload | WhoPayload | TeamPayload)  # the templates'
        self.pressed = pressed

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str],
                             ) -> _RoundChatButton:
        return cls(match.group(0), label=getattr(item, "label", None) or "?")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.client.rounds.press(interaction, self.pressed)


class RoundButton(_RoundChatButton, template=payload.ROUND_RE):
    """A round's lettered button."""


class WhoButton(_RoundChatButton, template=payload.WHO_RE):
    """A reveal's "Who answered?": the full list, ephemeral, paged."""

    style = discord.ButtonStyle.secondary


class TeamButton(_RoundChatButton, template=payload.TEAM_RE):
    """A team (or untimed) round's join button, on the "round started" answer."""


ROUND_BUTTONS = {"w1:": WhoButton, "t1:": TeamButton}  # by payload prefix; else a letter


def embed_of(card: Card) -> discord.Embed:
    """A round's card as one embed (its buttons go in `view_of`)."""
    embed = discord.Embed(title=card.title or None, description=card.body, colour=COLOUR)
    if card.footer:
        embed.set_footer(text=card.footer)
    return embed


def view_of(card: Card) -> discord.ui.View | None:
    """A round's card's live buttons as a frozen view; None when it has none."""
    buttons: list[Button] = [b for row in card.rows for b in row if not b.disabled]
    if not buttons:
        return None
    return _frozen(*(ROUND_BUTTONS.get(b.payload[:3], RoundButton)(
        b.payload, label=b.label, style=STYLES[b.style]) for b in buttons))


DYNAMIC_ITEMS = (AnswerButton, ActionButton, NumberButton, RoundButton, WhoButton, TeamButton)
