"""A group's results as the `quizbot export --chat` file, for the dashboard's download.

The export itself is `bot.store.report` (the same rows and columns a maintainer gets from
the CLI); here it reads through the running store (`Store.read`) instead of a connection
of its own, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from bot.domain.quiz import Quiz
from bot.store import report
from bot.store.protocol import Store

Exporter = Callable[[str, str, str], Awaitable[str]]  # (platform, chat id, "csv" | "json")


class StoreReader:
    """`bot.store.reader.Reader` over an open store: rows as tuples."""

    def __init__(self, store: Store, dialect: str) -> None:
        self._store, self.dialect = store, dialect

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        """Every row of `sql`."""
        from bot.store.commands.dashboard import table

        return list(await self._store.read(table, sql, tuple(params)))


def exporter_for(store: Store, dialect: str,
                 quizzes: Callable[[], Mapping[str, Quiz]]) -> Exporter:
    """The export of one group, as `quizbot export --chat <platform>:<id> --format ...`."""
    reader = StoreReader(store, dialect)

    async def export(platform: str, chat_id: str, fmt: str) -> str:
        scope = report.Scope(chat_id, platform)
        known = quizzes()
        rows = await report.learners(reader, scope, known)
        title = await report.chat_title(reader, scope)
        if fmt == "csv":
            return report.export_csv(rows, scope, title)
        return report.export_json(rows, await report.question_rows(reader, scope, known), scope,
                                  title)

    return export


__all__ = ["Exporter", "StoreReader", "exporter_for"]
