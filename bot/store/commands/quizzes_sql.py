"""Installed quizzes (`installed_quizzes`, migration 0011): rows are only ever added, so
the newest id is a version any process can compare with a one-row read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.store.command import Command, one, q
from bot.store.rows import from_row


@dataclass(frozen=True, slots=True)
class InstalledRow:
    version: int
    quiz_id: str
    yaml: str
    images: str  # JSON {"img/x.png": "<base64>"}
    installed_by: str
    installed_at: float


def installed_version() -> Command[int]:
    """The newest version (0 when nothing was ever installed): the cheap idle check."""
    rows = yield q("SELECT MAX(id) AS version FROM installed_quizzes")
    return int(rows[0]["version"] or 0) if rows else 0


def installed_quizzes() -> Command[list[InstalledRow]]:
    """Every installed quiz as its newest row says (removed ones left out), by id."""
    rows = yield q(
        "SELECT i.id AS version, i.quiz_id, i.yaml, i.images, i.installed_by, i.installed_at "
        "FROM installed_quizzes i JOIN (SELECT quiz_id, MAX(id) AS newest "
        "FROM installed_quizzes GROUP BY quiz_id) n ON i.id = n.newest "
        "WHERE i.removed_at IS NULL ORDER BY i.quiz_id")
    return [from_row(InstalledRow, r) for r in rows]


def stored_files(quiz_ids: Sequence[str]) -> Command[dict[str, str]]:
    """The newest stored file (YAML) of each of these installed quizzes, removed ones too
    (a removal keeps the rows before it): what still names a quiz no longer served."""
    if not quiz_ids:
        return {}
    rows = yield q("SELECT i.quiz_id, i.yaml FROM installed_quizzes i JOIN (SELECT quiz_id, "
                   "MAX(id) AS newest FROM installed_quizzes WHERE yaml <> '' AND quiz_id IN ("
                   + ", ".join("?" * len(quiz_ids)) + ") GROUP BY quiz_id) n "
                   "ON i.id = n.newest", *quiz_ids)
    return {str(r["quiz_id"]): str(r["yaml"]) for r in rows}


def install_quiz(quiz_id: str, yaml: str, images: str, by: str, now: float
                 ) -> Command[tuple[int, bool]]:
    """Store a new version of the quiz, unless the one served is this very content (the
    same file added again): (its version, whether it is new)."""
    newest = one((yield q("SELECT id, yaml, images, removed_at FROM installed_quizzes "
                          "WHERE quiz_id = ? ORDER BY id DESC LIMIT 1", quiz_id)))
    if newest is not None and newest["removed_at"] is None and (
            newest["yaml"], newest["images"]) == (yaml, images):
        return int(newest["id"]), False
    rows = yield q("INSERT INTO installed_quizzes (quiz_id, yaml, images, installed_by, "
                   "installed_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
                   quiz_id, yaml, images, by, now)
    return int(rows[0]["id"]), True


def remove_quiz(quiz_id: str, by: str, now: float) -> Command[bool]:
    """Mark the installed quiz removed (its rows and learners' history stay); False when it
    is not installed."""
    rows = yield q(
        "INSERT INTO installed_quizzes (quiz_id, yaml, images, installed_by, installed_at, "
        "removed_at) SELECT CAST(?1 AS text), '', '{}', CAST(?2 AS text), "
        "CAST(?3 AS double precision), CAST(?3 AS double precision) WHERE EXISTS (SELECT 1 FROM "
        "installed_quizzes i WHERE i.quiz_id = ?1 AND i.removed_at IS NULL AND i.id = "
        "(SELECT MAX(id) FROM installed_quizzes WHERE quiz_id = ?1)) RETURNING id",
        quiz_id, by, now)
    return bool(rows)
