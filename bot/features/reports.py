""""Report a problem" under every explanation: the rule, once, for every platform.

The button names the answered question by its session and position; pressing it offers the
reasons, pressing a reason stores the report with the question and the attempt's seed (the
numbers a computed question showed). Only the session's owner may report, only a question
they answered, and at most REPORTS_PER_DAY reports in any 24 hours. A learner may add one
line to their latest report within NOTE_SECONDS (`/report <text>`, or the terminal's prompt).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.domain.payloads import REPORT_REASONS as REASONS
from bot.domain.payloads import ReportPayload
from bot.domain.product_limits import NOTE_CHARS, REPORTS_LISTED, REPORTS_PER_DAY
from bot.domain.results import Actor, ReportAsked, ReportDone
from bot.domain.rights import owns
from bot.store.commands import sessions_sql
from bot.store.commands.reports_sql import (
    ReportRow,
    add_note,
    add_report,
    open_reports,
    resolve_report,
)
from bot.store.protocol import Store

WINDOW = 24 * 3600.0
NOTE_SECONDS = 10 * 60.0


class Reports:
    """Learners' reports about questions, and their list for admins."""

    def __init__(self, store: Store, clock: Callable[[], float],
                 language: Callable[[Actor], Awaitable[str]]) -> None:
        self.store, self.clock, self._language = store, clock, language

    async def pressed(self, actor: Actor, pressed: ReportPayload) -> ReportAsked | ReportDone:
        """The button, then a reason: ask for the reason, or store the report."""
        lang = await self._language(actor)
        target = pressed.target()
        if target is None:
            return ReportDone(lang, "gone")
        session_id, position, letter = target
        session, answer = await self.store.read(sessions_sql.session_and_answer,
                                                session_id, position)
        if (session is None or answer is None or not owns(actor, session.platform,
                                                          session.user_id)
                or (letter and letter not in REASONS)):
            return ReportDone(lang, "gone")
        if not letter:
            return ReportAsked(lang, session_id, position)
        stored = await self.store.write(
            add_report, actor.platform, actor.user_id, session.quiz_id, answer.question_id,
            session.seed, REASONS[letter], lang, self.clock(), WINDOW, REPORTS_PER_DAY)
        return ReportDone(lang, "stored" if stored is not None else "limit", REASONS[letter])

    async def note(self, actor: Actor, text: str) -> bool:
        """Add a line to the learner's latest report (made in the last NOTE_SECONDS, still
        without one); False when there is none."""
        line = " ".join(text.split())[:NOTE_CHARS]
        if not line:
            return False
        return await self.store.write(add_note, actor.platform, actor.user_id, line,
                                      self.clock() - NOTE_SECONDS)

    async def open(self, limit: int = REPORTS_LISTED) -> tuple[list[ReportRow], int]:
        """The open reports, newest first, and how many are open in all."""
        return await self.store.read(open_reports, limit)

    async def resolve(self, report_id: int, by: Actor) -> bool:
        """Mark a report resolved; False when it is not open (or not there)."""
        return await self.store.write(resolve_report, report_id,
                                      f"{by.platform}:{by.user_id}", self.clock())


__all__ = ["NOTE_SECONDS", "REASONS", "REPORTS_PER_DAY", "Reports"]
