"""Telegram presentation: HTML markup, inline keyboards, who is acting. No network."""

from __future__ import annotations

import html

from telegram import BotCommand, Chat, InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot import payload, render
from bot.i18n import Catalogue, is_rtl
from bot.results import Actor, QuestionPrompt, Summary

PLATFORM = "telegram"
COMMANDS = ("start", "quiz", "review", "stats", "leaderboard", "language", "reset", "help")
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


def question_message(cat: Catalogue, prompt: QuestionPrompt,
                     actor: Actor) -> tuple[str, InlineKeyboardMarkup]:
    """A question as HTML plus one row of lettered answer buttons.

    In a group several members play at once, so the question names whose it is.
    """
    text = for_member(cat, prompt.lang, actor, render.question_text(cat, prompt, HTML))
    return text, question_keyboard(prompt)


def for_member(cat: Catalogue, lang: str, actor: Actor, text: str) -> str:
    """In a group, head an HTML message with the member it is for; elsewhere unchanged."""
    if actor.chat_id is None or not actor.display_name:
        return text
    return f"{_escape(cat.t(lang, 'question.for', name=actor.display_name))}\n{text}"


def question_keyboard(prompt: QuestionPrompt) -> InlineKeyboardMarkup:
    """A, B, C, D in one row; right to left for RTL languages."""
    row = [InlineKeyboardButton(render.letter(i),
                                callback_data=payload.encode_answer(prompt.session_id,
                                                                    prompt.position, i))
           for i in range(len(prompt.options))]
    if is_rtl(prompt.lang):
        row.reverse()
    return InlineKeyboardMarkup([row])


def summary_keyboard(cat: Catalogue, summary: Summary) -> InlineKeyboardMarkup:
    """Review missed (when something was missed) and Try again."""
    row = []
    if summary.missed:
        row.append(InlineKeyboardButton(cat.t(summary.lang, "button.review"),
                                        callback_data=payload.encode_action("review",
                                                                            summary.quiz_id)))
    row.append(InlineKeyboardButton(cat.t(summary.lang, "button.retry"),
                                    callback_data=payload.encode_action("retry",
                                                                        summary.quiz_id)))
    return InlineKeyboardMarkup([row[::-1] if is_rtl(summary.lang) else row])


def start_button(cat: Catalogue, lang: str, quiz_id: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(cat.t(lang, "button.start"),
                                callback_data=payload.encode_action("start", quiz_id))


def language_keyboard(cat: Catalogue, lang: str, quiz_id: str | None = None,
                      ) -> InlineKeyboardMarkup:
    """Every shipped language, each named in itself; a Start button under them if asked."""
    row = [InlineKeyboardButton(cat.t(code, "language.name"),
                                callback_data=payload.encode_action("lang", code))
           for code in cat.languages]
    rows = [row]
    if quiz_id is not None:
        rows.append([start_button(cat, lang, quiz_id)])
    return InlineKeyboardMarkup(rows)


def start_keyboard(cat: Catalogue, lang: str, quiz_id: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[start_button(cat, lang, quiz_id)]])


def reset_keyboard(cat: Catalogue, lang: str, user_id: str) -> InlineKeyboardMarkup:
    """Yes / Cancel, bound to the user who asked (a group shares the message)."""
    row = [InlineKeyboardButton(cat.t(lang, "button.yes"),
                                callback_data=payload.encode_action("reset", f"yes-{user_id}")),
           InlineKeyboardButton(cat.t(lang, "button.no"),
                                callback_data=payload.encode_action("reset", f"no-{user_id}"))]
    return InlineKeyboardMarkup([row[::-1] if is_rtl(lang) else row])


def bot_commands(cat: Catalogue, lang: str) -> list[BotCommand]:
    """The command menu in `lang`, from the command.* strings."""
    return [BotCommand(name, cat.t(lang, f"command.{name}")) for name in COMMANDS]
