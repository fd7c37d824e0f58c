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
from bot.domain.results import Where
from bot.present.i18n import has_rtl, isolate_commands
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
    escaped = discord.utils.escape_mentions(discord.utils.escape_markdown(text))
    # Discord links no "/word" in a message: a command is read and typed, never tapped, so
    # in a line with right-to-left letters it is isolated and shows "/quiz", not "quiz/"
    # (Telegram keeps its commands bare, and tappable).
    if not has_rtl(escaped):
        return escaped
    return "\n".join(isolate_commands(line) if has_rtl(line) else line
                     for line in escaped.split("\n"))


INERT = "\u200b"  # a zero-width space: breaks a form Discord would parse, and shows nothing
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(?=/)")


def member_name(name: str) -> str:
    """A member's display name as plain text on Discord, wherever it is shown (boards,
    reveals, stats, announcements, errors naming a host): no channel or role link
    (`<#id>`, `<@&id>`), timestamp (`<t:…>`), command or emoji (`</x:id>`, `<:e:id>`), no
    autolinked URL (`https://…`), no mention. Its Markdown is the line's escape's."""
    name = name.replace("<", "<" + INERT)
    name = _SCHEME.sub(lambda m: f"{m.group(1)}:{INERT}", name)
    return name.replace("@", "@" + INERT)


MARKDOWN = Markup(
    escape=_escape,
    bold=lambda text: f"**{text}**",
    link=lambda title, url: f"[{title}](<{url}>)",  # <url> keeps Discord from unfurling it
    inert=member_name,
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

    async def press(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        ...


class PayloadButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=payload.ANY_RE):
    """Every button of ours, whatever it does: its custom_id is a payload
    (`bot.domain.payloads`) and only points; `Flows.press` decodes it once and the engine
    routes it once. Registered by template, so a button keeps working after a restart."""

    def __init__(self, custom_id: str, *, label: str,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, disabled=disabled,
                                           custom_id=custom_id))
        self.custom_id = custom_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str],
                             ) -> PayloadButton:
        return cls(match.group(0), label=getattr(item, "label", None) or "?")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await cast(ButtonHandler, interaction.client.flows).press(interaction, self.custom_id)


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
    """A plan button: a link, or our one button kind carrying its payload."""
    if button.url:  # a link button (e.g. /dashboard's signed link): no custom_id
        return discord.ui.Button(label=button.label, url=button.url)
    return PayloadButton(button.payload, label=button.label, style=STYLES[button.style],
                         disabled=button.disabled)


def message_of(card: Card) -> dict[str, Any]:
    """Keyword arguments that show a card: an embed when it has a title (or is too long
    for a plain message), else plain content; its buttons as a frozen view."""
    message: dict[str, Any] = {}
    body = f"{card.lead}\n\n{card.body}" if card.lead else card.body  # e.g. "no such quiz"
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


# --- a round's channel messages -----------------------------------------------------------

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
    return _frozen(*(button_of(b) for b in buttons))


DYNAMIC_ITEMS = (PayloadButton,)
