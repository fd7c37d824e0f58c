"""A small fake of Discord for adapter tests: REST and gateway on 127.0.0.1.

No maintained Discord emulator exists, so this models exactly what discord.py 2.7 uses:
login (`GET /users/@me`, `GET /oauth2/applications/@me`), `GET /gateway/bot`, command bulk
overwrite (global and per guild), interaction callbacks, follow-ups and edits through the
interaction webhook, channel messages, and a gateway websocket (HELLO, IDENTIFY -> READY and
GUILD_CREATE, heartbeats, and the INTERACTION_CREATE dispatches a test injects). Frames are
zlib-stream compressed as discord.py asks (`compress=zlib-stream` in the URL when neither
`zstandard` nor `compression.zstd` is importable, which is the case in this venv).

Everything the bot sends is recorded: each interaction's callback with the seconds since the
dispatch went out, each follow-up and edit, each channel message. `wait_for` blocks on a
condition that every recorded event notifies; tests never sleep to synchronise.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from aiohttp import WSMsgType, web

from .payloads import (
    ALL_PERMISSIONS,
    APP_ID,
    LOADING,
    TOKEN,
    Callback,
    Interaction,
    Message,
    guild_create,
    interaction_payload,
    member,
    user,
)

__all__ = ["TOKEN", "FakeDiscord", "Interaction", "Message", "user"]

T = TypeVar("T")

BOT_AUTH = ("/users/", "/oauth2/", "/gateway/", "/applications/", "/channels/", "/guilds/")
# Discord's message limits, enforced as Discord does: 400 with code 50035 and the field
CONTENT, DESCRIPTION, TITLE, FOOTER, FIELDS, TOTAL = 2000, 4096, 256, 2048, 25, 6000
FIELD_NAME, FIELD_VALUE = 256, 1024


def too_long(body: dict[str, Any]) -> web.Response | None:
    """Discord's answer to a message body over a limit, or None when it fits."""
    body = body.get("data", body) if isinstance(body.get("data"), dict) else body
    errors = []
    if len(body.get("content") or "") > CONTENT:
        errors.append(f"content: Must be {CONTENT} or fewer in length.")
    total = 0
    for i, embed in enumerate(body.get("embeds") or []):
        sizes = {"description": (len(embed.get("description") or ""), DESCRIPTION),
                 "title": (len(embed.get("title") or ""), TITLE),
                 "footer.text": (len((embed.get("footer") or {}).get("text") or ""), FOOTER)}
        for field, (size, limit) in sizes.items():
            total += size
            if size > limit:
                errors.append(f"embeds.{i}.{field}: Must be {limit} or fewer in length. "
                              f"(got {size})")
        if len(embed.get("fields") or []) > FIELDS:
            errors.append(f"embeds.{i}.fields: Must be {FIELDS} or fewer in length.")
        for j, f in enumerate(embed.get("fields") or []):
            for part, limit in (("name", FIELD_NAME), ("value", FIELD_VALUE)):
                size = len(f.get(part) or "")
                total += size
                if size > limit or size == 0:
                    errors.append(f"embeds.{i}.fields.{j}.{part}: Must be between 1 and "
                                  f"{limit} in length. (got {size})")
    if total > TOTAL:
        errors.append(f"embeds: Embed size exceeds maximum size of {TOTAL}")
    if not errors:
        return None
    return _json({"message": "Invalid Form Body", "code": 50035,
                  "errors": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": e}
                                         for e in errors]}}, status=400)


DROPPED = 0  # a fault's status: the connection closes with no answer


@dataclass
class _Fault:
    method: str
    path: re.Pattern[str]
    status: int
    body: dict[str, Any]
    headers: dict[str, str]
    times: int


class _Socket:
    """One gateway connection: its compressor, sequence and shard."""

    def __init__(self, ws: web.WebSocketResponse, compress: str | None) -> None:
        if compress not in (None, "zlib-stream"):
            raise ValueError(f"the fake gateway speaks zlib-stream only, not {compress}")
        self.ws = ws
        self.zlib = zlib.compressobj() if compress else None
        self.seq = 0
        self.shard = (0, 1)
        self.ready = False
        self._lock = asyncio.Lock()  # frames of one zlib stream must go out in order

    async def send(self, op: int, d: Any, t: str | None = None) -> None:
        async with self._lock:
            if op == 0:
                self.seq += 1
            raw = json.dumps({"op": op, "d": d, "s": self.seq if op == 0 else None, "t": t})
            if self.zlib is None:
                await self.ws.send_str(raw)
            else:  # one stream per connection; Z_SYNC_FLUSH ends each frame with 00 00 ff ff
                await self.ws.send_bytes(self.zlib.compress(raw.encode()) +
                                         self.zlib.flush(zlib.Z_SYNC_FLUSH))


