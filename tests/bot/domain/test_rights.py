"""Who may press what (`bot.domain.rights`), the one place the engine, sessions, reports,
rounds and the question of the day ask."""

from __future__ import annotations

from bot.domain.payloads import AnswerPayload, ResetPayload
from bot.domain.results import Actor
from bot.domain.rights import may_manage, may_press, owns

ADA = Actor("telegram", "1", None, "Ada")
ADA_IN_GROUP = Actor("telegram", "1", "-100", "Ada")
BEN_IN_GROUP = Actor("telegram", "2", "-100", "Ben")


def test_a_learners_own_things_are_theirs_alone() -> None:
    assert owns(ADA, "telegram", "1")
    assert not owns(ADA, "discord", "1")  # same id, another platform
    assert not owns(BEN_IN_GROUP, "telegram", "1")


def test_an_owned_button_is_its_owners_and_a_legacy_one_only_in_private() -> None:
    mine = ResetPayload.of("1", "yes")
    assert may_press(ADA_IN_GROUP, mine) and not may_press(BEN_IN_GROUP, mine)
    legacy = ResetPayload("yes", None)
    assert may_press(ADA, legacy) and not may_press(ADA_IN_GROUP, legacy)
    assert may_press(BEN_IN_GROUP, AnswerPayload(1, 0, 0))  # its session decides: `owns`
    assert may_press(BEN_IN_GROUP, None)


async def test_the_host_or_a_moderator_manages_and_the_platform_is_asked_only_if_needed(
        ) -> None:
    asked: list[str] = []

    async def moderates() -> bool:
        asked.append("getChatMember")
        return False

    assert await may_manage(ADA_IN_GROUP, moderates, host_id="1") and asked == []
    assert not await may_manage(BEN_IN_GROUP, moderates, host_id="1")
    assert asked == ["getChatMember"]
    assert await may_manage(BEN_IN_GROUP, True, host_id="1")
    assert not await may_manage(BEN_IN_GROUP, False)
