"""A group's life as Telegram tells the bot: added (one welcome), removed or muted (its
round ends at once), renamed (its title kept), upgraded to a supergroup (moved).

The bot's own membership comes as `my_chat_member` updates, which Telegram sends only to a
bot that asks for them (`webhook.ALLOWED_UPDATES`). Without them a round in a group that
removed the bot went on until its next post was refused, up to a question's time later.
The welcome still answers the service message that says the bot joined: Telegram also
sends a "joined" `my_chat_member` for the new supergroup of an upgraded group, which the
bot never left (tdlib/telegram-bot-api#266).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from telegram import Bot, ChatMember, ChatMemberRestricted, Update
from telegram.error import TelegramError
from telegram.ext import ChatMemberHandler, ContextTypes, MessageHandler, filters

from adapters.telegram import views
from adapters.telegram.turn import Turn
from bot.app.compose import App
from bot.domain.results import Actor
from bot.present.i18n import person
from bot.present.plan import Planner, Reply

log = logging.getLogger(__name__)

Callback = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]
Step = Callable[[Turn, Sequence[str]], Coroutine[Any, Any, Reply]]
PRESENT = (ChatMember.MEMBER, ChatMember.ADMINISTRATOR, ChatMember.OWNER)


def present(member: ChatMember) -> bool:
    """The bot is in the chat (a restricted member still is, when `is_member`)."""
    if isinstance(member, ChatMemberRestricted):
        return member.is_member
    return member.status in PRESENT


def may_post(member: ChatMember) -> bool:
    """The bot is in the chat and may send messages there."""
    if isinstance(member, ChatMemberRestricted):
        return member.is_member and member.can_send_messages
    return present(member)


class GroupEvents:
    """What the bot does when a group changes around it."""

    def __init__(self, app: App, plan: Planner) -> None:
        self.engine, self.plan, self.chats, self.cat = app.engine, plan, app.chats, app.catalogue
        self.seconds = app.config.rounds.default_seconds  # what a bare /round gives

    def register(self, application: Any, guarded: Callable[[Step], Callback], *,
                 welcome: bool) -> None:
        """Add the handlers; `guarded` wraps a step that replies (`Handlers._guarded`);
        `welcome`: rounds run here, so the bot added to a group says how to start one."""
        if welcome:
            joined = filters.StatusUpdate.NEW_CHAT_MEMBERS | filters.StatusUpdate.CHAT_CREATED
            application.add_handler(MessageHandler(joined, guarded(self.welcome)))
        application.add_handler(ChatMemberHandler(self.membership,
                                                  ChatMemberHandler.MY_CHAT_MEMBER))
        application.add_handler(MessageHandler(filters.StatusUpdate.NEW_CHAT_TITLE,
                                               self.renamed))
        application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, self.upgraded))

    async def membership(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The bot's own membership of a group changed: removed, banned or muted, its round
        there ends now (stored as ended, its posts dropped) and, when it is out of the group,
        its question of the day goes off; the member who started the round hears why in a
        private chat (unless they took the bot out themselves). Anything else (added,
        promoted, unmuted) says nothing here."""
        change = update.my_chat_member
        if change is None or change.chat.type not in views.GROUP_CHATS:
            return
        new, chat_id = change.new_chat_member, str(change.chat.id)
        if not may_post(new):
            gone = not present(new)
            log.info("telegram: group %s %s the bot", chat_id, "removed" if gone else "muted")
            stopped = await self.engine.chat_gone(views.PLATFORM, chat_id, for_good=gone)
            host = stopped.round_host
            if host is not None and host.isdigit() and host != str(change.from_user.id):
                await self.tell(context.bot, host, change.chat.title or "", gone=gone)

    async def tell(self, bot: Bot, host: str, title: str, *, gone: bool) -> None:
        """The host of a round that ended because the bot was taken out of its group (or
        muted there): why, and how to start again, in their language, privately; a host
        who never opened a private chat with the bot cannot be told (logged)."""
        lang = await self.engine.language(Actor(views.PLATFORM, host))
        key = "round.stopped_removed" if gone else "round.stopped_muted"
        text = views.HTML.escape(self.cat.t(lang, key, group=person(lang, title)))
        try:
            await bot.send_message(int(host), text)
        except TelegramError as exc:
            log.info("telegram: could not tell user %s their round stopped: %s", host, exc)

    async def welcome(self, turn: Turn, args: Sequence[str]) -> Reply:
        """The bot added to a group (or a group created with it): one message saying how to
        start a round, in the group's language when its admins chose one (the bot was
        there before), else in that of whoever added it. Someone else joining: nothing."""
        message, bot = turn.update.effective_message, turn.bot
        if message is None or turn.actor.chat_id is None or not (
                message.group_chat_created or message.supergroup_chat_created
                or any(member.id == bot.id for member in message.new_chat_members)):
            return Reply()  # the group's posts are not for greetings
        lang = (await self.engine.group_choice(turn.actor))[1] \
            or await self.engine.language(turn.actor)
        quiz = await self.engine.first_quiz(turn.actor, lang)
        return self.plan.text(lang, "group.hello", title=quiz.title, seconds=self.seconds)

    async def note_title(self, update: Update, bot: Bot) -> None:
        """Keep a group's title (shown, never its id); one seen without it: getChat, once."""
        chat = update.effective_chat
        if self.chats is not None and chat is not None and chat.type in views.GROUP_CHATS:
            chat_id = chat.id
            await self.chats.note(views.PLATFORM, str(chat_id), chat.title,
                                  fetch=lambda: views.title_of(bot, chat_id))

    async def renamed(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group's new title (`new_chat_title`)."""
        await self.note_title(update, context.bot)

    async def upgraded(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group upgraded to a supergroup (a new chat id): everything of it moves there."""
        if (moved := views.moved_chat(update)) is not None:
            await self.engine.chat_moved(views.PLATFORM, *moved)
