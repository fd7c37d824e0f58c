"""Who is in which group: the adapters' checks, behind a short cache.

Telegram's check is one getChatMember call per question. A learner who reloads the group
page (or a script that floods it) would cost one call each time, and Telegram limits the bot
as a whole, so an answer is kept MEMBER_SECONDS (a minute) and a question already being asked
is not asked again: at most one call per member per minute, however many requests arrive.
The cache only saves calls: dropping it changes nothing but the count of calls, and a member
who left is refused at most a minute later. "Cannot tell now" (Unavailable) is never kept.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.features.dashboard.recent import Recent

MEMBER_SECONDS = 60.0  # how long a getChatMember answer is trusted
MAX_CACHED = 50_000  # answers kept at most (the oldest go first): a few MB


class Unavailable(Exception):
    """Membership cannot be checked now, e.g. the platform's adapter is not running (503)."""


class Forbidden(Exception):
    """The caller is not a member of that group (HTTP 403)."""


class BotGone(Forbidden):
    """The bot is no longer in that group, so nobody's membership can be checked (403)."""


@dataclass(frozen=True, slots=True)
class Role:
    member: bool
    admin: bool = False  # chat administrator / Manage Server
    bot_gone: bool = False  # the bot is not in the group: nobody can be checked there


# (group id, user id) -> the user's role there; raises Unavailable when it cannot tell.
MemberCheck = Callable[[str, str], Awaitable[Role]]
Key = tuple[str, str, str]  # platform, group, user


class Memberships:
    """How each platform answers "is this user in that group": the adapter that can ask
    provides its check when it starts and withdraws it when it stops."""

    def __init__(self, clock: Callable[[], float] | None = None,
                 seconds: float = MEMBER_SECONDS) -> None:
        self._checks: dict[str, MemberCheck] = {}
        self._known: Recent[Key, Role] = Recent(seconds, clock, MAX_CACHED)

    @property
    def calls(self) -> int:
        """Checks actually made (the benchmark reports it)."""
        return self._known.made

    def provide(self, platform: str, check: MemberCheck) -> None:
        """Answer membership questions for `platform` with `check`."""
        self._checks[platform] = check
        self._known.clear()

    def withdraw(self, platform: str) -> None:
        """The platform's adapter stopped: its groups cannot be checked any more."""
        self._checks.pop(platform, None)
        self._known.clear()

    async def role(self, platform: str, group_id: str, user_id: str) -> Role:
        """The user's role in the group (asked at most once a minute); Unavailable when no
        adapter can tell."""
        check = self._checks.get(platform)
        if check is None:
            raise Unavailable(f"no {platform} adapter running to check membership")
        return await self._known.get((platform, group_id, user_id),
                                     lambda: check(group_id, user_id))


__all__ = ["MEMBER_SECONDS", "BotGone", "Forbidden", "MemberCheck", "Memberships", "Role",
           "Unavailable"]
