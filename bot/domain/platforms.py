"""Every platform quizbot talks on, described once: what the rest of `bot/` needs to know.

The config's sections and tokens, the logs' platform field, reminder rates, report scopes,
message limits and button payload limits all read this table; the adapter side
(`adapters/base/registry.py`) adds how to start each one. A new platform is one entry
here, one in that registry, and its own adapter package.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Platform:
    """One platform's name and limits."""

    name: str  # what sessions, users and logs call it: "telegram"
    ids: Literal["numeric", "string"]  # its user ids (opaque strings to the engine either way)
    card_limit: int  # characters in one card's body (a message; a Discord embed description)
    payload_limit: int  # bytes of a button's data (Telegram callback_data, Discord custom_id)
    reminder_rate: float = 10.0  # reminders a second, under the platform's global limit
    token_env: str = ""  # the environment variable of its bot token; "": it needs none
    config_section: str | None = None  # its YAML section (`enabled` and its own keys)
    loggers: tuple[str, ...] = ()  # logger name prefixes whose records are this platform's
    # the platform library's loggers that may log a token (their records get redacted)
    guarded_loggers: tuple[str, ...] = ()
    # characters of plain message content (Discord 2,000), a photo caption (Telegram 1,024),
    # everything one message carries (Discord 6,000: embeds' texts added up), fields per embed
    content_limit: int = 1_000_000
    caption_limit: int = 1_000_000
    message_limit: int = 1_000_000
    field_limit: int = 1_000
    buttons: int = 100  # buttons one message carries (Telegram's inline keyboard: 100)
    # True where a learner's solo quiz in a server is seen by them alone (Discord's
    # ephemeral messages): a question there takes a typed number as in a private chat
    private_in_servers: bool = False

    @property
    def chat_app(self) -> bool:
        """True for a platform `quizbot run` serves with a bot token."""
        return bool(self.token_env)


TELEGRAM = Platform(
    "telegram", "numeric", card_limit=4096, payload_limit=64, content_limit=4096,
    caption_limit=1024, message_limit=4096,
    # Telegram allows about 30 messages a second to different chats in all. Reminders take
    # 28 of them: pacing exactly at the limit draws 429s (bench/reminders_bench.py: 5 in
    # 300), each of which stalls every reminder for the second it names.
    reminder_rate=28.0, token_env="TELEGRAM_BOT_TOKEN", config_section="telegram",
    loggers=("telegram", "adapters.telegram"), guarded_loggers=("telegram", "telegram.ext"))
DISCORD = Platform(
    "discord", "numeric", card_limit=4096, payload_limit=100, content_limit=2000,
    message_limit=6000, field_limit=25, buttons=25, private_in_servers=True,  # 5 rows of 5
    # Discord's global limit is 50 requests a second; a DM costs two (open, send).
    reminder_rate=20.0, token_env="DISCORD_BOT_TOKEN", config_section="discord",
    loggers=("discord", "adapters.discord"), guarded_loggers=("discord", "discord.http"))
TERMINAL = Platform("terminal", "string", card_limit=1_000_000, payload_limit=1_000_000,
                    loggers=("adapters.terminal",))

PLATFORMS: dict[str, Platform] = {p.name: p for p in (TELEGRAM, DISCORD, TERMINAL)}


def platform(name: str) -> Platform:
    """The platform called `name` (the terminal's limits for an unknown one: no limit)."""
    return PLATFORMS.get(name, TERMINAL)


def units(text: str) -> int:
    """A text's length as Telegram and Discord count it: UTF-16 code units (an emoji
    outside the BMP counts twice), an upper bound of what either platform measures."""
    return len(text.encode("utf-16-le")) // 2


def chat_apps() -> tuple[Platform, ...]:
    """The platforms served with a bot token, in the order `quizbot run` starts them."""
    return tuple(p for p in PLATFORMS.values() if p.chat_app)


def token_envs() -> str:
    """The token variables, for a message: "TELEGRAM_BOT_TOKEN and/or DISCORD_BOT_TOKEN"."""
    return " and/or ".join(p.token_env for p in chat_apps())


def card_limit() -> int:
    """The most characters one card may hold on every chat app."""
    return min(p.card_limit for p in chat_apps())


def payload_limit() -> int:
    """The most bytes a button's data may hold on every chat app."""
    return min(p.payload_limit for p in chat_apps())
