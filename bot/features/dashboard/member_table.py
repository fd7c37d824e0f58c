"""A group admin's member table: one page of it, found by name, in the order asked for.

The group's member rows (one per member and quiz, weakest first) are read at most once per
GROUP_SECONDS (`Dashboard.group_figures`); a search, an order and a page are worked out
here over them, so a 5,000-member group ships MEMBERS_PAGE rows at a time and a teacher
typing a name costs no database read. A name is searched as it is shown (`shown_name`:
👤 for one that shows nothing), case and width folded, in any script.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from bot.domain.errors import DIRECTION_CONTROLS
from bot.domain.numeric import grouped
from bot.domain.product_limits import FIND_CHARS, MEMBERS_LISTED, MEMBERS_PAGE
from bot.domain.quiz import Quiz
from bot.features.dashboard.view_parts import ago, time_text, title_of
from bot.present.i18n import shown_name
from bot.store.commands.dashboard_sql import MemberRow

# weakest: the lowest share right first (who may need help); idle: the longest since they
# last finished a quiz here first (who stopped); recent: the latest first (who is active).
ORDERS = ("weakest", "idle", "recent")


@dataclass(frozen=True, slots=True)
class TableAsk:
    """What the admin asked of the table: a name to find, an order, where the page starts."""

    find: str = ""
    order: str = "weakest"
    offset: int = 0

    @classmethod
    def parse(cls, query: Mapping[str, str]) -> TableAsk:
        """From a request's `?find=&order=&offset=`. A client may send anything: an unknown
        order is the default one, an offset that is no number (or out of range) 0, and a
        search at most FIND_CHARS characters, without direction controls."""
        find = DIRECTION_CONTROLS.sub("", query.get("find", ""))[:FIND_CHARS].strip()
        order = query.get("order", "")
        raw = query.get("offset", "")
        offset = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 6 else 0
        return cls(find, order if order in ORDERS else "weakest",
                   offset if offset < MEMBERS_LISTED else 0)


@dataclass(frozen=True, slots=True)
class Members:
    """A group's member rows as read (weakest first) and what every view of them needs,
    worked out once per read (`Dashboard.group_reads`), not on every request: the rows
    there are in all (past MEMBERS_LISTED some are not read), how many members, and each
    quiz's bests (score, questions of its attempt)."""

    rows: list[MemberRow]
    everyone: int
    count: int
    bests: dict[str, list[tuple[int, int | None]]]

    @classmethod
    def of(cls, read: tuple[list[MemberRow], int]) -> Members:
        """From `dashboard_sql.group_members`' (rows, rows in all)."""
        rows, everyone = read
        bests: dict[str, list[tuple[int, int | None]]] = {}
        for m in rows:
            bests.setdefault(m.quiz_id, []).append((m.best, m.total))
        return cls(rows, everyone, len({m.user_id for m in rows}), bests)


def folded(text: str) -> str:
    """A name or a search as compared: compatibility forms and case folded ("Ａｄａ", "ADA"
    and "ada" alike)."""
    return unicodedata.normalize("NFKC", text).casefold()


def member_table(members: list[MemberRow], quizzes: Mapping[str, Quiz], lang: str,
                 t: Callable[..., str], now: float, ask: TableAsk,
                 gone: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The rows `ask` finds, in its order, MEMBERS_PAGE of them from its offset; how many
    it finds in all, the "Showing 50 of 4,812" line and the button's "Show 50 more" (or
    what to do when nothing matches). Each row says when its member last finished a quiz
    here, in words ("3 days ago"), the same on each of their rows."""
    wanted = folded(ask.find)
    found = members  # the read's order: weakest first
    if wanted:  # each member's name folded once, however many quizzes they played
        hits = {u: wanted in folded(shown_name(n, whole=True))
                for u, n in {m.user_id: m.display_name for m in members}.items()}
        found = [m for m in members if hits[m.user_id]]
    if ask.order == "idle":  # a member's rows stay together, weakest first among them
        found = sorted(found, key=lambda m: (m.played_at, m.user_id))
    elif ask.order == "recent":
        found = sorted(found, key=lambda m: (-m.played_at, m.user_id))
    total, offset = len(found), min(ask.offset, len(found))
    page = found[offset:offset + MEMBERS_PAGE]
    end = offset + len(page)
    return {
        "rows": list(member_rows(page, quizzes, lang, t, now, gone)),
        "find": ask.find, "order": ask.order, "offset": offset, "total": total,
        "next": end if end < total else None,
        # what the page shows once it adds this page to the ones before: rows 1 to `end`
        "shown_text": t("dashboard.showing", shown=grouped(str(end)), total=grouped(str(total)))
        if page else "",
        "more_button": t("dashboard.show_more", count=min(MEMBERS_PAGE, total - end))
        if end < total else "",
        "none_text": "" if total else t("dashboard.find_none"),
    }


def member_rows(members: list[MemberRow], quizzes: Mapping[str, Quiz], lang: str,
                t: Callable[..., str], now: float, gone: Mapping[str, str] | None = None
                ) -> Iterator[dict[str, Any]]:
    """One dict per member row: the name as every place shows it, the quiz's title (`gone`:
    names of quizzes no longer loaded), the best out of its attempt's own questions, and
    when the member last played here."""
    for m in members:
        total = m.total if m.total is not None else (
            len(quizzes[m.quiz_id].questions) if m.quiz_id in quizzes else None)
        played = m.played_at or m.last_at
        yield {"user_id": m.user_id, "name": shown_name(m.display_name, whole=True),
               "quiz": m.quiz_id,
               "quiz_title": title_of(quizzes, m.quiz_id, lang, gone), "attempts": m.attempts,
               "best": m.best, "total": total,
               "score": str(m.best) if total is None else f"{m.best}/{total}",
               "last": time_text(m.last_at), "played_at": played,
               "played": ago(t, now - played), "played_time": time_text(played)}


__all__ = ["ORDERS", "Members", "TableAsk", "folded", "member_rows", "member_table"]
