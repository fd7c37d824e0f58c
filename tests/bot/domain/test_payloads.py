"""Typed button payloads and the press router: every kind round-trips within 64 bytes, owner
ids are opaque strings, and the ownership check never turns itself off."""

from __future__ import annotations

import pytest

from bot.domain import payloads as payload
from bot.domain.results import (
    Actor,
    LanguageSet,
    NotYours,
    QuestionPrompt,
    ResetCancelled,
    ResetDone,
    UnknownButton,
)
from bot.features.engine import Engine
from bot.present.i18n import Catalogue
from bot.present.plan import Planner
from bot.present.render import Markup

# A third platform whose ids are not numbers (Matrix user ids), in a shared room.
ROOM = "!study:example.org"
ALICE = Actor("matrix", "@alice:example.org", ROOM, "Alice")
BOB = Actor("matrix", "@bob:example.org", ROOM, "Bob")
LONG_ID = "@" + "a" * 200 + ":example.org"  # far longer than a 64-byte payload
PLAIN = Markup(escape=lambda s: s, bold=lambda s: s, link=lambda title, url: title)

KINDS = [payload.AnswerPayload(36**12 - 1, 299, 9, True), payload.AnswerPayload(5, 0, 1),
         payload.RoundPayload(36**12 - 1, 299, 9),
         *(kind.of(owner, arg) for kind in payload.OWNED.values()
           for owner in ("1001", str(2**63), "@alice:example.org", LONG_ID, "ali")
           for arg in ("", "parallelism-deep"))]


@pytest.mark.parametrize("button", KINDS, ids=repr)
def test_every_kind_packs_within_64_bytes_and_unpacks_to_itself(
        button: payload.Payload) -> None:
    data = button.pack()
    assert len(data.encode()) <= payload.MAX_BYTES
    assert payload.decode(data) == button


def test_owner_tokens_are_opaque_never_empty_and_keep_old_numeric_buttons() -> None:
    assert payload.owner_token("1001") == payload.base36(1001)  # what q2 buttons carried
    for user_id in ("@alice:example.org", LONG_ID, "ali", "007", "", "١٢٣"):
        token = payload.owner_token(user_id)
        assert token.startswith("~") and 2 <= len(token) <= 13
    assert payload.owner_token(ALICE.user_id) != payload.owner_token(BOB.user_id)
    assert payload.owner_token("007") != payload.owner_token("7")  # not read as a number


def test_a_button_cannot_be_packed_without_an_owner_and_forgeries_decode_to_nothing(
) -> None:
    with pytest.raises(ValueError, match="needs an owner"):
        payload.RetryPayload("parallelism", None).pack()
    with pytest.raises(ValueError, match="does not fit"):
        payload.StartPayload.of("1", "x" * 41).pack()
    for forged in ("q2:start:1234567890abcd:p", "q2:nope:1:p", "a1:1:0:x", "r2:1:0:0",
                   "q2:start:1:" + "a" * 60, None, ""):
        assert payload.decode(forged) is None


def test_old_payloads_still_decode() -> None:
    assert payload.decode("q2:retry:rt:parallelism") == payload.RetryPayload.of(
        str(int("rt", 36)), "parallelism")
    assert payload.decode("q2:start::parallelism") == payload.StartPayload("parallelism", None)
    assert payload.decode("q1:reset:yes-42") == payload.ResetPayload.of("42", "yes")
    assert payload.decode("a1:z:3:1g") == payload.AnswerPayload(35, 3, 1, False)


async def test_a_foreign_press_is_refused_for_string_ids(engine: Engine,
                                                         catalogue: Catalogue) -> None:
    plan = Planner(catalogue, PLAIN, shared_chats=True)
    await engine.start(BOB)  # Bob has progress that Alice's reset button must not delete
    [yes, no] = plan.reset_prompt("en", ALICE).send[0].rows[0]
    assert isinstance(await engine.press(BOB, payload.decode(yes.payload)), NotYours)
    assert isinstance(await engine.current(BOB), QuestionPrompt)  # nothing deleted
    assert isinstance(await engine.press(BOB, payload.decode(no.payload)), NotYours)
    assert isinstance(await engine.press(ALICE, payload.decode(no.payload)), ResetCancelled)
    assert isinstance(await engine.press(ALICE, payload.decode(yes.payload)), ResetDone)


async def test_an_id_too_long_for_the_payload_keeps_its_check(engine: Engine,
                                                              catalogue: Catalogue) -> None:
    owner = Actor("matrix", LONG_ID, ROOM, "Long")
    plan = Planner(catalogue, PLAIN, shared_chats=True)
    [buttons] = plan.language_prompt("en", owner).send[0].rows
    urdu = next(b for b in buttons if b.payload.endswith(":ur"))
    assert len(urdu.payload.encode()) <= payload.MAX_BYTES
    assert isinstance(await engine.press(ALICE, payload.decode(urdu.payload)), NotYours)
    assert await engine.language(ALICE) == "en"
    assert isinstance(await engine.press(owner, payload.decode(urdu.payload)), LanguageSet)
    assert await engine.language(owner) == "ur"


async def test_ownerless_old_buttons_work_only_in_a_private_chat(engine: Engine) -> None:
    old = payload.decode("q1:retry:parallelism")
    assert isinstance(await engine.press(BOB, old), NotYours)
    alone = Actor("matrix", BOB.user_id, None, "Bob")
    assert isinstance(await engine.press(alone, old), QuestionPrompt)


async def test_a_press_no_feature_takes_is_unknown(engine: Engine) -> None:
    assert isinstance(await engine.press(ALICE, None), UnknownButton)
    assert engine.buttons.handler(payload.decode("q2:due:1:")) is not None
