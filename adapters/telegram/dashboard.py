"""`/dashboard` on Telegram, and the membership check the group view asks through the bot.

In a private chat `/dashboard` answers with a `web_app` button. `web_app` buttons work only
in private chats, so in a group it answers with a deep link (`/start dashg<chat>`) that
opens the private chat, where the answer is the group's `web_app` button; the page then asks
`GET /api/groups/<chat>`, which checks membership with getChatMember.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from telegram import Bot, ChatMember
from telegram.error import BadRequest, Forbidden, TelegramError

from adapters.telegram.members import MANAGERS, MEMBERS
from bot.domain.payloads import base36
from bot.domain.results import Actor
from bot.features.dashboard.pages import Role, Unavailable
from bot.present import dashboard_plan
from bot.present.i18n import Catalogue
from bot.present.plan import Reply

log = logging.getLogger(__name__)

GROUP_LINK = re.compile(r"dashg(?P<chat>[0-9a-z]{1,13})")


class TelegramDashboard:
    """The replies of /dashboard and `/start dashg<chat>`, and getChatMember roles."""

    def __init__(self, cat: Catalogue, public_url: str, bot: Callable[[], Bot]) -> None:
        self.cat, self.public_url = cat, public_url
        self._bot = bot

    def command(self, actor: Actor, lang: str) -> Reply:
        """/dashboard: the learner's page here, or, in a group, a link to the group's."""
        if not self.public_url:
            return dashboard_plan.not_set_up(self.cat, lang)
        chat = int(actor.chat_id) if actor.chat_id is not None else None
        if chat is None:
            return dashboard_plan.mini_app(self.cat, lang,
                                           dashboard_plan.app_url(self.public_url))
        username = self._bot().username
        if chat >= 0 or not username:
            return dashboard_plan.not_set_up(self.cat, lang)
        link = f"https://t.me/{username}?start=dashg{base36(-chat)}"
        return dashboard_plan.group_link(self.cat, lang, link)

    def start_link(self, actor: Actor, lang: str, data: str) -> Reply | None:
        """`/start dashg<chat>` in private: the group's `web_app` button (membership is
        checked when the page asks for the group); None if it is no such link."""
        m = GROUP_LINK.fullmatch(data)
        if m is None or actor.chat_id is not None:
            return None
        if not self.public_url:
            return dashboard_plan.not_set_up(self.cat, lang)
        group = str(-int(m["chat"], 36))
        return dashboard_plan.mini_app(
            self.cat, lang, dashboard_plan.app_url(self.public_url, group), group=True)

    async def role(self, group_id: str, user_id: str) -> Role:
        """The user's role in the group, from getChatMember; Unavailable when Telegram
        cannot be asked now."""
        try:
            chat, user = int(group_id), int(user_id)
        except ValueError:
            return Role(False)
        try:
            member = await self._bot().get_chat_member(chat, user)
        except (BadRequest, Forbidden) as exc:  # no such chat, or the bot is not in it
            log.info("telegram: getChatMember(%s, %s): %s", chat, user, exc.message)
            # Telegram answers "chat not found" (400) or "bot is not a member" / "bot was
            # kicked" (403) once the bot was removed: the page says to add it back.
            gone = isinstance(exc, Forbidden) or "chat not found" in exc.message.lower()
            return Role(False, bot_gone=gone)
        except TelegramError as exc:
            raise Unavailable(f"telegram: getChatMember failed: {exc}") from None
        if member.status == ChatMember.RESTRICTED:
            return Role(bool(getattr(member, "is_member", False)))
        return Role(member.status in MEMBERS, member.status in MANAGERS)