class FakeDiscord:
    """REST + gateway on one 127.0.0.1 port; see the module docstring."""

    def __init__(self, *, guilds: dict[int, int] | None = None, token: str = TOKEN) -> None:
        self.token = token
        self.guilds = dict(guilds or {})  # guild id -> its one text channel
        self.bot = {**user(APP_ID, "quizbot"), "bot": True}
        self._ids = itertools.count(1_300_000_000_000_000_000)
        self.interactions: dict[int, Interaction] = {}
        self.messages: dict[int, Message] = {}
        self.channel_messages: list[Message] = []
        self.channel_log: list[tuple[str, int, float]] = []  # ("post"|"edit", message, time)
        self.permissions: dict[str, str] = {}  # user id -> member permissions (default all)
        self.app_permissions = ALL_PERMISSIONS  # the bot's own, in every interaction
        # roles: each guild's roles besides @everyone; whose member has which role ids;
        # every role the bot added (guild, user, role)
        self.roles: dict[int, list[dict[str, Any]]] = {}
        self.member_roles: dict[tuple[int, str], set[str]] = {}
        self.role_adds: list[tuple[int, str, str]] = []
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.identifies: list[dict[str, Any]] = []
        self.connections: list[dict[str, str]] = []  # each gateway URL's query
        self.requests: list[tuple[str, str]] = []
        self.unhandled: list[str] = []
        self._faults: list[_Fault] = []
        self.files: dict[int, bytes] = {}  # attachment id -> content (options of type 11)
        self.downloads: list[int] = []  # attachment ids the bot fetched
        self._sockets: list[_Socket] = []
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.port = 0

    # --- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        app.router.add_get("/attachments/{id}/{name}", self._attachment)  # Discord's CDN
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def close(self) -> None:
        for sock in list(self._sockets):
            await sock.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    @property
    def connected(self) -> int:
        """Gateway connections that got READY and are still open."""
        return sum(1 for s in self._sockets if s.ready and not s.ws.closed)

    async def wait_for(self, predicate: Callable[[], T], timeout: float = 30.0,  # noqa: ASYNC109
                       what: str = "condition") -> T:
        """Block until `predicate()` is truthy (re-checked on every recorded event); the
        bound is generous (a loaded machine is slow) and only reached when something broke."""
        try:
            async with self._changed:
                return await asyncio.wait_for(self._changed.wait_for(predicate), timeout)
        except TimeoutError:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}") from None

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    # --- fault injection -----------------------------------------------------------------------

    def fail(self, method: str, path: str, status: int, body: dict[str, Any], *,
             times: int = 1, headers: dict[str, str] | None = None) -> None:
        """Answer the next `times` requests matching `method` and the `path` regex with an error."""
        self._faults.append(_Fault(method, re.compile(path), status, body, headers or {}, times))

    def drop(self, method: str, path: str, *, times: int = 1) -> None:
        """Close the connection of the next `times` matching requests without an answer (the
        network cut, Discord's edge restarting)."""
        self._faults.append(_Fault(method, re.compile(path), DROPPED, {}, {}, times))

    def rate_limit(self, method: str, path: str, retry_after: float = 0.05) -> None:
        """One 429 as Discord sends it (with the Via header discord.py checks for)."""
        self.fail(method, path, 429, {"message": "You are being rate limited.",
                                      "retry_after": retry_after, "global": False},
                  headers={"Via": "1.1 google", "X-RateLimit-Scope": "user"})

    # --- injecting interactions --------------------------------------------------------------

    async def slash(self, who: dict[str, Any], name: str, *, guild: int | None = None,
                    options: dict[str, Any] | None = None, expired: bool = False,
                    subcommand: str | None = None) -> Interaction:
        """A user runs /name in `guild`'s channel (or in a DM with the bot); an option
        given as (file name, bytes) is an attachment the bot can download."""
        opts, resolved = [], {}
        for key, value in (options or {}).items():
            if isinstance(value, tuple):  # an attachment: (file name, content)
                aid = next(self._ids)
                self.files[aid] = value[1]
                url = f"http://127.0.0.1:{self.port}/attachments/{aid}/{value[0]}"
                opts.append({"name": key, "type": 11, "value": str(aid)})
                resolved.setdefault("attachments", {})[str(aid)] = {
                    "id": str(aid), "filename": value[0], "size": len(value[1]), "url": url,
                    "proxy_url": url, "content_type": "application/octet-stream"}
            elif isinstance(value, dict) and "position" in value:  # a role option
                opts.append({"name": key, "type": 8, "value": value["id"]})
                resolved.setdefault("roles", {})[value["id"]] = value
            elif isinstance(value, dict):  # a user option
                opts.append({"name": key, "type": 6, "value": value["id"]})
                resolved.setdefault("users", {})[value["id"]] = value
                if guild is not None:
                    resolved.setdefault("members", {})[value["id"]] = member(None)
            else:
                kind = 4 if isinstance(value, int) else 3
                opts.append({"name": key, "type": kind, "value": value})
        if subcommand is not None:  # /name subcommand [options]
            opts = [{"name": subcommand, "type": 1, "options": opts}]
        data: dict[str, Any] = {"id": str(self._command_id(name, guild)), "name": name,
                                "type": 1, "options": opts}
        if resolved:
            data["resolved"] = resolved
        if guild is not None and guild in self.commands:
            data["guild_id"] = str(guild)
        return await self._dispatch(2, who, guild, data, None, expired)

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        aid = int(request.match_info["id"])
        self.downloads.append(aid)
        data = self.files.get(aid)
        return web.Response(body=data) if data is not None else web.Response(status=404)

    async def autocomplete(self, who: dict[str, Any], name: str, option: str, value: str, *,
                           guild: int | None = None, subcommand: str | None = None,
                           ) -> Interaction:
        """The user types `value` into `option` of /name [subcommand]."""
        opts: list[dict[str, Any]] = [{"name": option, "type": 3, "value": value,
                                       "focused": True}]
        if subcommand is not None:
            opts = [{"name": subcommand, "type": 1, "options": opts}]
        data = {"id": str(self._command_id(name, guild)), "name": name, "type": 1,
                "options": opts}
        return await self._dispatch(4, who, guild, data, None, False)

    async def press(self, who: dict[str, Any], message: Message, custom_id: str, *,
                    expired: bool = False) -> Interaction:
        """The user presses the button `custom_id` on `message`."""
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._dispatch(3, who, message.guild_id, data, message, expired)

    async def submit(self, who: dict[str, Any], message: Message, custom_id: str,
                     value: str) -> Interaction:
        """The user submits the modal `custom_id` (opened by a button on `message`) with
        `value` in its one text input (MODAL_SUBMIT, interaction type 5)."""
        data = {"custom_id": custom_id, "components": [{"type": 1, "components": [
            {"type": 4, "custom_id": "value", "value": value}]}]}
        return await self._dispatch(5, who, message.guild_id, data, message, False)

    def _command_id(self, name: str, guild: int | None) -> int:
        for cmd in self.commands.get(guild, []) + self.commands.get(None, []):
            if cmd["name"] == name:
                return int(cmd["id"])
        return next(self._ids)  # not synced: Discord would not offer it, but let us see

    def dm_channel(self, who: dict[str, Any]) -> int:
        return int(who["id"]) + 1

    async def _dispatch(self, kind: int, who: dict[str, Any], guild: int | None,
                        data: dict[str, Any], message: Message | None, expired: bool,
                        ) -> Interaction:
        channel = self.guilds[guild] if guild is not None else self.dm_channel(who)
        ix = Interaction(next(self._ids), f"itoken-{next(self._ids)}", kind, who, guild, channel,
                         message, expired=expired)
        payload = interaction_payload(ix, data)
        payload["app_permissions"] = self.app_permissions
        if "member" in payload and who["id"] in self.permissions:
            payload["member"]["permissions"] = self.permissions[who["id"]]
        sock = self._socket_for(guild)
        self.interactions[ix.id] = ix
        ix.sent_at = asyncio.get_running_loop().time()
        await sock.send(0, payload, "INTERACTION_CREATE")
        return ix

    async def join_guild(self, guild: int, channel: int, *, system: bool = True) -> None:
        """The bot is added to `guild` (one text channel, the server's system channel when
        `system`): GUILD_CREATE for a server it was not in, as discord.py's on_guild_join."""
        self.guilds[guild] = channel
        data = guild_create(guild, channel, self.roles.get(guild, []))
        data["system_channel_id"] = str(channel) if system else None
        data["members"] = [member(self.bot)]  # the bot's own member: its permissions
        del data["unavailable"]  # a server new to the bot; False: one back after an outage
        await self._socket_for(guild).send(0, data, "GUILD_CREATE")

    async def remove_guild(self, guild: int) -> None:
        """The bot is kicked from `guild` (or the server is deleted): GUILD_DELETE without
        `unavailable`, as discord.py's on_guild_remove."""
        sock = self._socket_for(guild)
        del self.guilds[guild]
        await sock.send(0, {"id": str(guild)}, "GUILD_DELETE")

    def _socket_for(self, guild: int | None) -> _Socket:
        live = [s for s in self._sockets if s.ready and not s.ws.closed]
        for sock in live:
            shard_id, count = sock.shard
            if ((guild or 0) >> 22) % count == shard_id:
                return sock
        raise AssertionError("the bot is not connected to the fake gateway")

    # --- gateway -----------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.connections.append(dict(request.query))
        if request.query.get("encoding", "json") != "json":
            await ws.close(code=4002, message=b"json only")
            return ws
        sock = _Socket(ws, request.query.get("compress"))
        self._sockets.append(sock)
        try:
            await sock.send(10, {"heartbeat_interval": 41250})
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    await self._gateway_op(sock, json.loads(msg.data))
        finally:
            self._sockets.remove(sock)
            await self._notify()
        return ws

    async def _gateway_op(self, sock: _Socket, msg: dict[str, Any]) -> None:
        op, d = msg.get("op"), msg.get("d")
        if op == 1:
            await sock.send(11, None)
        elif op == 2:
            if d.get("token") != self.token:
                await sock.ws.close(code=4004, message=b"Authentication failed.")
                return
            self.identifies.append(d)
            shard_id, count = d.get("shard") or (0, 1)
            sock.shard = (shard_id, count)
            mine = [g for g in self.guilds if (g >> 22) % count == shard_id]
            await sock.send(0, {
                "v": 10, "user": self.bot, "session_id": f"session-{next(self._ids)}",
                "resume_gateway_url": self.gateway_url, "shard": [shard_id, count],
                "application": {"id": str(APP_ID), "flags": 0},
                "guilds": [{"id": str(g), "unavailable": True} for g in mine],
            }, "READY")
            for guild in mine:
                await sock.send(0, guild_create(guild, self.guilds[guild],
                                                self.roles.get(guild, [])), "GUILD_CREATE")
            sock.ready = True
            await self._notify()
        elif op == 6:
            await sock.send(0, {}, "RESUMED")

    # --- REST --------------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        self.requests.append((request.method, path))
        try:
            return await self._answer(request, path)
        finally:
            await self._notify()

    async def _answer(self, request: web.Request, path: str) -> web.StreamResponse:
        for fault in self._faults:
            if fault.times and fault.method == request.method and fault.path.search(path):
                fault.times -= 1
                if fault.status == DROPPED:
                    assert request.transport is not None
                    request.transport.close()  # what is written next goes nowhere
                    return _json({}, status=500)
                return _json(fault.body, status=fault.status, headers=fault.headers)
        if path.startswith(BOT_AUTH) and request.headers.get("Authorization") != \
                f"Bot {self.token}":
            return _json({"message": "401: Unauthorized", "code": 0}, status=401)
        for method, pattern, handler in self._routes():
            if method == request.method and (m := re.fullmatch(pattern, path)):
                response: web.StreamResponse = await handler(request, **m.groupdict())
                return response
        self.unhandled.append(f"{request.method} {path}")
        return _json({"message": "404: Not Found", "code": 0}, status=404)

    def _routes(self) -> list[tuple[str, str, Callable[..., Any]]]:
        wh = r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)"
        return [
            ("GET", r"/users/@me", self._me),
            ("GET", r"/oauth2/applications/@me", self._application),
            ("GET", r"/gateway/bot", self._gateway_bot),
            ("PUT", r"/applications/\d+/commands", self._put_commands),
            ("PUT", r"/applications/\d+/guilds/(?P<guild>\d+)/commands", self._put_commands),
            ("POST", r"/interactions/(?P<ix_id>\d+)/(?P<token>[^/]+)/callback", self._callback),
            ("POST", wh, self._followup),
            ("GET", wh + r"/messages/(?P<msg>@original|\d+)", self._webhook_message),
            ("PATCH", wh + r"/messages/(?P<msg>@original|\d+)", self._webhook_message),
            ("DELETE", wh + r"/messages/(?P<msg>@original|\d+)", self._webhook_message),
            ("POST", r"/channels/(?P<channel>\d+)/messages", self._channel_message),
            ("PATCH", r"/channels/(?P<channel>\d+)/messages/(?P<msg>\d+)",
             self._edit_channel_message),
            ("GET", r"/guilds/(?P<guild>\d+)/members/(?P<member_id>\d+)", self._member),
            ("PUT", r"/guilds/(?P<guild>\d+)/members/(?P<member_id>\d+)/roles/(?P<role>\d+)",
             self._add_role),
            ("POST", r"/users/@me/channels", self._open_dm),
        ]

    async def _member(self, request: web.Request, guild: str, member_id: str
                      ) -> web.Response:
        who = self.bot if member_id == self.bot["id"] else user(int(member_id), "member")
        return _json({**member(who), "roles": sorted(self.member_roles.get(
            (int(guild), member_id), set()))})

    async def _add_role(self, request: web.Request, guild: str, member_id: str,
                        role: str) -> web.Response:
        self.member_roles.setdefault((int(guild), member_id), set()).add(role)
        self.role_adds.append((int(guild), member_id, role))
        return web.Response(status=204)

    async def _open_dm(self, request: web.Request) -> web.Response:
        recipient = str((await json_of(request))["recipient_id"])
        return _json({"id": str(int(recipient) + 1), "type": 1, "last_message_id": None,
                      "recipients": [user(int(recipient), f"user{recipient}")]})

    async def _me(self, request: web.Request) -> web.Response:
        return _json(self.bot)

    async def _application(self, request: web.Request) -> web.Response:
        return _json({
            "id": str(APP_ID), "name": "quizbot", "icon": None, "description": "",
            "bot_public": True, "bot_require_code_grant": False, "verify_key": "0" * 64,
            "owner": user(APP_ID + 1, "owner"), "flags": 0, "team": None,
        })

    async def _gateway_bot(self, request: web.Request) -> web.Response:
        return _json({"url": self.gateway_url, "shards": 1, "session_start_limit": {
            "total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}})

    async def _put_commands(self, request: web.Request, guild: str | None = None,
                            ) -> web.Response:
        body = await json_of(request)
        key = int(guild) if guild else None
        self.commands[key] = [
            {**cmd, "id": str(next(self._ids)), "application_id": str(APP_ID), "version": "1",
             **({"guild_id": guild} if guild else {})} for cmd in body]
        return _json(self.commands[key])

    async def _callback(self, request: web.Request, ix_id: str, token: str) -> web.Response:
        ix = self.interactions.get(int(ix_id))
        if ix is None or ix.token != token or ix.expired:
            if ix is not None:
                ix.refused += 1
            return _json({"message": "Unknown interaction", "code": 10062}, status=404)
        if ix.callback is not None:
            ix.refused += 1
            return _json({"message": "Interaction has already been acknowledged.",
                          "code": 40060}, status=400)
        body = await json_of(request)
        kind, data = body["type"], body.get("data") or {}
        if (refused := too_long(data)) is not None:
            ix.refused += 1
            return refused
        ix.callback = Callback(kind, data, asyncio.get_running_loop().time() - ix.sent_at)
        ix.record(f"callback {kind}")
        message = None
        if kind in (4, 5):
            flags = data.get("flags", 0) | (LOADING if kind == 5 else 0)
            message = ix.original = self._new_message(ix, data, flags)
        elif kind in (6, 7) and ix.message is not None:
            ix.original = message = ix.message
            if kind == 7:
                ix.message.apply(data)
        reply: dict[str, Any] = {"interaction": {
            "id": str(ix.id), "type": ix.type, "response_message_loading": kind == 5,
            "response_message_ephemeral": bool(message and message.ephemeral)}}
        if message is not None:
            reply["interaction"]["response_message_id"] = str(message.id)
            reply["resource"] = {"type": kind, "message": message.to_json()}
        return _json(reply)

    def _by_token(self, token: str) -> Interaction | None:
        return next((ix for ix in self.interactions.values() if ix.token == token), None)

    async def _followup(self, request: web.Request, app: str, token: str) -> web.Response:
        ix = self._by_token(token)
        if ix is None or ix.callback is None:
            return _json({"message": "Unknown Webhook", "code": 10015}, status=404)
        body = await json_of(request)
        if (refused := too_long(body)) is not None:
            return refused
        original = ix.original
        if original is not None and original.flags & LOADING:  # fills the "thinking…" one
            original.apply(body)
            original.flags &= ~LOADING
            message = original
        else:
            message = self._new_message(ix, body, body.get("flags", 0))
            ix.followups.append(message)
        ix.record("follow-up")
        if request.query.get("wait") in ("1", "true"):
            return _json(message.to_json())
        return web.Response(status=204)

    async def _webhook_message(self, request: web.Request, app: str, token: str, msg: str,
                               ) -> web.StreamResponse:
        ix = self._by_token(token)
        target = (ix.original if ix is not None else None) if msg == "@original" \
            else self.messages.get(int(msg))
        if target is None:
            return _json({"message": "Unknown Message", "code": 10008}, status=404)
        if request.method == "DELETE":
            self.messages.pop(target.id, None)
            return web.Response(status=204)
        if request.method == "PATCH":
            body = await json_of(request)
            if (refused := too_long(body)) is not None:
                return refused
            target.apply(body)
            target.flags &= ~LOADING
            if ix is not None:
                ix.record("edit")
        return _json(target.to_json())

    async def _channel_message(self, request: web.Request, channel: str) -> web.Response:
        body = await json_of(request)
        if (refused := too_long(body)) is not None:
            return refused
        guild = next((g for g, c in self.guilds.items() if c == int(channel)), None)
        message = Message(next(self._ids), int(channel), guild, self.bot,
                          content=body.get("content") or "", embeds=body.get("embeds") or [],
                          components=body.get("components") or [])
        self.messages[message.id] = message
        self.channel_messages.append(message)
        self.channel_log.append(("post", message.id, asyncio.get_running_loop().time()))
        return _json(message.to_json())

    async def _edit_channel_message(self, request: web.Request, channel: str, msg: str,
                                    ) -> web.Response:
        message = self.messages.get(int(msg))
        if message is None or message.channel_id != int(channel):
            return _json({"message": "Unknown Message", "code": 10008}, status=404)
        body = await request.json()
        if (refused := too_long(body)) is not None:
            return refused
        message.apply(body)
        self.channel_log.append(("edit", message.id, asyncio.get_running_loop().time()))
        return _json(message.to_json())

    def _new_message(self, ix: Interaction, data: dict[str, Any], flags: int) -> Message:
        message = Message(
            next(self._ids), ix.channel_id, ix.guild_id, self.bot,
            content=data.get("content") or "", embeds=data.get("embeds") or [],
            components=data.get("components") or [], flags=flags,
            interaction_metadata={"id": str(ix.id), "type": ix.type, "user": ix.user,
                                  "authorizing_integration_owners": {}})
        self.messages[message.id] = message
        return message


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """A JSON response with Content-Type exactly application/json, as Discord sends it
    (discord.py's json_or_text compares the header literally)."""
    return web.Response(body=json.dumps(data).encode(), status=status,
                        headers={"Content-Type": "application/json", **(headers or {})})


async def json_of(request: web.Request) -> Any:
    """The JSON body, also from a multipart upload (a message with a file: `payload_json`,
    the files noted as `attachments_uploaded`)."""
    if request.content_type.startswith("multipart/"):
        form = await request.post()
        body = json.loads(str(form["payload_json"]))
        files = [k for k, v in form.items() if not isinstance(v, str)]
        data = body.get("data", body)
        data["attachments_uploaded"] = files
        return body
    return await request.json()
