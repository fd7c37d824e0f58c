"""Button payloads: one small class per button kind, each with a prefix, `pack()` and
`unpack()` (aiogram 3's CallbackData). A packed payload fits Telegram's 64-byte
callback_data (Discord's custom_id allows 100). The database is the truth; a payload only
points.

    a1:<session base36>:<position>:<option>[s|g]  AnswerPayload (the session names its owner)
    r1:<round base36>:<qindex>:<option>           RoundPayload (anyone in the chat may press)
    w1:<round base36>:<qindex>                    WhoPayload: a reveal's "Who answered?"
    t1:<round base36>:<team digit | a>            TeamPayload: join a team (a: any / join)
    n1:<session base36>:<position>                NumberPayload: "Type it" (Discord), and
                                                  the custom_id of the modal it opens
    q2:<action>:<owner token>:<arg>               one owned button per action (below)
    q1:<action>:<arg>                             older action buttons, still understood
    q2:rep:<owner>:<session>-<position>[-<reason>] ReportPayload: "Report a problem"

Every button that is not an answer or a round's names its owner as an opaque token
(`owner_token`): the base-36 number for a canonical numeric id (what q2 buttons always
carried), else `~` and a short hash of the id, so any platform's ids fit and the check
stays on. A payload can never be packed without an owner. Only q2 buttons from before
owners were opaque (an empty token) and q1 buttons have no owner (`owner is None`): the
engine honours those in private chats only, where nobody else can press them.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import ClassVar, Self, cast

from bot.domain.platforms import payload_limit

MAX_BYTES = payload_limit()  # 64: Telegram's callback_data; Discord's custom_id allows 100

ANSWER_RE = re.compile(
    r"a1:(?P<session>[0-9a-z]{1,12}):(?P<position>[0-9]{1,3}):(?P<option>[0-9])(?P<sure>[sg]?)")
ROUND_RE = re.compile(r"r1:(?P<round>[0-9a-z]{1,12}):(?P<qindex>[0-9]{1,3}):(?P<option>[0-9])")
NUMBER_RE = re.compile(r"n1:(?P<session>[0-9a-z]{1,12}):(?P<position>[0-9]{1,3})")
WHO_RE = re.compile(r"w1:(?P<round>[0-9a-z]{1,12}):(?P<qindex>[0-9]{1,3})")
TEAM_RE = re.compile(r"t1:(?P<round>[0-9a-z]{1,12}):(?P<team>[0-9a])")
REPORT_RE = re.compile(
    r"(?P<session>[0-9a-z]{1,12})-(?P<position>[0-9]{1,3})(?:-(?P<reason>[a-z]))?")
WHO_PAGE_RE = re.compile(r"(?P<round>[0-9a-z]{1,12})-(?P<qindex>[0-9]{1,3})-(?P<page>[0-9]{1,4})")
ACTION_RE = re.compile(
    r"q2:(?P<action>[a-z]{1,6}):(?P<owner>~?[0-9a-z]{0,13}):(?P<arg>[a-z0-9_-]{0,40})"
    r"|q1:(?P<action1>[a-z]{1,8}):(?P<arg1>[a-z0-9_-]{0,40})")
# Any payload of ours, by shape (what a Discord button's template matches; `decode` then
# says which kind, or None for a forged one)
ANY_RE = re.compile("|".join(re.sub(r"\(\?P<\w+>", "(?:", r.pattern) for r in (
    ANSWER_RE, ROUND_RE, NUMBER_RE, WHO_RE, TEAM_RE, ACTION_RE)))
_HASHED = "~"


def base36(n: int) -> str:
    """`n` (>= 0) in base 36, as the payloads write ids."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def owner_token(user_id: str) -> str:
    """The opaque token a button carries for its owner: never empty, at most 13 chars.

    A canonical decimal id (Telegram, Discord) keeps the base-36 form q2 buttons have always
    had; any other id ("@alice:example.org", a terminal name, a 30-digit id) is hashed.
    """
    if user_id.isascii() and user_id.isdigit() and str(int(user_id)) == user_id:
        token = base36(int(user_id))
        if len(token) <= 12:
            return token
    digest = hashlib.blake2b(user_id.encode(), digest_size=7).digest()  # 56 bits
    return _HASHED + base36(int.from_bytes(digest, "big"))


