"""A group's own choice of quiz and language (`group_settings`, migration 0014), and the
members the platform said manage it (`group_managers`, migration 0026)."""

from __future__ import annotations

from bot.store.command import Command, q


def group_choice(platform: str, chat_id: str) -> Command[tuple[str | None, str | None]]:
    """(quiz id, language) the group's admins chose; (None, None) when nothing was."""
    rows = yield q("SELECT quiz_id, lang FROM group_settings WHERE platform = ? AND "
                   "chat_id = ?", platform, chat_id)
    return (rows[0]["quiz_id"], rows[0]["lang"]) if rows else (None, None)


def save_group_choice(platform: str, chat_id: str, quiz_id: str | None, lang: str | None,
                      by: str, now: float) -> Command[None]:
    """Set the group's quiz and language (None: the default)."""
    yield q("INSERT INTO group_settings (platform, chat_id, quiz_id, lang, set_by, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (platform, chat_id) DO UPDATE SET "
            "quiz_id = excluded.quiz_id, lang = excluded.lang, set_by = excluded.set_by, "
            "updated_at = excluded.updated_at", platform, chat_id, quiz_id, lang, by, now)


def note_manager(platform: str, chat_id: str, user_id: str, now: float) -> Command[None]:
    """The platform said this member manages the group (kept from the first time on)."""
    yield q("INSERT INTO group_managers (platform, chat_id, user_id, seen_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (platform, chat_id, user_id) DO NOTHING",
            platform, chat_id, user_id, now)


def is_manager(platform: str, chat_id: str, user_id: str) -> Command[bool]:
    """True when the member is noted as one of the group's managers."""
    rows = yield q("SELECT 1 FROM group_managers WHERE platform = ? AND chat_id = ? "
                   "AND user_id = ?", platform, chat_id, user_id)
    return bool(rows)


def drop_manager(platform: str, chat_id: str, user_id: str) -> Command[None]:
    """The platform said this member no longer manages the group (an admin demoted)."""
    yield q("DELETE FROM group_managers WHERE platform = ? AND chat_id = ? AND user_id = ?",
            platform, chat_id, user_id)


def managed_groups(platform: str, user_id: str) -> Command[list[tuple[str, str | None]]]:
    """The groups the member was seen managing, latest first: (chat id, its title if known)."""
    rows = yield q("SELECT m.chat_id, c.title FROM group_managers m LEFT JOIN chats c "
                   "ON c.platform = m.platform AND c.chat_id = m.chat_id "
                   "WHERE m.platform = ? AND m.user_id = ? ORDER BY m.seen_at DESC, m.chat_id",
                   platform, user_id)
    return [(str(r["chat_id"]), None if r["title"] is None else str(r["title"])) for r in rows]
