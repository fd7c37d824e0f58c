"""A group's results as the `quizbot export --chat` file, for the dashboard's download: the
same read command (`report_sql.export_rows`) and the same formatting
(`bot.present.reporting`), run on the bot's store."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from bot.domain.quiz import Quiz
from bot.present.reporting import export_csv, export_json
from bot.store.commands.report_sql import Scope, export_rows
from bot.store.protocol import Store

Exporter = Callable[[str, str, str], Awaitable[str]]  # (platform, chat id, "csv" | "json")


def exporter_for(store: Store, quizzes: Callable[[], Mapping[str, Quiz]]) -> Exporter:
    """The export of one group, as `quizbot export --chat <platform>:<id> --format ...`."""
    async def export(platform: str, chat_id: str, fmt: str) -> str:
        rows = await store.read(export_rows, Scope(chat_id, platform))
        return (export_csv if fmt == "csv" else export_json)(rows, quizzes())

    return export


__all__ = ["Exporter", "exporter_for"]