def _checked(data: str) -> str:
    if len(data.encode()) > MAX_BYTES or not (ANSWER_RE.fullmatch(data)  # the most made
                                              or ACTION_RE.fullmatch(data)
                                              or ROUND_RE.fullmatch(data)
                                              or WHO_RE.fullmatch(data)
                                              or TEAM_RE.fullmatch(data)
                                              or NUMBER_RE.fullmatch(data)):
        raise ValueError(f"button payload {data!r} does not fit the payload format")
    return data


@dataclass(frozen=True, slots=True)
class AnswerPayload:
    """A lettered answer button of a solo session's question."""

    session_id: int
    position: int
    option: int
    sure: bool | None = None  # the confidence mark, when the learner was asked

    def pack(self) -> str:
        """The callback data."""
        mark = "" if self.sure is None else ("s" if self.sure else "g")
        return _checked(f"a1:{base36(self.session_id)}:{self.position}:{self.option}{mark}")

    @classmethod
    def unpack(cls, data: str) -> AnswerPayload | None:
        """The payload, or None when `data` is not one of these."""
        if m := ANSWER_RE.fullmatch(data):
            sure = {"s": True, "g": False}.get(m["sure"])
            return cls(int(m["session"], 36), int(m["position"]), int(m["option"]), sure)
        return None


@dataclass(frozen=True, slots=True)
class NumberPayload:
    """"Type it" on a computed question (Discord): it opens a modal with the same custom_id,
    whose submission is a typed answer to question `position` of `session_id`; the engine
    checks the owner and position as for a tap."""

    session_id: int
    position: int

    def pack(self) -> str:
        """The custom_id."""
        return _checked(f"n1:{base36(self.session_id)}:{self.position}")

    @classmethod
    def unpack(cls, data: str) -> NumberPayload | None:
        """The payload, or None when `data` is not one of these."""
        if m := NUMBER_RE.fullmatch(data):
            return cls(int(m["session"], 36), int(m["position"]))
        return None


@dataclass(frozen=True, slots=True)
class RoundPayload:
    """A round's lettered button: anyone in the chat may press, the store decides."""

    round_id: int
    qindex: int
    option: int

    def pack(self) -> str:
        """The callback data."""
        return _checked(f"r1:{base36(self.round_id)}:{self.qindex}:{self.option}")

    @classmethod
    def unpack(cls, data: str) -> RoundPayload | None:
        """The payload, or None when `data` is not one of these."""
        if m := ROUND_RE.fullmatch(data):
            return cls(int(m["round"], 36), int(m["qindex"]), int(m["option"]))
        return None


@dataclass(frozen=True, slots=True)
class WhoPayload:
    """A reveal's "Who answered?": anyone may press; the full list is shown privately."""

    round_id: int
    qindex: int

    def pack(self) -> str:
        """The callback data."""
        return _checked(f"w1:{base36(self.round_id)}:{self.qindex}")

    @classmethod
    def unpack(cls, data: str) -> WhoPayload | None:
        """The payload, or None when `data` is not one of these."""
        if m := WHO_RE.fullmatch(data):
            return cls(int(m["round"], 36), int(m["qindex"]))
        return None


@dataclass(frozen=True, slots=True)
class TeamPayload:
    """A team (or untimed) round's join button: `team` None joins any team (or the
    untimed round); anyone in the chat may press, the store decides."""

    round_id: int
    team: int | None

    def pack(self) -> str:
        """The callback data."""
        team = "a" if self.team is None else str(self.team)
        return _checked(f"t1:{base36(self.round_id)}:{team}")

    @classmethod
    def unpack(cls, data: str) -> TeamPayload | None:
        """The payload, or None when `data` is not one of these."""
        if m := TEAM_RE.fullmatch(data):
            return cls(int(m["round"], 36), None if m["team"] == "a" else int(m["team"]))
        return None


