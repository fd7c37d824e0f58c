"""A fake Telegram Bot API server on 127.0.0.1 for adapter tests and the benchmark.

It speaks the real wire format (`POST /bot<token>/<method>`, form or JSON parameters,
`{"ok": true, "result": ...}` answers and real error descriptions), keeps every chat's
messages, queues updates for `getUpdates` with offset and long-poll semantics, and records
every call and when each update was handed out.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from tests.adapters.telegram.wire import ApiError, bot_commands, parse_html, read_params

MAX_POLL = 10.0  # seconds a long poll may hang, whatever the client asks
GROUP_POSTS_PER_MINUTE = 20  # Telegram's flood limit for a bot's messages into one group
GROUP_POSTS = frozenset({"sendMessage", "editMessageText", "editMessageReplyMarkup",
                         "sendPhoto"})
# messages that are not text, as the Bot API gives them
MEDIA: dict[str, dict[str, Any]] = {
    "photo": {"photo": [{"file_id": "ph1", "file_unique_id": "uph1", "width": 90,
                         "height": 90}]},
    "sticker": {"sticker": {"file_id": "st1", "file_unique_id": "ust1", "type": "regular",
                            "width": 512, "height": 512, "is_animated": False,
                            "is_video": False}},
    "voice": {"voice": {"file_id": "vo1", "file_unique_id": "uvo1", "duration": 3}},
    "location": {"location": {"latitude": 24.86, "longitude": 67.01}},
}


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    time: float  # time.perf_counter() when the request arrived
    error: str | None = None  # the description, when the fake answered with an error
    result: Any = None  # what a successful call returned (e.g. the sent Message)

    @property
    def ok(self) -> bool:
        """Finished, and successfully (a call in progress is neither ok nor failed)."""
        return self.error is None and self.result is not None


@dataclass
class Injected:
    status: int
    description: str
    parameters: dict[str, Any] | None = None
    drop: bool = False  # close the connection instead of answering (a network failure)


RESTRICTED_RIGHTS = (
    "can_change_info", "can_invite_users", "can_pin_messages", "can_send_messages",
    "can_send_polls", "can_send_other_messages", "can_add_web_page_previews",
    "can_manage_topics", "can_send_audios", "can_send_documents", "can_send_photos",
    "can_send_videos", "can_send_video_notes", "can_send_voice_notes", "can_edit_tag",
    "can_react_to_messages")
ADMIN_RIGHTS = (
    "can_manage_chat", "can_delete_messages", "can_manage_video_chats", "can_restrict_members",
    "can_promote_members", "can_change_info", "can_invite_users", "can_post_stories",
    "can_edit_stories", "can_delete_stories")
NOT_BY_DEFAULT = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


class FakeBotAPI:
    """The fake server. Use as `async with FakeBotAPI(token) as api:`; `api.base_url` is
    what goes into `telegram.api_base_url`."""

    def __init__(self, token: str, *, bot_id: int | None = None,
                 username: str = "quizbot_test_bot",
                 clock: Callable[[], float] = time.perf_counter,
                 group_limit: int = GROUP_POSTS_PER_MINUTE) -> None:
        self.token = token
        # Call.time and the per-group flood window read this clock; a test that moves time
        # itself passes its own so that "a minute" is the test's minute.
        self.clock = clock
        self.group_limit = group_limit
        self.group_posts: dict[int, list[float]] = defaultdict(list)  # chat -> post times
        self.flooded: list[Call] = []  # posts refused with 429 by the group flood limit
        self.members: dict[tuple[int, int], str] = {}  # (group, user) -> ChatMember status
        self.bot = {"id": bot_id or int(token.split(":")[0]), "is_bot": True,
                    "first_name": "Quizbot", "username": username, "can_join_groups": True,
                    "can_read_all_group_messages": False, "supports_inline_queries": False}
        self.calls: list[Call] = []
        self.messages: dict[tuple[int, int], dict[str, Any]] = {}
        self.html: dict[tuple[int, int], str] = {}  # the source text as the bot sent it
        self.chats: dict[int, dict[str, Any]] = {}
        self.blocked: set[int] = set()
        self.upgraded: dict[int, int] = {}  # a group upgraded to a supergroup -> its new id
        self.commands: dict[str | None, list[dict[str, Any]]] = {}
        self.webhook_url = ""
        # the update kinds the bot last asked for (getUpdates or setWebhook), kept as Telegram
        # keeps them; an update of another kind is never handed out (None: the default)
        self.allowed_updates: list[str] | None = None
        self.files: dict[str, bytes] = {}  # file_id -> content (documents users send)
        self.handed_out: dict[int, float] = {}  # update_id -> first getUpdates hand-out
        self.answered: dict[str, float] = {}  # callback_query_id -> answerCallbackQuery time
        self.callback_update: dict[str, int] = {}  # callback_query_id -> update_id
        self._updates: deque[dict[str, Any]] = deque()
        self._update_ids = itertools.count(1)
        self._message_ids: dict[int, itertools.count[int]] = {}
        self._callback_ids = itertools.count(1)
        self._injected: dict[str, deque[Injected]] = defaultdict(deque)
        self._holds: dict[str, asyncio.Event] = {}
        self._stalls: dict[str, int] = defaultdict(int)
        self._gates: list[asyncio.Event] = []
        self._changed = asyncio.Condition()
        self._listeners: dict[int, list[asyncio.Queue[Call]]] = defaultdict(list)
        self._closing = False
        self._polls = 0
        self._runner: web.AppRunner | None = None
        self.port = 0

    # --- lifecycle --------------------------------------------------------------------------

    async def __aenter__(self) -> FakeBotAPI:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self, port: int = 0) -> None:
        """Listen on `port` (a random one by default) of 127.0.0.1."""
        app = web.Application(client_max_size=8 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/documents/{file_id}", self._download)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        server = site._server
        assert server is not None and server.sockets
        self.port = server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        """Wake every long poll and stop the server."""
        self._closing = True
        for gate in self._gates:
            gate.set()
        async with self._changed:
            self._changed.notify_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def polls(self) -> int:
        """getUpdates calls that reached their wait (the newest one is the one waiting)."""
        return self._polls

    # --- test controls --------------------------------------------------------------------

    def inject(self, method: str, status: int = 400, description: str = "Bad Request",
               *, retry_after: int | None = None, migrate_to: int | None = None,
               drop: bool = False, times: int = 1) -> None:
        """Make the next `times` calls of `method` fail this way (`migrate_to`: the group
        became a supergroup with this id)."""
        params: dict[str, Any] | None = None
        if retry_after is not None:
            params = {"retry_after": retry_after}
        if migrate_to is not None:
            params = {"migrate_to_chat_id": migrate_to}
        for _ in range(times):
            self._injected[method].append(Injected(status, description, params, drop))

    def heal(self) -> None:
        """Forget every injected fault that has not happened yet."""
        self._injected.clear()

    def hold(self, method: str) -> None:
        """Calls of `method` from now on hang (recorded, unanswered) until `release`."""
        self._holds[method] = asyncio.Event()
        self._gates.append(self._holds[method])

    def stall(self, method: str, times: int = 1) -> None:
        """The next `times` calls of `method` are carried out (a message is sent, as
        Telegram would) but never answered: the caller's read time-out runs out on a call
        that worked."""
        self._stalls[method] += times

    def release(self, method: str) -> None:
        """Calls of `method` from now on are answered again; the ones held stay unanswered
        (their caller is gone) until the server closes, and change nothing."""
        self._holds.pop(method, None)

    def rate_limit(self, method: str, retry_after: int = 1, times: int = 1) -> None:
        """The next `times` calls of `method` get 429 Too Many Requests."""
        self.inject(method, 429, f"Too Many Requests: retry after {retry_after}",
                    retry_after=retry_after, times=times)

    async def revoke(self) -> None:
        """The token stops working (as after /revoke in BotFather): every call gets 401."""
        self.token = "revoked"
        await self._notify()

    def listen(self, chat_id: int) -> asyncio.Queue[Call]:
        """A queue receiving every successful call aimed at `chat_id` (for the benchmark)."""
        queue: asyncio.Queue[Call] = asyncio.Queue()
        self._listeners[chat_id].append(queue)
        return queue

    def calls_of(self, method: str, chat_id: int | None = None) -> list[Call]:
        """Successful calls of `method` (to `chat_id`, if given)."""
        return [c for c in self.calls if c.method == method and c.ok
                and (chat_id is None or c.params.get("chat_id") == chat_id)]

    def errors_of(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method and c.error is not None]

    async def wait_for(
            self, predicate: Callable[[], Any],
            timeout: float = 30.0,  # noqa: ASYNC109 - a bounded wait is the point
            what: str = "condition") -> Any:
        """Wait until `predicate()` is truthy (re-checked after every call); return it. The
        bound is generous (a loaded machine is slow) and only reached when something broke."""
        async def check() -> Any:
            async with self._changed:
                result = predicate()
                while not result:
                    await self._changed.wait()
                    result = predicate()
                return result
        try:
            return await asyncio.wait_for(check(), timeout)
        except TimeoutError:
            recent = [f"{c.method} {c.error or ''}" for c in self.calls[-12:]]
            raise AssertionError(f"timed out after {timeout}s waiting for {what}; "
                                 f"last calls: {recent}") from None

    # --- update builders ------------------------------------------------------------------

    @staticmethod
    def user(user_id: int, first_name: str, last_name: str | None = None, *,
             language_code: str | None = "en") -> dict[str, Any]:
        """A Telegram User object for a human."""
        user: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": first_name}
        if last_name:
            user["last_name"] = last_name
        if language_code:
            user["language_code"] = language_code
        return user

    def private_chat(self, user: dict[str, Any]) -> dict[str, Any]:
        chat = {"id": user["id"], "type": "private", "first_name": user["first_name"]}
        self.chats[chat["id"]] = chat
        return chat

    def group_chat(self, chat_id: int, title: str = "Study group",
                   kind: str = "supergroup") -> dict[str, Any]:
        chat = {"id": chat_id, "type": kind, "title": title}
        self.chats[chat_id] = chat
        return chat

    def upgrade(self, group: dict[str, Any], new_id: int, user: dict[str, Any]
                ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The group becomes a supergroup with id `new_id` (its members and title go along;
        every call to the old id now fails as Telegram's do, with `migrate_to_chat_id`). The
        two service messages Telegram sends: `migrate_to_chat_id` in the old chat and
        `migrate_from_chat_id` in the new one (for the test to deliver, or not)."""
        old_id = int(group["id"])
        new = self.group_chat(new_id, group.get("title", ""), kind="supergroup")
        self.upgraded[old_id] = new_id
        for (chat, member), status in list(self.members.items()):
            if chat == old_id:
                self.members[(new_id, member)] = status
        said = []
        for chat, field, value in ((group, "migrate_to_chat_id", new_id),
                                   (new, "migrate_from_chat_id", old_id)):
            said.append({"message": {"message_id": self._next_message_id(chat["id"]),
                                     "date": int(time.time()), "chat": chat, "from": user,
                                     field: value}})
        return said[0], said[1]

    def message(self, user: dict[str, Any], text: str,
                chat: dict[str, Any] | None = None) -> dict[str, Any]:
        """An Update carrying a text message the user sent (commands get their entity)."""
        chat = chat or self.private_chat(user)
        self.chats.setdefault(chat["id"], chat)
        msg: dict[str, Any] = {"message_id": self._next_message_id(chat["id"]),
                               "date": int(time.time()), "chat": chat, "from": user,
                               "text": text}
        if chat["id"] < 0:  # whoever writes in a group is in it
            self.members.setdefault((chat["id"], user["id"]), "member")
        if text.startswith("/"):
            msg["entities"] = [{"type": "bot_command", "offset": 0,
                                "length": len(text.split()[0])}]
        self.messages[(chat["id"], msg["message_id"])] = msg
        return {"message": msg}

    def document(self, user: dict[str, Any], file_name: str, data: bytes,
                 chat: dict[str, Any] | None = None, caption: str | None = None
                 ) -> dict[str, Any]:
        """An Update carrying a file the user sent (getFile and the download serve it),
        with the caption typed under it, if any."""
        update = self.message(user, "", chat)
        msg = update["message"]
        del msg["text"]
        if caption is not None:
            msg["caption"] = caption
        file_id = f"doc{len(self.files) + 1}"
        self.files[file_id] = data
        msg["document"] = {"file_id": file_id, "file_unique_id": f"u{file_id}",
                           "file_name": file_name, "file_size": len(data)}
        return update

    def media(self, user: dict[str, Any], kind: str,
              chat: dict[str, Any] | None = None) -> dict[str, Any]:
        """An Update carrying a message that is not text: one of MEDIA's kinds."""
        update = self.message(user, "", chat)
        del update["message"]["text"]
        update["message"].update(MEDIA[kind])
        return update

    def callback(self, user: dict[str, Any], message: dict[str, Any],
                 data: str) -> dict[str, Any]:
        """An Update for a tap on an inline button of `message` (as it stands now)."""
        current = self.messages.get((message["chat"]["id"], message["message_id"]), message)
        query_id = str(7 * 10**15 + next(self._callback_ids))  # unique, Telegram-like
        return {"callback_query": {"id": query_id, "from": user, "message": current,
                                   "chat_instance": f"ci{message['chat']['id']}",
                                   "data": data}}

    def bot_status(self, chat: dict[str, Any], by: dict[str, Any], old: str, new: str,
                   **rights: bool) -> dict[str, Any]:
        """An Update saying the bot's own membership of `chat` changed from `old` to `new`
        (a ChatMember status: "member", "administrator", "restricted", "left", "kicked"),
        changed by `by`; `rights` override a restricted or administrator member's fields
        (e.g. can_send_messages=False: muted)."""
        def member(status: str) -> dict[str, Any]:
            fields: dict[str, Any] = {"user": self.bot, "status": status}
            if status == "restricted":
                fields.update(dict.fromkeys(RESTRICTED_RIGHTS, True), is_member=True,
                              until_date=0)
            elif status == "administrator":
                fields.update(dict.fromkeys(ADMIN_RIGHTS, True), can_be_edited=False,
                              is_anonymous=False)
            elif status == "kicked":
                fields["until_date"] = 0
            return fields | (rights if status == new else {})
        self.chats.setdefault(chat["id"], chat)
        return {"my_chat_member": {"chat": chat, "from": by, "date": int(time.time()),
                                   "old_chat_member": member(old),
                                   "new_chat_member": member(new)}}

    async def push_update(self, update: dict[str, Any]) -> int:
        """Queue an update for getUpdates; returns its update_id."""
        update = {"update_id": next(self._update_ids), **update}
        if "callback_query" in update:
            self.callback_update[update["callback_query"]["id"]] = update["update_id"]
        self._updates.append(update)
        await self._notify()
        return int(update["update_id"])

    # --- the server -----------------------------------------------------------------------

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        method = request.match_info["method"]
        params = await read_params(request)
        call = Call(method, params, self.clock())
        self.calls.append(call)
        await self._notify()  # waiters may watch for a call starting (a long poll)
        try:
            if request.match_info["token"] != self.token:
                raise ApiError(401, "Unauthorized")
            if (gate := self._holds.get(method)) is not None:
                call.error = "held"  # never answered: dropped when the server closes
                await gate.wait()
                raise asyncio.CancelledError  # as a client that went away (logged at debug)
            if (injected := self._injected.get(method)) and injected:
                fault = injected.popleft()
                if fault.drop:
                    assert request.transport is not None
                    request.transport.close()
                    raise ApiError(599, "connection dropped")
                raise ApiError(fault.status, fault.description, fault.parameters)
            self._flood_check(call)
            handler = getattr(self, f"_api_{method}", None)
            if handler is None:
                raise ApiError(404, "Not Found")
            result = call.result = await handler(params)
            if self._stalls.get(method):
                self._stalls[method] -= 1
                gate = asyncio.Event()  # set only when the server closes
                self._gates.append(gate)
                await self._notify()
                await gate.wait()
                raise asyncio.CancelledError  # the caller went away long ago
        except ApiError as exc:
            call.error = exc.description
            await self._notify()
            body: dict[str, Any] = {"ok": False, "error_code": exc.code,
                                    "description": exc.description}
            if exc.parameters:
                body["parameters"] = exc.parameters
            return web.json_response(body, status=exc.code)
        chat_id = params.get("chat_id")
        for queue in self._listeners.get(chat_id, ()) if isinstance(chat_id, int) else ():
            queue.put_nowait(call)
        await self._notify()
        return web.json_response({"ok": True, "result": result})

    async def _download(self, request: web.Request) -> web.StreamResponse:
        """A file's bytes, as Telegram's file server hands them out after getFile."""
        data = self.files.get(request.match_info["file_id"])
        if request.match_info["token"] != self.token or data is None:
            return web.Response(status=404)
        return web.Response(body=data)

    def _flood_check(self, call: Call) -> None:
        """Telegram's ~20 posts a minute into one group: beyond it, 429 with retry_after."""
        chat_id = call.params.get("chat_id")
        if call.method not in GROUP_POSTS or not isinstance(chat_id, int) or chat_id >= 0:
            return
        recent = [t for t in self.group_posts[chat_id] if t > call.time - 60]
        self.group_posts[chat_id] = recent
        if len(recent) >= self.group_limit:
            wait = max(1, int(recent[0] + 60 - call.time + 0.999))
            self.flooded.append(call)
            raise ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
        recent.append(call.time)

    def posts_per_minute(self, chat_id: int) -> int:
        """The most successful posts into `chat_id` within any 60 s of the call log."""
        times = sorted(c.time for c in self.calls if c.method in GROUP_POSTS and c.ok
                       and c.params.get("chat_id") == chat_id)
        best, start = 0, 0
        for end, t in enumerate(times):
            while times[start] <= t - 60:
                start += 1
            best = max(best, end - start + 1)
        return best

    def _next_message_id(self, chat_id: int) -> int:
        return next(self._message_ids.setdefault(chat_id, itertools.count(1)))

    def _chat(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id = params.get("chat_id")
        if chat_id in self.blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        if chat_id in self.upgraded:
            raise ApiError(400, "Bad Request: group chat was upgraded to a supergroup chat",
                           {"migrate_to_chat_id": self.upgraded[chat_id]})
        if chat_id not in self.chats:
            raise ApiError(400, "Bad Request: chat not found")
        return self.chats[chat_id]

    @staticmethod
    def _text(params: dict[str, Any]) -> str:
        source = str(params.get("text", ""))
        text = parse_html(source) if params.get("parse_mode") == "HTML" else source
        if not text.strip():
            raise ApiError(400, "Bad Request: message text is empty")
        if len(text.encode("utf-16-le")) // 2 > 4096:
            raise ApiError(400, "Bad Request: message is too long")
        return text

    @staticmethod
    def _markup(params: dict[str, Any]) -> dict[str, Any] | None:
        markup = params.get("reply_markup")
        if markup is None:
            return None
        for row in markup.get("inline_keyboard", []):
            for button in row:
                if len(button.get("callback_data", "").encode()) > 64:
                    raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
        return markup if markup.get("inline_keyboard") else None

    def _stored(self, params: dict[str, Any]) -> tuple[tuple[int, int], dict[str, Any]]:
        self._chat(params)
        key = (params.get("chat_id"), params.get("message_id"))
        msg = self.messages.get(key)  # type: ignore[arg-type]
        if msg is None or msg["from"]["id"] != self.bot["id"]:
            raise ApiError(400, "Bad Request: message to edit not found")
        return key, msg  # type: ignore[return-value]

    async def _api_getMe(self, params: dict[str, Any]) -> dict[str, Any]:
        return self.bot

    async def _api_getUpdates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        if self.webhook_url:
            raise ApiError(409, "Conflict: can't use getUpdates method while webhook is "
                                "active; use deleteWebhook to delete the webhook first")
        offset = int(params.get("offset") or 0)
        while self._updates and self._updates[0]["update_id"] < offset:
            self._updates.popleft()  # confirmed by the client
        self._allow(params)
        timeout = min(float(params.get("timeout") or 0), MAX_POLL)
        self._polls += 1
        poll = self._polls  # a newer getUpdates ends this one, as on Telegram
        await self._notify()
        if not self._updates and timeout > 0 and not self._closing:
            async with self._changed:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait_for(
                        lambda: bool(self._updates) or self._closing or self._polls != poll
                        or self.token == "revoked"), timeout)
        if self.token == "revoked":
            raise ApiError(401, "Unauthorized")
        if self._polls != poll:
            raise ApiError(409, "Conflict: terminated by other getUpdates request; make sure "
                                "that only one bot instance is running")
        self._updates = deque(u for u in self._updates if self.wanted(u))
        batch = list(itertools.islice(self._updates, int(params.get("limit") or 100)))
        now = time.perf_counter()
        for update in batch:
            self.handed_out.setdefault(update["update_id"], now)
        return batch

    async def _api_sendMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        chat = self._chat(params)
        text, markup = self._text(params), self._markup(params)
        msg: dict[str, Any] = {"message_id": self._next_message_id(chat["id"]),
                               "from": self.bot, "chat": chat, "date": int(time.time()),
                               "text": text}
        if commands := bot_commands(text):  # as Telegram marks them (tappable)
            msg["entities"] = commands
        if markup:
            msg["reply_markup"] = markup
        self.messages[(chat["id"], msg["message_id"])] = msg
        self.html[(chat["id"], msg["message_id"])] = str(params["text"])
        return msg

    async def _api_sendPhoto(self, params: dict[str, Any]) -> dict[str, Any]:
        """A photo (uploaded as a multipart file, which `read_params` leaves out)."""
        chat = self._chat(params)
        msg: dict[str, Any] = {"message_id": self._next_message_id(chat["id"]),
                               "from": self.bot, "chat": chat, "date": int(time.time()),
                               "photo": [{"file_id": "p1", "file_unique_id": "p1",
                                          "width": 720, "height": 420}]}
        if "caption" in params:  # parsed like a message's text; Telegram allows 1024
            source = str(params["caption"])
            caption = parse_html(source) if params.get("parse_mode") == "HTML" else source
            if len(caption.encode("utf-16-le")) // 2 > 1024:
                raise ApiError(400, "Bad Request: message caption is too long")
            msg["caption"] = caption
            if commands := bot_commands(caption):
                msg["caption_entities"] = commands
        if markup := self._markup(params):
            msg["reply_markup"] = markup
        self.messages[(chat["id"], msg["message_id"])] = msg
        return msg

    async def _api_editMessageText(self, params: dict[str, Any]) -> dict[str, Any]:
        key, msg = self._stored(params)
        text, markup = self._text(params), self._markup(params)
        if params["text"] == self.html.get(key) and markup == msg.get("reply_markup"):
            raise ApiError(400, "Bad Request: message is not modified: specified new message "
                                "content and reply markup are exactly the same as a current "
                                "content and reply markup of the message")
        msg = {**msg, "text": text, "edit_date": int(time.time())}
        msg.pop("entities", None)
        if commands := bot_commands(text):
            msg["entities"] = commands
        msg.pop("reply_markup", None)  # an edit without reply_markup removes the keyboard
        if markup:
            msg["reply_markup"] = markup
        self.messages[key], self.html[key] = msg, str(params["text"])
        return msg

    async def _api_editMessageReplyMarkup(self, params: dict[str, Any]) -> dict[str, Any]:
        key, msg = self._stored(params)
        markup = self._markup(params)
        if markup == msg.get("reply_markup"):
            raise ApiError(400, "Bad Request: message is not modified: specified new message "
                                "content and reply markup are exactly the same as a current "
                                "content and reply markup of the message")
        msg = {**msg, "edit_date": int(time.time())}
        msg.pop("reply_markup", None)
        if markup:
            msg["reply_markup"] = markup
        self.messages[key] = msg
        return msg

    async def _api_deleteMessage(self, params: dict[str, Any]) -> bool:
        self._chat(params)
        key = (params.get("chat_id"), params.get("message_id"))
        if self.messages.pop(key, None) is None:  # type: ignore[arg-type]
            raise ApiError(400, "Bad Request: message to delete not found")
        return True

    async def _api_answerCallbackQuery(self, params: dict[str, Any]) -> bool:
        query_id = str(params.get("callback_query_id"))
        if query_id not in self.callback_update or query_id in self.answered:
            raise ApiError(400, "Bad Request: query is too old and response timeout expired "
                                "or query ID is invalid")
        if len(str(params.get("text", ""))) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        self.answered[query_id] = time.perf_counter()
        return True

    async def _api_getFile(self, params: dict[str, Any]) -> dict[str, Any]:
        file_id = str(params.get("file_id"))
        if file_id not in self.files:
            raise ApiError(400, "Bad Request: invalid file_id")
        return {"file_id": file_id, "file_unique_id": f"u{file_id}",
                "file_size": len(self.files[file_id]), "file_path": f"documents/{file_id}"}

    async def _api_getChatMember(self, params: dict[str, Any]) -> dict[str, Any]:
        chat = self._chat(params)
        user_id = int(params["user_id"])
        status = self.members.get((chat["id"], user_id), "left")
        member: dict[str, Any] = {"status": status, "user": self.user(user_id, f"user{user_id}")}
        if status == "administrator":
            member.update(can_be_edited=False, is_anonymous=False, can_manage_chat=True,
                          can_delete_messages=True, can_manage_video_chats=False,
                          can_restrict_members=True, can_promote_members=False,
                          can_change_info=False, can_invite_users=True, can_post_stories=False,
                          can_edit_stories=False, can_delete_stories=False)
        elif status == "creator":
            member.update(is_anonymous=False)
        return member

    async def _api_getChat(self, params: dict[str, Any]) -> dict[str, Any]:
        return {**self._chat(params), "accent_color_id": 0, "max_reaction_count": 0,
                "accepted_gift_types": {"unlimited_gifts": False, "limited_gifts": False,
                                        "unique_gifts": False, "premium_subscription": False,
                                        "gifts_from_channels": False}}

    async def _api_sendChatAction(self, params: dict[str, Any]) -> bool:
        self._chat(params)
        return True

    async def _api_setMyCommands(self, params: dict[str, Any]) -> bool:
        commands = params.get("commands") or []
        for c in commands:
            if not 1 <= len(c["description"]) <= 256 or not c["command"].islower():
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
        self.commands[params.get("language_code")] = commands
        return True

    async def _api_setWebhook(self, params: dict[str, Any]) -> bool:
        self.webhook_url = str(params.get("url", ""))
        self.webhook_secret = params.get("secret_token")
        self._allow(params)
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    def _allow(self, params: dict[str, Any]) -> None:
        if "allowed_updates" in params:
            self.allowed_updates = list(params["allowed_updates"])

    def wanted(self, update: dict[str, Any]) -> bool:
        """Would Telegram send this update to the bot, given the kinds it asked for? (By
        default every kind but `chat_member` and the reactions.)"""
        kind = next(k for k in update if k != "update_id")
        if not self.allowed_updates:
            return kind not in NOT_BY_DEFAULT
        return kind in self.allowed_updates

    async def _api_deleteWebhook(self, params: dict[str, Any]) -> bool:
        self.webhook_url = ""
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _api_getWebhookInfo(self, params: dict[str, Any]) -> dict[str, Any]:
        info = {"url": self.webhook_url, "has_custom_certificate": False,
                "pending_update_count": len(self._updates)}
        if self.allowed_updates:  # Telegram leaves the field out when none were asked for
            info["allowed_updates"] = list(self.allowed_updates)
        return info


