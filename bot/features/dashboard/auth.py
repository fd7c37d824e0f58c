"""Who is asking: Telegram Mini App init data, and Discord's signed links and sessions.

Telegram (core.telegram.org/bots/webapps, "Validating data received via the Mini App"): the
init data is a query string; the data-check-string is every received field except `hash`,
URL-decoded, as `key=value` lines sorted by key and joined by "\\n"; the secret key is
HMAC-SHA256(key="WebAppData", msg=bot_token) and `hash` must be the hex HMAC-SHA256 of the
data-check-string under that key. `auth_date` must be at most a day old.

Discord has no such signed launch data, so `/dashboard` hands out a link that carries its
claims (user, name, guild, whether they manage it) signed with HMAC-SHA256 under a server
secret; it expires after ten minutes and the page exchanges it for a session token (an hour)
signed the same way under another purpose, so neither can stand in for the other. A link
carries a random nonce and works once: the exchange stores the nonce (the database, so every
process sees it) and refuses a second one. Sessions are stateless: any process with the same
secret accepts them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl

INIT_DATA_MAX_AGE = 24 * 3600.0  # seconds: "auth_date at most a day old"
LINK_SECONDS = 10 * 60.0  # a /dashboard link on Discord
SESSION_SECONDS = 3600.0  # what a link is exchanged for
CLOCK_SKEW = 300.0  # an auth_date or issue time this far in the future still counts
MAX_CREDENTIAL = 8192  # characters: init data is a few hundred; anything longer is refused
SECRET_PURPOSE = b"quizbot dashboard links v1"


class AuthError(Exception):
    """The request carries no valid credential (HTTP 401); the message says why, for logs."""


class Expired(AuthError):
    """A genuine credential, checked, but too old (HTTP 401 `expired`: open the page anew)."""


@dataclass(frozen=True, slots=True)
class Identity:
    """A caller the dashboard trusts: whose data it may show, and what the credential says
    about a group (Discord only: the guild the link was made in)."""

    platform: str  # "telegram" or "discord"
    user_id: str
    display_name: str = ""
    locale: str | None = None  # Telegram's language_code
    guild_id: str | None = None  # Discord: the server /dashboard was used in
    guild_admin: bool = False  # Discord: the caller has Manage Server there
    # A link's one-time nonce; when the credential stops counting (not part of who it is).
    nonce: str = field(default="", compare=False)
    expires_at: float = field(default=0.0, compare=False)


@lru_cache(maxsize=4)
def secret_key(bot_token: str) -> bytes:
    """Telegram's secret key: HMAC-SHA256 with key "WebAppData" of the bot token."""
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def data_check_string(fields: Mapping[str, str]) -> str:
    """Every field except `hash`, sorted by key, as key=value lines."""
    return "\n".join(f"{k}={fields[k]}" for k in sorted(fields) if k != "hash")


def sign_init_data(fields: Mapping[str, str], bot_token: str) -> str:
    """The `hash` Telegram would attach to these fields (tests and the benchmark use it)."""
    return hmac.new(secret_key(bot_token), data_check_string(fields).encode(),
                    hashlib.sha256).hexdigest()


def verify_init_data(init_data: str, bot_token: str, now: float,
                     max_age: float = INIT_DATA_MAX_AGE) -> Identity:
    """The Telegram user the init data was signed for; AuthError if forged, old or odd."""
    if not bot_token:
        raise AuthError("telegram is not configured")
    if not init_data or len(init_data) > MAX_CREDENTIAL:
        raise AuthError("no init data")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise AuthError("init data is not a query string") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise AuthError("a field appears twice")
    received = fields.get("hash", "")
    expected = sign_init_data(fields, bot_token)
    if not hmac.compare_digest(expected.encode(), received.encode()):
        raise AuthError("bad hash")
    try:
        auth_date = int(fields["auth_date"])
        user = json.loads(fields["user"])
        user_id = int(user["id"])
    except (KeyError, ValueError, TypeError):
        raise AuthError("init data lacks auth_date or user") from None
    if auth_date < now - max_age:
        raise Expired("init data expired")
    if auth_date > now + CLOCK_SKEW:
        raise AuthError("init data expired: dated in the future")
    name = " ".join(str(user[k]) for k in ("first_name", "last_name") if user.get(k))
    locale = user.get("language_code")
    return Identity("telegram", str(user_id), name, locale if isinstance(locale, str) else None,
                    expires_at=auth_date + max_age)


