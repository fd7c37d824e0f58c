"""Button payloads: a small versioned format that fits Telegram's 64-byte callback_data
and Discord's 100-char custom_id. The database is the truth; a payload only points.

    a1:<session base36>:<position>:<option>   answer
    q1:<action>:<arg>                          quiz action (review, retry, start, lang, reset)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ANSWER_RE = re.compile(r"a1:(?P<session>[0-9a-z]{1,12}):(?P<position>[0-9]{1,3}):(?P<option>[0-9])")
ACTION_RE = re.compile(r"q1:(?P<action>[a-z]{1,8}):(?P<arg>[a-z0-9_-]{0,40})")
ACTIONS = frozenset({"start", "retry", "review", "lang", "reset", "noop"})


@dataclass(frozen=True, slots=True)
class AnswerPayload:
    session_id: int
    position: int
    option: int


@dataclass(frozen=True, slots=True)
class ActionPayload:
    action: str  # one of ACTIONS
    arg: str  # quiz id, language code, "yes"/"no"


Payload = AnswerPayload | ActionPayload


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def encode_answer(session_id: int, position: int, option: int) -> str:
    """Payload for the answer button `option` of question `position` in `session_id`."""
    return f"a1:{_base36(session_id)}:{position}:{option}"


def encode_action(action: str, arg: str = "") -> str:
    """Payload for a non-answer button (review, retry, language, reset confirmation)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    data = f"q1:{action}:{arg}"
    if not ACTION_RE.fullmatch(data):
        raise ValueError(f"action argument {arg!r} does not fit the payload format")
    return data


def decode(data: str | None) -> Payload | None:
    """Parse a payload; None for anything forged, truncated or from an unknown version."""
    if not data or len(data) > 64:
        return None
    if m := ANSWER_RE.fullmatch(data):
        return AnswerPayload(int(m["session"], 36), int(m["position"]), int(m["option"]))
    if (m := ACTION_RE.fullmatch(data)) and m["action"] in ACTIONS:
        return ActionPayload(m["action"], m["arg"])
    return None
