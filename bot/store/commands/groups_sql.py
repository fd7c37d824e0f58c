"""A group's own choice of quiz and language (`group_settings`, migration 0014)."""

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
