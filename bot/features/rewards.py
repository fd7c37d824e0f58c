"""Rewards: a server admin ties a role to a quiz and a score (`/reward set`); an attempt
(solo or a round) that reaches the score earns it. The store records each earning; the
adapter grants the role and says so privately. A role removed by hand is only added again
when it is earned again (an attempt reaching the score), never by a background sync.
"""

from __future__ import annotations

from bot.domain.errors import BadReward, NotChatAdmin, RoundsAreForGroups
from bot.domain.results import Actor
from bot.domain.rights import Manages
from bot.domain.round_results import RewardSet
from bot.features.groups import Groups
from bot.features.library import Library
from bot.features.rounds import Clock
from bot.store.commands import rewards_sql
from bot.store.protocol import Store
from bot.store.round_rows import RewardRow


class Rewards:
    """Set, remove and earn a server's rewards; roles themselves are the adapter's."""

    def __init__(self, library: Library, groups: Groups, store: Store, clock: Clock) -> None:
        self.library, self.groups, self.store, self.clock = library, groups, store, clock

    async def set(self, actor: Actor, quiz_id: str, role_id: str, role_name: str,
                  score: int, *, admin: Manages) -> RewardSet:
        """Grant `role_id` to whoever reaches `score` right answers on the quiz here."""
        if actor.chat_id is None:
            raise RoundsAreForGroups()
        if not await self.groups.manages(actor, admin):  # the server's admin noted
            raise NotChatAdmin()
        quiz = self.library.quiz(quiz_id)
        if not 1 <= score <= len(quiz.questions):
            raise BadReward(count=len(quiz.questions))
        await self.store.write(rewards_sql.set_reward,
                               RewardRow(actor.platform, actor.chat_id, quiz.id, role_id,
                                              role_name, score, actor.user_id), self.clock())
        lang = await self.library.language(actor)
        return RewardSet(lang, quiz.title.get(lang), role_name, score, len(quiz.questions))

    async def remove(self, actor: Actor, quiz_id: str, *, admin: Manages) -> RewardSet:
        """No more reward for the quiz here (roles already granted stay)."""
        if actor.chat_id is None:
            raise RoundsAreForGroups()
        if not await self.groups.manages(actor, admin):  # the server's admin noted
            raise NotChatAdmin()
        quiz = self.library.quiz(quiz_id)
        gone = await self.store.write(rewards_sql.drop_reward,
                                      actor.platform, actor.chat_id, quiz.id)
        lang = await self.library.language(actor)
        return RewardSet(lang, quiz.title.get(lang), gone.role_name if gone else "", 0,
                         len(quiz.questions), removed=True)

    async def of(self, platform: str, guild_id: str, quiz_id: str) -> RewardRow | None:
        """The quiz's reward in the server, if any (a read: most attempts earn nothing)."""
        return await self.store.read(rewards_sql.get_reward, platform, guild_id, quiz_id)

    async def earned(self, platform: str, guild_id: str, quiz_id: str, user_id: str,
                     score: int) -> RewardRow | None:
        """An attempt in `guild_id` scored `score` on the quiz: the reward it earns
        (recorded), or None."""
        reward = await self.of(platform, guild_id, quiz_id)
        if reward is None or score < reward.score:
            return None
        return await self.store.write(rewards_sql.earn_reward,
                                      platform, guild_id, quiz_id, user_id, score,
                                      self.clock())
