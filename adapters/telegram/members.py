"""Who is in a Telegram group, and who manages it: getChatMember, asked when it matters."""

from __future__ import annotations

import logging
from collections.abc import Callable

from telegram import Bot, ChatMember
from telegram.error import ChatMigrated, TelegramError

from bot.domain.results import Actor
from bot.domain.rights import Manages

log = logging.getLogger(__name__)

MANAGERS = frozenset({ChatMember.ADMINISTRATOR, ChatMember.OWNER})
MEMBERS = MANAGERS | {ChatMember.MEMBER, ChatMember.RESTRICTED}


async def is_member(bot: Bot, chat_id: int, user_id: int) -> bool:
    """Ask Telegram whether the user is in the group."""
    member = await _asked(bot, chat_id, user_id)
    return member is not None and _counts(member, False)


async def _asked(bot: Bot, chat_id: int, user_id: int) -> ChatMember | None:
    """The member as Telegram has them (getChatMember); None when it would not say."""
    try:
        return await bot.get_chat_member(chat_id, user_id)
    except TelegramError as exc:
        log.info("telegram: getChatMember(%s, %s) failed: %s", chat_id, user_id, exc)
        return None


def manager_check(bot: Callable[[], Bot], actor: Actor, *, anonymous_admin: bool) -> Manages:
    """Whether the member administers the group they typed in, asked of Telegram only when
    it matters (`rights.Manages`): an anonymous admin posting as the group is one by
    Telegram's word; a channel posting in the group is no member; None when Telegram could
    not be asked (refused, and nothing concluded: a demoted admin's note stays)."""
    if anonymous_admin:
        return True
    async def check() -> bool | None:
        if actor.chat_id is None or not actor.user_id.isdigit():
            return False
        member = await _asked(bot(), int(actor.chat_id), int(actor.user_id))
        return None if member is None else _counts(member, True)
    return check


async def member_where(bot: Bot, chat_id: int, user_id: int) -> tuple[int, bool]:
    """(the group's id now, whether the user is in it): a group upgraded to a supergroup
    since (an old deep link names its old id) is asked again at its new id."""
    try:
        return chat_id, _counts(await bot.get_chat_member(chat_id, user_id), False)
    except ChatMigrated as exc:
        moved = int(exc.new_chat_id)
        return moved, await is_member(bot, moved, user_id)
    except TelegramError as exc:
        log.info("telegram: getChatMember(%s, %s) failed: %s", chat_id, user_id, exc)
        return chat_id, False


def _counts(member: ChatMember, manager: bool) -> bool:
    if member.status == ChatMember.RESTRICTED and not manager:
        return bool(getattr(member, "is_member", False))
    return member.status in (MANAGERS if manager else MEMBERS)
