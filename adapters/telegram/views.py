"""Telegram presentation: HTML markup, plan cards as text + inline keyboards, who is acting.

`HTML` is the one escaping point for everything that reaches Telegram: the plan escapes
content, titles and names through it, and `text_of` escapes a card's plain title.
"""

from __future__ import annotations

import html
from typing import Any

from telegram import (
    Bot,
    BotCommand,
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    Update,
    WebAppInfo,
)
from telegram.ext import filters

from bot.domain.results import Actor, Where
from bot.present import render
from bot.present.i18n import Catalogue
from bot.present.plan import Button, Card

PLATFORM = "telegram"
COMMANDS = ("start", "quiz", "quizzes", "review", "stats", "leaderboard", "language",
            "settings", "remind", "dashboard", "reset", "help", "round", "daily")
GROUP_CHATS = frozenset({Chat.GROUP, Chat.SUPERGROUP})


def _escape(text: str) -> str:
    return html.escape(text, quote=False)


def _bold(text: str) -> str:
    return f"<b>{text}</b>"


def _link(title: str, url: str) -> str:
    return f'<a href="{html.escape(url, quote=True)}">{title}</a>'


HTML = render.Markup(escape=_escape, bold=_bold, link=_link)


def moved_chat(update: Update) -> tuple[str, str] | None:
    """(old chat id, new chat id) of a group upgraded to a supergroup: Telegram says so in
    both chats (`migrate_to_chat_id` in the old one, `migrate_from_chat_id` in the new)."""
    message = update.effective_message
    if message is None:
        return None
    if message.migrate_to_chat_id:
        return str(message.chat.id), str(message.migrate_to_chat_id)
    if message.migrate_from_chat_id:
        return str(message.migrate_from_chat_id), str(message.chat.id)
    return None


def actor_of(update: Update) -> Actor | None:
    """The engine's view of who sent this update; None for updates without a user.

    A message sent on behalf of a chat (an anonymous group admin, a linked channel, "post
    as channel") comes from one of Telegram's shared bot users (GroupAnonymousBot,
    Channel_Bot): it acts as that chat, "chat:<id>", so two channels are two members.
    """
    user, chat = update.effective_user, update.effective_chat
    if user is None:
        return None
    group = chat is not None and chat.type in GROUP_CHATS
    where = str(chat.id) if group and chat is not None else None
    message = update.effective_message
    sender = message.sender_chat if message is not None and update.callback_query is None \
        else None
    if sender is not None:
        return Actor(platform=PLATFORM, user_id=f"chat:{sender.id}", chat_id=where,
                     display_name=sender.title or sender.username or str(sender.id),
                     locale=None)
    return Actor(platform=PLATFORM, user_id=str(user.id), chat_id=where,
                 display_name=user.full_name, locale=user.language_code)


class _AddressedToMe(filters.MessageFilter):
    """A command that names this bot (`/top@quizbot`): meant for it, in a group too."""

    def filter(self, message: Message) -> bool:
        head = (message.text or "").split(maxsplit=1)
        name = message.get_bot().username or ""
        return bool(head and name) and head[0].lower().endswith("@" + name.lower())


# Commands none of the handlers took: in a private chat, or named for this bot in a group
# (a bare /top in a group may be another bot's, so it is left alone there)
UNKNOWN_COMMAND = filters.COMMAND & (filters.ChatType.PRIVATE | _AddressedToMe())


def anonymous_admin(update: Update) -> bool:
    """True for a message an anonymous administrator sent in its own group (Telegram names
    the group itself as the sender): an admin of that group, by Telegram's word."""
    message, chat = update.effective_message, update.effective_chat
    return (update.callback_query is None and message is not None and chat is not None
            and message.sender_chat is not None and message.sender_chat.id == chat.id)


def where_of(update: Update) -> Where:
    """The pressed message of a callback query, as Telegram names it; a query without one
    (forged) is on no message, so every button bound to a chat or message refuses it."""
    query = update.callback_query
    message = query.message if query is not None else None
    if message is None:
        return Where.nowhere()
    markup = getattr(message, "reply_markup", None)  # (an inaccessible message has none)
    keyboard = markup.inline_keyboard if isinstance(markup, InlineKeyboardMarkup) else ()
    shown = frozenset(str(b.callback_data) for row in keyboard for b in row
                      if b.callback_data is not None)
    return Where(str(message.chat.id), str(message.message_id),
                 shared=message.chat.type != Chat.PRIVATE,
                 buttons=shown if isinstance(message, Message) else None)


def text_of(card: Card) -> str:
    """A card as one HTML message: the bold title line, the body, then the detail (an
    expandable quote when it is to be collapsed: Bot API 7.3, python-telegram-bot 21.2+)."""
    head = [card.lead] if card.lead else []
    if card.title:
        head.append(_bold(_escape(card.title)))
    text = "\n".join(head) + "\n\n" + card.body if head else card.body
    if card.detail:
        detail = (f"<blockquote expandable>{card.detail}</blockquote>" if card.collapse
                  else card.detail)
        text = f"{text}\n\n{detail}"
    return text


class Keyboard(InlineKeyboardMarkup):
    """An inline keyboard that gives its Bot API JSON straight from the card's buttons: PTB's
    generic `to_dict` walks every button's attributes, a sixth of a send's CPU."""

    __slots__ = ("_wire",)

    def __init__(self, rows: list[list[Button]]) -> None:
        super().__init__([[_button(b) for b in row] for row in rows])
        self._wire = [[_wire(b) for b in row] for row in rows]

    def to_dict(self, recursive: bool = True) -> dict[str, Any]:
        """The keyboard as the Bot API takes it (what PTB's `to_dict` gives, made cheaply)."""
        return {"inline_keyboard": [[dict(b) for b in row] for row in self._wire]}


def keyboard_of(card: Card) -> InlineKeyboardMarkup | None:
    """The card's buttons; Telegram cannot grey a button out, so disabled ones are left off."""
    rows = [[b for b in row if not b.disabled] for row in card.rows]
    rows = [row for row in rows if row]
    return Keyboard(rows) if rows else None


def _button(b: Button) -> InlineKeyboardButton:
    if b.web_app:
        return InlineKeyboardButton(b.label, web_app=WebAppInfo(b.web_app))
    if b.url:
        return InlineKeyboardButton(b.label, url=b.url)
    return InlineKeyboardButton(b.label, callback_data=b.payload)


def _wire(b: Button) -> dict[str, Any]:
    if b.web_app:
        return {"text": b.label, "web_app": {"url": b.web_app}}
    if b.url:
        return {"text": b.label, "url": b.url}
    return {"text": b.label, "callback_data": b.payload}


def bot_commands(cat: Catalogue, lang: str) -> list[BotCommand]:
    """The command menu in `lang`, from the command.* strings."""
    return [BotCommand(name, cat.t(lang, f"command.{name}")) for name in COMMANDS]


async def title_of(bot: Bot, chat_id: int) -> str | None:
    """A chat's title as Telegram has it now (getChat)."""
    return (await bot.get_chat(chat_id)).title
