"""Recently used sessions, kept so that a tap on the current question needs no read.

Correct only while one engine is the database's only writer, which is how quizbot runs:
one process, every session change made through the engine, which keeps this cache in step.
"""

from __future__ import annotations

from collections import OrderedDict

from bot.store.sqlite import SessionRow


class SessionCache:
    """A bounded LRU of session rows by id: memory does not grow with the number of users."""

    def __init__(self, size: int = 4096) -> None:
        self._rows: OrderedDict[int, SessionRow] = OrderedDict()
        self._size = size

    def get(self, session_id: int) -> SessionRow | None:
        """The session as it stands after its last change, if still cached."""
        row = self._rows.get(session_id)
        if row is not None:
            self._rows.move_to_end(session_id)
        return row

    def put(self, row: SessionRow) -> None:
        """Remember the session's new state."""
        self._rows[row.id] = row
        self._rows.move_to_end(row.id)
        while len(self._rows) > self._size:
            self._rows.popitem(last=False)

    def forget_user(self, platform: str, user_id: str, quiz_id: str | None = None) -> None:
        """Drop a user's sessions (all, or one quiz's): they were abandoned, reset or their
        language changed."""
        stale = [sid for sid, row in self._rows.items()
                 if (row.platform, row.user_id) == (platform, user_id)
                 and quiz_id in (None, row.quiz_id)]
        for sid in stale:
            del self._rows[sid]

    def clear(self) -> None:
        self._rows.clear()

    def __len__(self) -> int:
        return len(self._rows)