class Verified:
    """Credentials already verified, by their exact text, until they expire (at most
    `max_keys`, the least recently used dropped first): a page that asks again, or a script
    that floods, costs a dict lookup instead of an HMAC. It only saves work: a credential
    not kept is verified again."""

    def __init__(self, clock: Callable[[], float], max_keys: int = 4096) -> None:
        self._clock, self._max_keys = clock, max_keys
        self._known: OrderedDict[str, Identity] = OrderedDict()

    def get(self, credential: str) -> Identity | None:
        """The identity `credential` was verified as, while it is valid; else None."""
        who = self._known.get(credential)
        if who is None:
            return None
        if self._clock() > who.expires_at:
            del self._known[credential]
            return None
        self._known.move_to_end(credential)
        return who

    def keep(self, credential: str, who: Identity) -> None:
        """Remember that `credential` verified as `who` (until `who.expires_at`)."""
        self._known[credential] = who
        self._known.move_to_end(credential)
        if len(self._known) > self._max_keys:
            self._known.popitem(last=False)


def derive_secret(configured: str, discord_token: str) -> bytes:
    """The key signed links use: QUIZBOT_WEB_SECRET when set, else one derived from the
    Discord bot token (every process of one bot shares it; a new token ends old links)."""
    seed = configured or discord_token
    return hmac.new(SECRET_PURPOSE, seed.encode(), hashlib.sha256).digest() if seed else b""


class Signer:
    """Discord's signed links and sessions: base64url(JSON claims) "." base64url(HMAC)."""

    def __init__(self, secret: bytes, clock: Callable[[], float]) -> None:
        self._secret = secret
        self.clock = clock

    @property
    def enabled(self) -> bool:
        """False without a secret: no link is made and none is accepted."""
        return bool(self._secret)

    def link(self, who: Identity) -> str:
        """A token for the /dashboard link: valid LINK_SECONDS."""
        return self._sign("link", who, LINK_SECONDS)

    def session(self, who: Identity) -> str:
        """A session token for the page, once it showed a valid link."""
        return self._sign("session", who, SESSION_SECONDS)

    def open_link(self, token: str) -> Identity:
        """The identity a link token names; AuthError if forged or expired."""
        return self._open("link", token)

    def open_session(self, token: str) -> Identity:
        """The identity a session token names; AuthError if forged or expired."""
        return self._open("session", token)

    def _mac(self, purpose: str, body: bytes) -> bytes:
        return hmac.new(self._secret, purpose.encode() + b"." + body, hashlib.sha256).digest()

    def _sign(self, purpose: str, who: Identity, seconds: float) -> str:
        if not self._secret:
            raise AuthError("no secret for signed links")
        claims = {"p": who.platform, "u": who.user_id, "n": who.display_name,
                  "g": who.guild_id, "a": who.guild_admin, "exp": int(self.clock() + seconds)}
        if purpose == "link":
            claims["j"] = secrets.token_urlsafe(12)
        body = _b64(json.dumps(claims, separators=(",", ":"), ensure_ascii=False).encode())
        return f"{body}.{_b64(self._mac(purpose, body.encode()))}"

    def _open(self, purpose: str, token: str) -> Identity:
        if not self._secret:
            raise AuthError("signed links are not configured")
        body, dot, mac = token.partition(".")
        if not dot or len(token) > MAX_CREDENTIAL:
            raise AuthError("malformed token")
        expected = _b64(self._mac(purpose, body.encode()))
        if not hmac.compare_digest(expected.encode(), mac.encode()):
            raise AuthError("bad signature")
        try:
            claims: dict[str, Any] = json.loads(_unb64(body))
            expires = float(claims["exp"])
            who = Identity(str(claims["p"]), str(claims["u"]), str(claims.get("n") or ""),
                           None, None if claims.get("g") is None else str(claims["g"]),
                           bool(claims.get("a")), str(claims.get("j") or ""), expires)
        except (ValueError, KeyError, TypeError):
            raise AuthError("malformed claims") from None
        if self.clock() > expires:
            raise Expired(f"{purpose} expired")
        return who


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


__all__ = ["AuthError", "Expired", "Identity", "Signer", "Verified", "data_check_string",
           "derive_secret", "secret_key", "sign_init_data", "verify_init_data"]
