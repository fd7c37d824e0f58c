"""Button payloads: a small versioned format that fits Telegram's 64-byte callback_data
and Discord's 100-char custom_id. The database is the truth; a payload only points.

    a1:<session base36>:<position>:<option>     answer (the session names its owner)
    a1:<session base36>:<position>:<option><s|g> answer marked "sure" or "guess"
    q2:<action>:<owner base36>:<arg>            any other button, owned by one user
    q1:<action>:<arg>                           older action buttons, still understood
    r1:<round base36>:<qindex>:<option>         a round's lettered button (anyone may press)

Every button of a learner's quiz has an owner: only they may press it (`Engine.press`
checks, the one place that rule lives). An empty owner means anyone may press (e.g. a
Start button posted for a whole group).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ANSWER_RE = re.compile(
    r"a1:(?P<session>[0-9a-z]{1,12}):(?P<position>[0-9]{1,3}):(?P<option>[0-9])(?P<sure>[sg]?)")
ACTION_RE = re.compile(
    r"q2:(?P<action>[a-z]{1,6}):(?P<owner>[0-9a-z]{0,13}):(?P<arg>[a-z0-9_-]{0,40})"
    r"|q1:(?P<action1>[a-z]{1,8}):(?P<arg1>[a-z0-9_-]{0,40})")
ROUND_RE = re.compile(r"r1:(?P<round>[0-9a-z]{1,12}):(?P<qindex>[0-9]{1,3}):(?P<option>[0-9])")
ACTIONS = frozenset({"start", "retry", "review", "lang", "reset", "noop",
                     "due", "conf"})  # due: spaced review now; conf: confidence on/off
MAX_BYTES = 64  # Telegram's limit; Discord allows 100


@dataclass(frozen=True, slots=True)
class AnswerPayload:
    session_id: int
    position: int
    option: int
    sure: bool | None = None  # the confidence mark, when the learner was asked


@dataclass(frozen=True, slots=True)
class ActionPayload:
    action: str  # one of ACTIONS
    arg: str  # quiz id, language code, "yes"/"no"
    owner: str = ""  # user id of who may press it; "" for anyone


@dataclass(frozen=True, slots=True)
class RoundPayload:
    round_id: int
    qindex: int
    option: int


Payload = AnswerPayload | ActionPayload | RoundPayload


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def base36(n: int) -> str:
    """`n` (>= 0) in base 36, as the payloads write ids."""
    return _base36(n)


def encode_answer(session_id: int, position: int, option: int, sure: bool | None = None
                  ) -> str:
    """Payload for the answer button `option` of question `position` in `session_id`
    (marked sure or guess when `sure` is given)."""
    mark = "" if sure is None else ("s" if sure else "g")
    return f"a1:{_base36(session_id)}:{position}:{option}{mark}"


def encode_action(action: str, arg: str = "", owner: str = "") -> str:
    """Payload for a non-answer button; `owner` is the user id allowed to press it."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    if owner and not owner.isdigit():
        raise ValueError(f"button owner {owner!r} is not a numeric platform user id")
    data = f"q2:{action}:{_base36(int(owner)) if owner else ''}:{arg}"
    if len(data.encode()) > MAX_BYTES or not ACTION_RE.fullmatch(data):
        raise ValueError(f"action argument {arg!r} does not fit the payload format")
    return data


def encode_round(round_id: int, qindex: int, option: int) -> str:
    """Payload for the lettered button `option` of question `qindex` in a round."""
    return f"r1:{_base36(round_id)}:{qindex}:{option}"


def decode(data: str | None) -> Payload | None:
    """Parse a payload; None for anything forged, truncated or from an unknown version."""
    if not data or len(data) > MAX_BYTES:
        return None
    if m := ANSWER_RE.fullmatch(data):
        sure = {"s": True, "g": False}.get(m["sure"])
        return AnswerPayload(int(m["session"], 36), int(m["position"]), int(m["option"]), sure)
    if m := ROUND_RE.fullmatch(data):
        return RoundPayload(int(m["round"], 36), int(m["qindex"]), int(m["option"]))
    if m := ACTION_RE.fullmatch(data):
        if m["action"] is not None:
            owner = str(int(m["owner"], 36)) if m["owner"] else ""
            action, arg = m["action"], m["arg"]
        else:  # q1 reset buttons carried their owner as "yes-<user id>"
            action, arg = m["action1"], m["arg1"]
            choice, _, owner = arg.partition("-") if action == "reset" else (arg, "", "")
            arg = choice if action == "reset" else arg
        if action in ACTIONS:
            return ActionPayload(action, arg, owner)
    return None
