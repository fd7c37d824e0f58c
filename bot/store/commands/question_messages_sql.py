"""The question message open in a learner's private chat (`question_messages`, 0020)."""

from __future__ import annotations

from typing import NamedTuple

from bot.store.command import Command, q

_SAME = ("question_messages.session_id = excluded.session_id AND "
         "question_messages.position = excluded.position")


class ShownQuestion(NamedTuple):
    session_id: int
    position: int
    message_id: str | None
    refusals: int


def shown_question(platform: str, user_id: str) -> Command[ShownQuestion | None]:
    """The question last posted in the learner's private chat, if one was noted."""
    rows = yield q("SELECT session_id, position, message_id, refusals FROM question_messages "
                   "WHERE platform = ? AND user_id = ?", platform, user_id)
    return ShownQuestion(*rows[0]) if rows else None


def note_question(platform: str, user_id: str, session_id: int, position: int,
                  message_id: str) -> Command[None]:
    """The message showing question `position` of the session (no texts refused yet)."""
    yield q("INSERT INTO question_messages (platform, user_id, session_id, position, "
            "message_id, refusals) VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT (platform, user_id) "
            "DO UPDATE SET session_id = excluded.session_id, position = excluded.position, "
            "message_id = excluded.message_id, refusals = 0",
            platform, user_id, session_id, position, message_id)


def count_refusal(platform: str, user_id: str, session_id: int, position: int
                  ) -> Command[int]:
    """One more text that was no number for this question; how many in a row now."""
    rows = yield q("INSERT INTO question_messages (platform, user_id, session_id, position, "
                   "message_id, refusals) VALUES (?, ?, ?, ?, NULL, 1) "
                   "ON CONFLICT (platform, user_id) DO UPDATE SET "
                   f"refusals = CASE WHEN {_SAME} THEN question_messages.refusals + 1 ELSE 1 END, "
                   f"message_id = CASE WHEN {_SAME} THEN question_messages.message_id END, "
                   "session_id = excluded.session_id, position = excluded.position "
                   "RETURNING refusals", platform, user_id, session_id, position)
    return int(rows[0]["refusals"])
