"""Each chat's name as people read it: a Telegram group's title, a Discord server's name.

Adapters call `note` with what an update or interaction says about its chat; the title is
written when it is new or changed (Telegram renames arrive as `new_chat_title`, and every
later update carries the new title too). The last title written per chat is remembered here
so an ordinary update costs no database round trip; forgetting it (a restart) costs one
conditional write that changes nothing. A chat seen without a title (and none stored) is
asked for it once per process (`fetch`: Telegram's getChat), never once per update. A
failure to store or fetch a title is logged, never raised: a name must not cost anyone their
tap.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence

from bot.store.commands.dashboard_sql import chat_titles, save_chat_title
from bot.store.protocol import Store

log = logging.getLogger(__name__)

MAX_TITLE = 128  # characters kept (Telegram allows 128, Discord 100)
MAX_REMEMBERED = 10_000


def channel_title(server: str, channel: str) -> str:
    """A Discord channel as pages, exports and `quizbot stats` name it: "Server · #channel"
    (rounds and the daily question run in channels; the server is the group)."""
    return f"{server} · #{channel}"


class ChatTitles:
    """Notes chat titles from the platforms and reads them back for pages and reports."""

    def __init__(self, store: Store, clock: Callable[[], float]) -> None:
        self._store, self._clock = store, clock
        self._written: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._fetched: set[tuple[str, str]] = set()  # chats asked for their title

    async def note(self, platform: str, chat_id: str, title: str | None,
                   fetch: Callable[[], Awaitable[str | None]] | None = None) -> None:
        """Keep `title` for the chat when it is new or changed; with no title, ask `fetch`
        once when none is stored."""
        clean = " ".join((title or "").split())[:MAX_TITLE]
        key = (platform, chat_id)
        if not clean and fetch is not None and key not in self._fetched | self._written.keys():
            self._fetched.add(key)
            clean = await self._fetch(platform, chat_id, fetch)
        if not clean or self._written.get(key) == clean:
            return
        # Claimed before the write: the burst of presses that follows a restart (every
        # member of a round at once, none of them knowing the title is stored) writes it
        # once, not once per press.
        before = self._written.get(key)
        self._written[key] = clean
        self._written.move_to_end(key)
        try:
            await self._store.write(save_chat_title, platform, chat_id, clean, self._clock())
        except Exception as exc:
            log.warning("chats: could not store the title of %s chat %s: %s", platform,
                        chat_id, exc)
            if self._written.get(key) == clean:  # not written: the next note tries again
                if before is None:
                    del self._written[key]
                else:
                    self._written[key] = before
            return
        while len(self._written) > MAX_REMEMBERED:
            self._written.popitem(last=False)

    async def _fetch(self, platform: str, chat_id: str,
                     fetch: Callable[[], Awaitable[str | None]]) -> str:
        """The chat's title from the platform, when the store has none ('' if unknown)."""
        try:
            if (await self.titles(platform, [chat_id])).get(chat_id):
                return ""
            return " ".join((await fetch() or "").split())[:MAX_TITLE]
        except Exception as exc:  # a name must not cost anyone their tap
            log.warning("chats: could not ask %s for the title of chat %s: %s", platform,
                        chat_id, exc)
            return ""

    async def titles(self, platform: str, chat_ids: Sequence[str]) -> dict[str, str]:
        """The stored titles of these chats, by id (unknown chats are left out)."""
        return await self._store.read(chat_titles, platform, list(chat_ids))


__all__ = ["MAX_TITLE", "ChatTitles", "channel_title"]
