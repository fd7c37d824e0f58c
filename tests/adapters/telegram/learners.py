"""Simulated Telegram users driving the fake Bot API: they type, tap and wait for the bot."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from tests.adapters.telegram.fake_bot_api import Call, FakeBotAPI


def buttons(message: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The inline keyboard rows of a message, [] when it has none."""
    return list((message.get("reply_markup") or {}).get("inline_keyboard", []))


def button_data(message: dict[str, Any]) -> list[str]:
    """Every callback_data on the message, row by row."""
    return [b["callback_data"] for row in buttons(message) for b in row if "callback_data" in b]


def is_question(message: dict[str, Any]) -> bool:
    """True for a message carrying answer buttons."""
    return any(d.startswith("a1:") for d in button_data(message))


class Learner:
    """A simulated Telegram user: sends commands, taps buttons, waits for the bot."""

    def __init__(self, api: FakeBotAPI, user: dict[str, Any],
                 chat: dict[str, Any] | None = None) -> None:
        self.api, self.user = api, user
        self.chat = chat or api.private_chat(user)

    @property
    def chat_id(self) -> int:
        return int(self.chat["id"])

    def mark(self) -> int:
        """A point in the call log; wait for things sent after it."""
        return len(self.api.calls)

    async def send(self, text: str) -> int:
        """Type a message (e.g. a command) in the chat; returns the update_id."""
        return await self.api.push_update(self.api.message(self.user, text, self.chat))

    async def tap(self, message: dict[str, Any], data: str) -> str:
        """Tap a button with this callback_data on `message`; returns the callback query id."""
        update = self.api.callback(self.user, message, data)
        await self.api.push_update(update)
        return str(update["callback_query"]["id"])

    async def press(self, message: dict[str, Any], label: str) -> str:
        """Tap the button whose text is `label`."""
        current = self.api.messages[(self.chat_id, message["message_id"])]
        for row in buttons(current):
            for button in row:
                if button["text"] == label:
                    return await self.tap(current, button["callback_data"])
        raise AssertionError(f"no button {label!r} on message {message['message_id']}")

    def sent(self, since: int, until: int | None = None,
             methods: Iterable[str] = ("sendMessage", "editMessageText",
                                       "editMessageReplyMarkup")) -> list[Call]:
        """Successful calls to this chat of the given methods in the log slice."""
        wanted = set(methods)
        return [c for c in self.api.calls[since:until] if c.method in wanted
                and c.ok and c.params.get("chat_id") == self.chat_id]

    async def reply(self, since: int, predicate: Callable[[dict[str, Any]], bool] | None = None,
                    timeout: float = 30.0) -> dict[str, Any]:  # noqa: ASYNC109
        """The first message the bot sent to this chat after `since` that fits `predicate`,
        as it stands now (later edits included)."""
        def found() -> dict[str, Any] | None:
            for call in self.sent(since, methods=("sendMessage", "sendPhoto")):
                if predicate is None or predicate(call.result):
                    return self.api.messages[(self.chat_id, call.result["message_id"])]
            return None
        return await self.api.wait_for(found, timeout, f"a reply in chat {self.chat_id}")

    async def edited(self, since: int,
                     predicate: Callable[[dict[str, Any]], bool] | None = None,
                     timeout: float = 30.0) -> dict[str, Any]:  # noqa: ASYNC109
        """The first message the bot edited in this chat after `since` that fits
        `predicate` (an answered question turns into its result and explanation)."""
        def found() -> dict[str, Any] | None:
            for call in self.sent(since, methods=("editMessageText",)):
                if predicate is None or predicate(call.result):
                    return self.api.messages[(self.chat_id, call.result["message_id"])]
            return None
        return await self.api.wait_for(found, timeout, f"an edit in chat {self.chat_id}")

    async def toast(self, query_id: str, timeout: float = 30.0) -> Call:  # noqa: ASYNC109
        """The answerCallbackQuery for this tap."""
        def found() -> Call | None:
            return next((c for c in self.api.calls if c.method == "answerCallbackQuery"
                         and (c.ok or c.error is not None)
                         and c.params.get("callback_query_id") == query_id), None)
        return await self.api.wait_for(found, timeout, f"the answer to query {query_id}")

    async def barrier(self) -> int:
        """Send /help and wait for its reply. The bot handles one user's updates in order, so
        whatever this learner sent before is finished by then. Returns the index of that
        reply in the call log: `api.calls[since:barrier]` holds everything before it."""
        since = self.mark()
        await self.send("/help")

        def help_reply() -> int | None:
            for i in range(since, len(self.api.calls)):
                call = self.api.calls[i]
                if (call.method == "sendMessage" and call.ok
                        and call.params.get("chat_id") == self.chat_id
                        and "/quiz" in call.result["text"] and "/reset" in call.result["text"]):
                    return i
            return None
        return int(await self.api.wait_for(help_reply, what="the /help reply"))
