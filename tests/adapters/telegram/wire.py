"""The Bot API wire format as the fake needs it: parameters in, HTML parse mode, errors."""

from __future__ import annotations

import html
import json
import re
import unicodedata
from html.parser import HTMLParser
from typing import Any

from aiohttp import web

JSON_FIELDS = frozenset({
    "reply_markup", "commands", "scope", "entities", "link_preview_options",
    "reply_parameters", "allowed_updates",
})
INT_FIELDS = frozenset({"chat_id", "message_id", "offset", "limit", "timeout",
                        "max_connections", "message_thread_id"})
BOOL_FIELDS = frozenset({"show_alert", "drop_pending_updates", "disable_notification"})
HTML_TAGS = frozenset({"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a",
                       "code", "pre", "tg-spoiler", "span", "blockquote", "tg-emoji"})
class ApiError(Exception):
    """An error answer: HTTP status, Bot API description, optional parameters."""

    def __init__(self, code: int, description: str, parameters: dict[str, Any] | None = None):
        super().__init__(description)
        self.code, self.description, self.parameters = code, description, parameters


class _Html(HTMLParser):
    """Telegram's HTML parse mode: a small tag set, properly nested; plain text out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)  # raw data, so a bare "<" shows
        self.text: list[str] = []
        self.open: list[str] = []
        self.problem: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in HTML_TAGS:
            self.problem = self.problem or f'Unsupported start tag "{tag}"'
        elif tag == "blockquote" and any(name != "expandable" for name, _ in attrs):
            self.problem = self.problem or "Unsupported attribute of tag blockquote"
        elif tag == "a" and not dict(attrs).get("href"):
            self.problem = self.problem or "Can't find end tag corresponding to start tag a"
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.problem = self.problem or f'Unmatched end tag "{tag}"'
        else:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if "<" in data or ">" in data:
            self.problem = self.problem or "unescaped < or > in text"
        self.text.append(data)

    def handle_entityref(self, name: str) -> None:
        self.text.append(html.unescape(f"&{name};"))

    def handle_charref(self, name: str) -> None:
        self.text.append(html.unescape(f"&#{name};"))


def parse_html(source: str) -> str:
    """Plain text of a parse_mode=HTML message, or ApiError like Telegram's."""
    parser = _Html()
    parser.feed(source)
    parser.close()
    if parser.open and not parser.problem:
        parser.problem = f"Can't find end tag corresponding to start tag {parser.open[-1]}"
    if parser.problem:
        raise ApiError(400, f"Bad Request: can't parse entities: {parser.problem}")
    return "".join(parser.text)


_COMMAND = re.compile(r"/[A-Za-z0-9_]{1,64}")


def _word(ch: str) -> bool:
    """A letter, a digit or "_" (Telegram's word characters; a direction mark is none)."""
    return ch == "_" or unicodedata.category(ch)[0] in "LN"


def bot_commands(text: str) -> list[dict[str, Any]]:
    """The bot_command entities Telegram finds in a message's text: a "/" at a word start
    (not after a letter, digit, "_" or "/") and its name up to a character that is not one
    of [A-Za-z0-9_]; offsets and lengths in UTF-16 code units, as the Bot API gives them."""
    found = []
    for m in _COMMAND.finditer(text):
        start, end = m.span()
        if start > 0 and (_word(text[start - 1]) or text[start - 1] in "/<>"):
            continue
        if end < len(text) and (_word(text[end]) or text[end] == "/"):
            continue
        found.append({"type": "bot_command",
                      "offset": len(text[:start].encode("utf-16-le")) // 2,
                      "length": len(m.group(0).encode("utf-16-le")) // 2})
    return found


def command_names(message: dict[str, Any]) -> list[str]:
    """The commands a message's bot_command entities name (what the app makes tappable)."""
    units = str(message.get("text") or message.get("caption") or "").encode("utf-16-le")
    return [units[2 * e["offset"] + 2:2 * (e["offset"] + e["length"])].decode("utf-16-le")
            for e in message.get("entities") or message.get("caption_entities") or ()
            if e["type"] == "bot_command"]


async def read_params(request: web.Request) -> dict[str, Any]:
    """Parameters as JSON body, query string, or form (urlencoded or multipart) fields.

    python-telegram-bot 22 posts urlencoded forms whose object values are JSON strings.
    """
    if request.content_type == "application/json":
        body = await request.json() if request.can_read_body else {}
        return dict(body or {})
    raw: dict[str, Any] = dict(request.query)
    if request.can_read_body:
        form = await request.post()
        raw.update({k: v for k, v in form.items() if isinstance(v, str)})
        # an uploaded file (a photo) is noted by its name and content, e.g. "photo.filename"
        files = {k: v for k, v in form.items() if not isinstance(v, str)}
    else:
        files = {}
    params = {k: decode(k, v) for k, v in raw.items()}
    for k, v in files.items():
        params[f"{k}.filename"], params[f"{k}.content"] = v.filename, v.file.read()
    return params


def decode(key: str, value: str) -> Any:
    if key in JSON_FIELDS:
        return json.loads(value)
    if key in INT_FIELDS:
        try:
            return int(value)
        except ValueError:
            return value  # "@channelname"
    if key in BOOL_FIELDS:
        return value in ("true", "True", "1")
    return value
