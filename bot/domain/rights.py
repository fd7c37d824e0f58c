"""Who may press what, decided here and nowhere else.

- A learner's own things (a solo session's answers, its "Report a problem", a card): only
  the learner, on the platform they were made on (`owns`).
- A button that names its owner (`OwnedPayload`): only that owner; a button from before
  owners were named is honoured in a private chat only, where nobody else can press
  (`may_press`).
- A round's stop and skip: its host, or a member the platform lets moderate the chat; a
  question of the day, a group's quiz and language, a server's role rewards: a member who
  moderates (`may_manage`). Whether a member moderates is known, or asked of the platform
  only when it matters (Telegram's getChatMember); what the platform said, when it said
  anything, is `platform_said` (a demoted admin's dashboard label goes by it).

Where a press happened (its chat and message) is checked by `Where` in `results`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.domain.payloads import OwnedPayload, Payload
from bot.domain.results import Actor

# Whether the pressing member moderates the chat: known, or a question for the platform
# (whose None means it could not be asked: refused, and nothing learnt about the member).
Manages = bool | Callable[[], Awaitable[bool | None]]


def owns(actor: Actor, platform: str, user_id: str) -> bool:
    """True when `actor` is the learner (`platform`, `user_id`) a session belongs to."""
    return (actor.platform, actor.user_id) == (platform, user_id)


def may_press(actor: Actor, data: Payload | None) -> bool:
    """True when `actor` may press this button (an answer's owner is checked by `owns`)."""
    if not isinstance(data, OwnedPayload):
        return True
    return data.belongs_to(actor.user_id) or (data.owner is None and actor.chat_id is None)


async def may_manage(actor: Actor, manages: Manages, host_id: str | None = None) -> bool:
    """True for the host (`host_id`, when there is one) or a member who moderates."""
    return (await platform_said(actor, manages, host_id))[0]


async def platform_said(actor: Actor, manages: Manages, host_id: str | None = None
                        ) -> tuple[bool, bool | None]:
    """(`may_manage`, what the platform said of the member: True or False, None when it
    was not asked (the host needs no word) or could not be asked)."""
    if host_id is not None and actor.user_id == host_id:
        return True, None
    said = manages if isinstance(manages, bool) else await manages()
    return bool(said), said