@dataclass(frozen=True, slots=True)
class OwnedPayload:
    """A button only its owner may press; `owner` is an `owner_token` (None: a legacy
    button that never named one)."""

    action: ClassVar[str]
    # what a member who pressed someone else's button sends for buttons of their own
    command: ClassVar[str] = "/help"
    arg: str
    owner: str | None

    @classmethod
    def of(cls, owner_id: str, arg: str = "") -> Self:
        """The button `owner_id` (any platform's user id) may press."""
        return cls(arg, owner_token(owner_id))

    def pack(self) -> str:
        """The callback data; refuses a button without an owner."""
        if not self.owner:
            raise ValueError(f"a {self.action!r} button needs an owner")
        return _checked(f"q2:{self.action}:{self.owner}:{self.arg}")

    def belongs_to(self, user_id: str) -> bool:
        """True only when the button names `user_id` as its owner."""
        return self.owner is not None and hmac.compare_digest(self.owner, owner_token(user_id))


@dataclass(frozen=True, slots=True)
class StartPayload(OwnedPayload):
    """Start (or resume) the quiz `arg`."""

    action: ClassVar[str] = "start"
    command: ClassVar[str] = "/quiz"


@dataclass(frozen=True, slots=True)
class RetryPayload(OwnedPayload):
    """Try the quiz `arg` again from the start."""

    action: ClassVar[str] = "retry"
    command: ClassVar[str] = "/quiz"


@dataclass(frozen=True, slots=True)
class ReviewPayload(OwnedPayload):
    """Review what was missed in the last attempt of quiz `arg`."""

    action: ClassVar[str] = "review"
    command: ClassVar[str] = "/review"


@dataclass(frozen=True, slots=True)
class DuePayload(OwnedPayload):
    """Spaced review now (the reminder's button)."""

    action: ClassVar[str] = "due"
    command: ClassVar[str] = "/review"


@dataclass(frozen=True, slots=True)
class ConfidencePayload(OwnedPayload):
    """Ask "sure or guess" (`arg` "on") or stop asking ("off")."""

    action: ClassVar[str] = "conf"
    command: ClassVar[str] = "/settings"


@dataclass(frozen=True, slots=True)
class LanguagePayload(OwnedPayload):
    """Talk in language `arg`."""

    action: ClassVar[str] = "lang"
    command: ClassVar[str] = "/language"


@dataclass(frozen=True, slots=True)
class ResetPayload(OwnedPayload):
    """Answer the reset question: `arg` "yes" deletes the presser's progress."""

    action: ClassVar[str] = "reset"
    command: ClassVar[str] = "/reset"


@dataclass(frozen=True, slots=True)
class QuizzesPayload(OwnedPayload):
    """Open the catalogue: every quiz, each a button that starts it."""

    action: ClassVar[str] = "list"
    command: ClassVar[str] = "/quizzes"


@dataclass(frozen=True, slots=True)
class TopicPayload(OwnedPayload):
    """Practise the topic `arg`: its due and weakest questions across quizzes."""

    action: ClassVar[str] = "topic"
    command: ClassVar[str] = "/review"


@dataclass(frozen=True, slots=True)
class WhoPagePayload(OwnedPayload):
    """A page of a private "Who answered?" list: `arg` is <round>-<qindex>-<page>."""

    action: ClassVar[str] = "who"

    @classmethod
    def page(cls, owner_id: str, round_id: int, qindex: int, page: int) -> WhoPagePayload:
        """The button that shows `page` of the list to `owner_id`."""
        return cls.of(owner_id, f"{base36(round_id)}-{qindex}-{page}")

    def where(self) -> tuple[int, int, int] | None:
        """(round id, question index, page), or None for a forged argument."""
        m = WHO_PAGE_RE.fullmatch(self.arg)
        return (int(m["round"], 36), int(m["qindex"]), int(m["page"])) if m else None


