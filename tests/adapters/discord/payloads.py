"""Discord's objects as the fake stores and sends them: users, messages, interactions,
guilds, in the shapes discord.py 2.7 parses."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

TOKEN = "fake.token.value"
APP_ID = 1_100_000_000_000_000_001
EPHEMERAL, LOADING = 1 << 6, 1 << 7
NOW = "2026-05-01T12:00:00.000000+00:00"
ALL_PERMISSIONS = str((1 << 50) - 1)


def user(user_id: int, name: str) -> dict[str, Any]:
    """A user object as Discord sends it."""
    return {"id": str(user_id), "username": name, "global_name": name.title(),
            "discriminator": "0", "avatar": None, "public_flags": 0}


@dataclass
class Message:
    """A message the bot created, as the fake stores it."""

    id: int
    channel_id: int
    guild_id: int | None
    author: dict[str, Any]
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    flags: int = 0
    interaction_metadata: dict[str, Any] | None = None
    edits: int = 0

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for row in self.components for c in row.get("components", [])
                if c.get("type") == 2]

    def button(self, label: str) -> dict[str, Any]:
        """The button with this label."""
        return next(b for b in self.buttons if b.get("label") == label)

    @property
    def text(self) -> str:
        """Content plus every embed's title, description and footer."""
        parts = [self.content]
        for e in self.embeds:
            parts += [e.get("title", ""), e.get("description", ""),
                      e.get("footer", {}).get("text", "")]
        return "\n".join(p for p in parts if p)

    def apply(self, data: dict[str, Any]) -> None:
        """An edit: the fields present replace the old ones."""
        if "content" in data:
            self.content = data["content"] or ""
        if "embeds" in data:
            self.embeds = data["embeds"] or []
        if "components" in data:
            self.components = data["components"] or []
        self.edits += 1

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id), "channel_id": str(self.channel_id), "type": 0,
            "author": self.author, "content": self.content, "embeds": self.embeds,
            "components": self.components, "flags": self.flags, "attachments": [],
            "mentions": [], "mention_roles": [], "mention_everyone": False, "pinned": False,
            "tts": False, "timestamp": NOW, "edited_timestamp": NOW if self.edits else None,
        }
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = self.interaction_metadata
            data["webhook_id"] = str(APP_ID)
            data["application_id"] = str(APP_ID)
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        return data


@dataclass
class Callback:
    type: int  # 4 message, 5 deferred message, 6 deferred update, 7 update, 8 autocomplete,
    # 9 a modal
    data: dict[str, Any]
    elapsed: float  # seconds from the INTERACTION_CREATE frame to this callback


@dataclass
class Interaction:
    """One injected interaction and everything the bot did with it."""

    id: int
    token: str
    type: int
    user: dict[str, Any]
    guild_id: int | None
    channel_id: int
    message: Message | None  # the message a pressed button is on
    expired: bool = False  # answer its callback with 404, code 10062 Unknown interaction
    expect_reply: bool = True  # False for a component the bot should ignore
    refused: int = 0  # callbacks answered with an error (expired, already acknowledged)
    sent_at: float = 0.0
    callback: Callback | None = None
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)
    # ("callback 7", "follow-up", "edit", ...) with seconds since the dispatch, in order
    events: list[tuple[str, float]] = field(default_factory=list)

    def record(self, what: str) -> None:
        self.events.append((what, asyncio.get_running_loop().time() - self.sent_at))


def interaction_payload(ix: Interaction, data: dict[str, Any]) -> dict[str, Any]:
    """INTERACTION_CREATE's data as Discord sends it, in a guild channel or a DM."""
    p: dict[str, Any] = {
        "id": str(ix.id), "application_id": str(APP_ID), "type": ix.type,
        "token": ix.token, "version": 1, "data": data, "locale": "en-US",
        "entitlements": [], "attachment_size_limit": 10 << 20,
        "app_permissions": ALL_PERMISSIONS, "channel_id": str(ix.channel_id),
    }
    if ix.guild_id is not None:
        p.update(guild_id=str(ix.guild_id), guild_locale="en-US", context=0,
                 guild={"id": str(ix.guild_id), "locale": "en-US", "features": []},
                 member=member(ix.user), channel=text_channel(ix.guild_id, ix.channel_id),
                 authorizing_integration_owners={"0": str(ix.guild_id)})
    else:
        p.update(user=ix.user, context=1, authorizing_integration_owners={"0": "0"},
                 channel={"id": str(ix.channel_id), "type": 1, "recipients": [ix.user],
                          "last_message_id": None, "flags": 0})
    if ix.message is not None:
        p["message"] = ix.message.to_json()
    return p


def member(who: dict[str, Any] | None) -> dict[str, Any]:
    """A guild member (with its user, except inside `resolved`)."""
    data: dict[str, Any] = {
        "roles": [], "joined_at": NOW, "deaf": False, "mute": False, "flags": 0,
        "pending": False, "nick": None, "avatar": None, "premium_since": None,
        "permissions": ALL_PERMISSIONS}
    if who is not None:
        data["user"] = who
    return data


def text_channel(guild: int, channel: int) -> dict[str, Any]:
    """A guild text channel."""
    return {"id": str(channel), "type": 0, "guild_id": str(guild), "name": "quiz",
            "position": 0, "permission_overwrites": [], "nsfw": False, "parent_id": None,
            "topic": None, "last_message_id": None, "rate_limit_per_user": 0, "flags": 0}


def guild_create(guild: int, channel: int,
                 roles: list[dict[str, Any]] | tuple[()] = ()) -> dict[str, Any]:
    """GUILD_CREATE's data: a guild with one text channel, the @everyone role and `roles`."""
    return {
        "id": str(guild), "name": f"guild {guild}", "icon": None, "owner_id": "1",
        "unavailable": False, "member_count": 3, "large": False, "features": [],
        "roles": [{"id": str(guild), "name": "@everyone", "permissions": ALL_PERMISSIONS,
                   "position": 0, "color": 0, "hoist": False, "managed": False,
                   "mentionable": False, "flags": 0}, *roles],
        "channels": [text_channel(guild, channel)], "threads": [], "members": [],
        "emojis": [], "stickers": [], "voice_states": [], "presences": [],
        "stage_instances": [], "guild_scheduled_events": [], "soundboard_sounds": [],
        "joined_at": NOW, "preferred_locale": "en-US", "premium_tier": 0,
        "verification_level": 0, "default_message_notifications": 0,
        "explicit_content_filter": 0, "mfa_level": 0, "nsfw_level": 0,
        "system_channel_flags": 0, "afk_timeout": 300,
    }
