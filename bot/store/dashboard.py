"""`DashboardReads`: the dashboard's read commands (`bot.store.commands.dashboard`, each
written once for both dialects) run on one store, and the rows they return."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.store.commands import dashboard
from bot.store.commands.dashboard import Answered, Attempt, GroupQuestion, GroupRound, MemberRow

if TYPE_CHECKING:
    from bot.store.protocol import Store

MAX_MEMBERS = 1000  # rows of a group's member table; the count says how many more
MAX_ROUNDS = 30


class DashboardReads:
    """The reads behind `GET /api/me` and `GET /api/groups/<id>`, on one store."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def profile(self, platform: str, user_id: str) -> tuple[str, str | None] | None:
        """(display name, chosen language) of a known user, else None."""
        return await self._store.read(dashboard.profile, platform, user_id)

    async def attempts(self, platform: str, user_id: str) -> list[Attempt]:
        """The learner's finished full attempts of every quiz, oldest first."""
        return await self._store.read(dashboard.attempts, platform, user_id)

    async def answers(self, platform: str, user_id: str) -> list[Answered]:
        """The learner's answers in full attempts (solo and rounds), newest first."""
        return await self._store.read(dashboard.answers, platform, user_id)

    async def groups_of(self, platform: str, user_id: str) -> list[tuple[str, str | None]]:
        """The groups (Telegram chats, Discord servers) the learner played in, with titles."""
        return await self._store.read(dashboard.groups_of, platform, user_id)

    async def group_questions(self, platform: str, chat_id: str) -> list[GroupQuestion]:
        """Per question of the group's full attempts: accuracy, the most chosen wrong option."""
        return await self._store.read(dashboard.group_questions, platform, chat_id)

    async def group_rounds(self, platform: str, chat_id: str, limit: int = MAX_ROUNDS
                           ) -> list[GroupRound]:
        """The group's latest rounds, newest first, with how its players scored."""
        return await self._store.read(dashboard.group_rounds, platform, chat_id, limit)

    async def group_members(self, platform: str, chat_id: str, limit: int = MAX_MEMBERS
                            ) -> tuple[list[MemberRow], int]:
        """(member rows per quiz, best first; how many there are in all)."""
        return await self._store.read(dashboard.group_members, platform, chat_id, limit)

    async def group_attempt_answers(self, platform: str, chat_id: str
                                    ) -> list[dashboard.AttemptAnswer]:
        """Every answer of the group's finished full attempts, oldest attempt first."""
        return await self._store.read(dashboard.group_attempt_answers, platform, chat_id)

    async def use_link(self, nonce: str, expires_at: float, now: float) -> bool:
        """True the first time a Discord link is exchanged, False for a replay."""
        return await self._store.write(dashboard.use_link, nonce, expires_at, now)

    async def save_chat_title(self, platform: str, chat_id: str, title: str, now: float
                              ) -> bool:
        """Keep the chat's title; True when it was new or changed."""
        return await self._store.write(dashboard.save_chat_title, platform, chat_id, title, now)

    async def chat_titles(self, platform: str, chat_ids: list[str]) -> dict[str, str]:
        """The stored titles of these chats, by chat id."""
        return await self._store.read(dashboard.chat_titles, platform, chat_ids)


__all__ = ["MAX_MEMBERS", "MAX_ROUNDS", "Answered", "Attempt", "DashboardReads",
           "GroupQuestion", "GroupRound", "MemberRow"]