# A report's reasons by the letter its button carries (bot.features.reports stores the name).
REPORT_REASONS = {"w": "wrong", "u": "unclear", "t": "translation", "o": "other"}


@dataclass(frozen=True, slots=True)
class ReportPayload(OwnedPayload):
    """"Report a problem" under an explanation: `arg` is <session>-<position>; once the
    learner picks a reason, -<reason letter> (REPORT_REASONS)."""

    action: ClassVar[str] = "rep"

    @classmethod
    def about(cls, owner_id: str, session_id: int, position: int, reason: str = ""
              ) -> ReportPayload:
        """The button reporting question `position` of `session_id` (with a reason)."""
        tail = f"-{reason}" if reason else ""
        return cls.of(owner_id, f"{base36(session_id)}-{position}{tail}")

    def target(self) -> tuple[int, int, str] | None:
        """(session id, position, reason letter or ""), or None for a forged argument."""
        m = REPORT_RE.fullmatch(self.arg)
        return (int(m["session"], 36), int(m["position"]), m["reason"] or "") if m else None


OWNED: dict[str, type[OwnedPayload]] = {kind.action: kind for kind in (
    StartPayload, RetryPayload, ReviewPayload, DuePayload, ConfidencePayload, LanguagePayload,
    ResetPayload, WhoPagePayload, QuizzesPayload, TopicPayload, ReportPayload)}
ActionPayload = (StartPayload | RetryPayload | ReviewPayload | DuePayload | ConfidencePayload
                 | LanguagePayload | ResetPayload | WhoPagePayload | QuizzesPayload
                 | TopicPayload | ReportPayload)
Payload = AnswerPayload | RoundPayload | WhoPayload | TeamPayload | ActionPayload


def _unpack_owned(data: str) -> ActionPayload | None:
    m = ACTION_RE.fullmatch(data)
    if m is None:
        return None
    owner: str | None
    if m["action"] is not None:
        action, arg, owner = m["action"], m["arg"], m["owner"] or None
        if owner is not None and owner[0] != _HASHED and len(owner) > 12:
            return None  # no canonical id's base 36 is that long: forged
    else:  # q1 reset buttons carried their owner as "yes-<user id>"
        action, arg, owner = m["action1"], m["arg1"], None
        if action == "reset":
            arg, _, user_id = arg.partition("-")
            owner = owner_token(user_id) if user_id else None
    kind = OWNED.get(action)
    # OWNED holds exactly ActionPayload's kinds
    return None if kind is None else cast("ActionPayload", kind(arg, owner))


def decode(data: str | None) -> Payload | None:
    """Parse a payload; None for anything forged, truncated or from an unknown version."""
    if not data or len(data.encode()) > MAX_BYTES:
        return None
    return (AnswerPayload.unpack(data) or RoundPayload.unpack(data) or WhoPayload.unpack(data)
            or TeamPayload.unpack(data) or _unpack_owned(data))


def encode_answer(session_id: int, position: int, option: int, sure: bool | None = None
                  ) -> str:
    """Payload for the answer button `option` of question `position` in `session_id`."""
    return AnswerPayload(session_id, position, option, sure).pack()


def encode_round(round_id: int, qindex: int, option: int) -> str:
    """Payload for the lettered button `option` of question `qindex` in a round."""
    return RoundPayload(round_id, qindex, option).pack()


def encode_action(action: str, arg: str, owner_id: str) -> str:
    """Payload for an owned button of kind `action`, pressable by `owner_id` only."""
    kind = OWNED.get(action)
    if kind is None:
        raise ValueError(f"unknown action {action!r}")
    return kind.of(owner_id, arg).pack()
