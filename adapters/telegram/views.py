"""Telegram presentation: HTML markup, plan cards as text + inline keyboards, who is acting.

`HTML` is the one escaping point for everything that reaches Telegram: the plan escapes
content, titles and names through it, and `text_of` escapes a card's plain title.
"""

from __future__ import annotations

import html

from telegram import (
    BotCommand,
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
    WebAppInfo,
)

from bot.domain.results import Actor
from bot.present import render
from bot.present.i18n import Catalogue
from bot.present.plan import Button, Card

PLATFORM = "telegram"
COMMANDS = ("start", "quiz", "review", "stats", "leaderboard", "language", "settings", "remind",
            "dashboard", "reset", "help", "round")
GROUP_CHATS = frozenset({Chat.GROUP, Chat.SUPERGROUP})


def _escape(text: str) -> str:
    return html.escape(text, quote=False)


def _bold(text: str) -> str:
    return f"<b>{text}</b>"


def _link(title: str, url: str) -> str:
    return f'<a href="{html.escape(url, quote=True)}">{title}</a>'


HTML = render.Markup(escape=_escape, bold=_bold, link=_link)


def actor_of(update: Update) -> Actor | None:
    """The engine's view of who sent this update; None for updates without a user."""
    user, chat = update.effective_user, update.effective_chat
    if user is None:
        return None
    group = chat is not None and chat.type in GROUP_CHATS
    return Actor(platform=PLATFORM, user_id=str(user.id),
                 chat_id=str(chat.id) if group and chat is not None else None,
                 display_name=user.full_name, locale=user.language_code)


def text_of(card: Card) -> str:
    """A card as one HTML message: the bold title line, then the body."""
    head = [card.lead] if card.lead else []
    if card.title:
        head.append(_bold(_escape(card.title)))
    return "\n".join(head) + "\n\n" + card.body if head else card.body


def keyboard_of(card: Card) -> InlineKeyboardMarkup | None:
    """The card's buttons; Telegram cannot grey a button out, so disabled ones are left off."""
    rows = [[_button(b) for b in row if not b.disabled] for row in card.rows]
    rows = [row for row in rows if row]
    return InlineKeyboardMarkup(rows) if rows else None


def _button(b: Button) -> InlineKeyboardButton:
    if b.web_app:
        return InlineKeyboardButton(b.label, web_app=WebAppInfo(b.web_app))
    if b.url:
        return InlineKeyboardButton(b.label, url=b.url)
    return InlineKeyboardButton(b.label, callback_data=b.payload)


def bot_commands(cat: Catalogue, lang: str) -> list[BotCommand]:
    """The command menu in `lang`, from the command.* strings."""
    return [BotCommand(name, cat.t(lang, f"command.{name}")) for name in COMMANDS]
