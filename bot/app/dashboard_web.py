"""The dashboard over HTTP: the page, its two files, and the JSON API.

`GET /app` is one HTML page (bot/present/web) that reads Telegram's `#tgWebAppData=...`
from its own URL (or a Discord link's `#link=...`) and calls the API with it:

- `GET /api/me`, `GET /api/groups/{id}`, `GET /api/groups/{id}/export.{csv|json}` with
  `Authorization: tma <initData>` (Telegram Mini App init data) or
  `Authorization: session <token>`; 401 without valid auth (`{"error": "expired"}` for a
  genuine one too old: the page says to open it anew), 403 for a group the caller is not
  in (or, for the export, not an admin of; `{"error": "bot_gone"}`: the bot is no longer
  in the group). `GET /api/groups/{id}/items.csv`: the item
  statistics, for admins; `GET /api/groups/{id}/members?find=&order=&offset=`: a page of
  the member table, for admins. `POST /api/reports/{id}/resolve`: a problem report marked
  resolved, for the configured `admins`.
- `POST /api/session` with `Authorization: link <token>`: a Discord link (ten minutes,
  once) exchanged for a session token (an hour).

Every `/api/*` request spends a token of its address's bucket before anything is checked,
and a verified caller one of their own (`web.rate_limit` a minute; an address gets ten
learners' worth): past either, 429 with Retry-After at once, before any HMAC (a credential
verified before is looked up, not verified again), JSON or database work, and not logged
(counted in `quizbot_web_rate_limited`). At most API_WORKERS requests past the limits are
worked on at once. Behind the proxy (the peer is this host) the address is the last
X-Forwarded-For hop, the one the proxy added.

Nothing else gets in, and no response echoes a credential, a token or message text.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from aiohttp import web

from bot.app.web_server import printable
from bot.features.dashboard.auth import (
    SESSION_SECONDS,
    AuthError,
    Expired,
    Identity,
    Signer,
    Verified,
    verify_init_data,
)
from bot.features.dashboard.member_table import TableAsk
from bot.features.dashboard.pages import BotGone, Dashboard, Forbidden, Unavailable
from bot.features.dashboard.throttle import ADDRESS_FACTOR, DEFAULT_PER_MINUTE, RateLimit
from bot.present.i18n import Catalogue, is_rtl, isolate_commands, isolate_latin
from bot.store.commands.dashboard_sql import use_link

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# Lines with numbers in them come formatted from the API (plural forms, bidi isolation);
# the page formats only these.
PAGE_KEYS = ("stats.per_question", "progress.title", "error.generic", "progress.topics",
             "progress.confident_misses")
# The page runs only its own files. Telegram's web client (web.telegram.org, versions A
# and K) shows a Mini App in a frame, and the apps open it in their own web view: any other
# site framing it could only be dressing it up to steer a signed-in admin's clicks.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; "
       "frame-ancestors https://web.telegram.org")
NO_STORE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer"}
ASSETS = {"app.js": "text/javascript", "app.css": "text/css"}
API_WORKERS = 4  # /api requests worked on at once (the rest wait their turn)


@cache
def _asset(name: str) -> str:
    return (resources.files("bot.present") / "web" / name).read_text(encoding="utf-8")


def page_strings(cat: Catalogue) -> dict[str, dict[str, str]]:
    """The page's UI strings per language (RTL ones with Latin runs and /commands isolated:
    on a page nothing is tapped)."""
    out = {}
    for lang in cat.languages:
        keys = sorted(k for k in cat.keys(lang) if k.startswith("dashboard.")) + list(PAGE_KEYS)
        out[lang] = {k: isolate_commands(isolate_latin(cat.raw(lang, k))) if is_rtl(lang)
                     else cat.raw(lang, k) for k in keys}
    return out


class DashboardWeb:
    """The routes; `bot_token` checks Telegram init data, `signer` Discord's links."""

    def __init__(self, dashboard: Dashboard, cat: Catalogue, *, bot_token: str,
                 signer: Signer, rate_limit: int = DEFAULT_PER_MINUTE,
                 refused: Callable[[str], object] = lambda limit: None) -> None:
        self.dashboard, self.cat = dashboard, cat
        self._token = bot_token
        self.signer = signer
        self.learners = RateLimit(rate_limit, signer.clock)
        self.addresses = RateLimit(rate_limit * ADDRESS_FACTOR, signer.clock)
        self.verified = Verified(signer.clock)
        self.refused = refused  # told "address" or "learner" for each 429
        # Requests within the limits take turns (API_WORKERS at once) at the database and
        # the platform's API, so a burst of them cannot crowd the taps sharing the loop.
        self._working = asyncio.Semaphore(API_WORKERS)
        strings = json.dumps(page_strings(cat), ensure_ascii=False).replace("</", "<\\/")
        self._page = (_asset("app.html").replace("{{strings}}", strings)
                      .replace("{{default}}", cat.default))

    def routes(self) -> list[tuple[str, str, Handler]]:
        """(method, path, handler) for every route, to add to any aiohttp router."""
        return [("GET", "/app", self.page),
                ("GET", "/app/{name:app\\.(js|css)}", self.asset),
                ("GET", "/api/me", self.me),
                ("GET", "/api/groups/{id}", self.group),
                ("GET", "/api/groups/{id}/members", self.members),
                ("GET", "/api/groups/{id}/export.{fmt:csv|json}", self.export),
                ("GET", "/api/groups/{id}/items.csv", self.items),
                ("POST", "/api/reports/{id:[0-9]{1,18}}/resolve", self.resolve),
                ("POST", "/api/session", self.session)]

    def mount(self, add_route: Callable[[str, str, Handler], Any]) -> None:
        """Add every route through `add_route(method, path, handler)`."""
        for method, path, handler in self.routes():
            add_route(method, path, handler)

    # --- who is asking ------------------------------------------------------------------

    def identity(self, credential: str) -> Identity:
        """The caller, from `tma <init data>` or `session <token>` (the Authorization
        header's value)."""
        scheme, _, credential = credential.partition(" ")
        scheme = scheme.lower()
        if scheme == "tma":
            return verify_init_data(credential.strip(), self._token, self.signer.clock())
        if scheme == "session":
            return self.signer.open_session(credential.strip())
        raise AuthError("no credential")

    async def _guarded(self, request: web.Request,
                       body: Callable[[Identity], Awaitable[web.StreamResponse]]
                       ) -> web.StreamResponse:
        # A refusal costs two bucket lookups: before any HMAC, JSON or database work, and
        # without a log line (counted in quizbot_web_rate_limited instead).
        wait = self.addresses.take(address(request))
        if wait:
            return self._too_many("address", wait)
        credential = request.headers.get("Authorization", "")
        who = self.verified.get(credential)
        if who is None:
            try:
                who = self.identity(credential)
            except AuthError as exc:
                log.info("dashboard: %s %s refused: %s", request.method,
                         printable(request.path), exc)
                return _error(401, "expired" if isinstance(exc, Expired) else "signin")
            self.verified.keep(credential, who)
        wait = self.learners.take(f"{who.platform}:{who.user_id}")
        if wait:
            return self._too_many("learner", wait)
        async with self._working:
            try:
                return await body(who)
            except Forbidden as exc:
                log.info("dashboard: %s", exc)
                return _error(403, "bot_gone" if isinstance(exc, BotGone) else "forbidden")
            except Unavailable as exc:
                log.warning("dashboard: %s", exc)
                return _error(503, "unavailable")
            except Exception:
                log.exception("dashboard: %s %s failed", request.method,
                              printable(request.path))
                return _error(500, "error")

    def _too_many(self, limit: str, wait: int) -> web.Response:
        """429 at once (nothing waits on the server), built from bytes made once."""
        self.refused(limit)
        body = _BUSY.get(wait) or _busy_body(wait)
        return web.Response(body=body, status=429, content_type="application/json",
                            headers={**NO_STORE, "Retry-After": str(wait)})

    # --- routes ---------------------------------------------------------------------------

    async def page(self, request: web.Request) -> web.StreamResponse:
        """The one HTML page."""
        return web.Response(text=self._page, content_type="text/html", charset="utf-8",
                            headers={**NO_STORE, "Content-Security-Policy": CSP})

    async def asset(self, request: web.Request) -> web.StreamResponse:
        """app.js or app.css, shipped in the package."""
        name = request.match_info["name"]
        return web.Response(text=_asset(name), content_type=ASSETS[name], charset="utf-8",
                            headers={"Cache-Control": "public, max-age=300",
                                     "X-Content-Type-Options": "nosniff"})

    async def me(self, request: web.Request) -> web.StreamResponse:
        """The caller's own progress."""
        async def body(who: Identity) -> web.StreamResponse:
            return _json(await self.dashboard.me(who))
        return await self._guarded(request, body)

    async def group(self, request: web.Request) -> web.StreamResponse:
        """A group's view, for its members."""
        group_id = request.match_info["id"]

        async def body(who: Identity) -> web.StreamResponse:
            return _json(await self.dashboard.group(who, group_id))
        return await self._guarded(request, body)

    async def members(self, request: web.Request) -> web.StreamResponse:
        """A page of the group's member table (`?find=&order=&offset=`), for its admins."""
        group_id, ask = request.match_info["id"], TableAsk.parse(request.query)

        async def body(who: Identity) -> web.StreamResponse:
            return _json(await self.dashboard.members(who, group_id, ask))
        return await self._guarded(request, body)

    async def export(self, request: web.Request) -> web.StreamResponse:
        """The group's results as a download, for its admins."""
        group_id, fmt = request.match_info["id"], request.match_info["fmt"]

        async def body(who: Identity) -> web.StreamResponse:
            return _download(await self.dashboard.export(who, group_id, fmt), group_id,
                             "results", fmt)
        return await self._guarded(request, body)

    async def resolve(self, request: web.Request) -> web.StreamResponse:
        """Mark a problem report resolved (configured admins)."""
        report_id = int(request.match_info["id"])

        async def body(who: Identity) -> web.StreamResponse:
            return _json({"resolved": await self.dashboard.resolve(who, report_id)})
        return await self._guarded(request, body)

    async def items(self, request: web.Request) -> web.StreamResponse:
        """The group's item statistics as CSV, for its admins."""
        group_id = request.match_info["id"]

        async def body(who: Identity) -> web.StreamResponse:
            return _download(await self.dashboard.items_csv(who, group_id), group_id,
                             "items", "csv")
        return await self._guarded(request, body)

    async def session(self, request: web.Request) -> web.StreamResponse:
        """A Discord link exchanged, once, for a session token."""
        wait = self.addresses.take(address(request))
        if wait:
            return self._too_many("address", wait)
        scheme, _, credential = request.headers.get("Authorization", "").partition(" ")
        try:
            if scheme.lower() != "link":
                raise AuthError("no link")
            who = self.signer.open_link(credential.strip())
            if not who.nonce or not await self.dashboard.store.write(
                    use_link, who.nonce, who.expires_at, self.signer.clock()):
                raise AuthError("link already used")
        except AuthError as exc:
            log.info("dashboard: link refused: %s", exc)
            return _error(401, "expired" if isinstance(exc, Expired) else "signin")
        return _json({"session": self.signer.session(who), "expires_in": int(SESSION_SECONDS)})


def _json(data: dict[str, Any]) -> web.Response:
    return web.json_response(data, headers=NO_STORE,
                             dumps=lambda d: json.dumps(d, ensure_ascii=False))


def _error(status: int, code: str) -> web.Response:
    return web.json_response({"error": code}, status=status, headers=NO_STORE)


def _download(text: str, group_id: str, what: str, fmt: str) -> web.Response:
    safe = "".join(c for c in group_id if c.isalnum() or c == "-")[:40]
    return web.Response(
        text=text, content_type="text/csv" if fmt == "csv" else "application/json",
        charset="utf-8", headers={
            **NO_STORE,
            "Content-Disposition": f'attachment; filename="quizbot-{safe}-{what}.{fmt}"'})


def _busy_body(wait: int) -> bytes:
    return json.dumps({"error": "busy", "retry_after": wait}).encode()


_BUSY = {wait: _busy_body(wait) for wait in range(1, 61)}  # the usual waits, made once


def address(request: web.Request) -> str:
    """The client's address: the peer, or behind a proxy on this host the last
    X-Forwarded-For hop (the one the proxy added; earlier ones the client could write)."""
    peer = request.remote or ""
    forwarded = request.headers.get("X-Forwarded-For", "")
    if forwarded and _loopback(peer):
        return forwarded.rsplit(",", 1)[-1].strip()[:64]
    return peer


@lru_cache(maxsize=1024)
def _loopback(peer: str) -> bool:
    try:
        return ipaddress.ip_address(peer).is_loopback
    except ValueError:
        return False


__all__ = ["CSP", "DashboardWeb", "address", "page_strings"]
