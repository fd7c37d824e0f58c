"""The learner's dashboard page (`GET /api/me`): scores, reviews, streak, misses, topics,
the groups they play in, and (configured admins) the open problem reports."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from bot.domain import learning
from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import shown_text
from bot.domain.results import Actor
from bot.domain.round_rules import BADGE, earns_badge
from bot.features.dashboard.auth import Identity
from bot.features.dashboard.membership import Forbidden
from bot.features.dashboard.misses_view import misses_view
from bot.features.dashboard.page_base import Page
from bot.features.dashboard.reports_view import reports_view
from bot.features.dashboard.suggest import suggest
from bot.features.dashboard.view_parts import accuracy_rows, charts, day_text, direction
from bot.features.progress import standing
from bot.features.topic_map import confident_misses
from bot.present import svg
from bot.present.i18n import shown_name
from bot.present.render import clip, content_text, topic_map_lines
from bot.store.commands import dashboard_sql as reads
from bot.store.commands import groups_sql, learning_sql, sessions_sql
from bot.store.rows import CardRow, ReviewTotal

FORECAST_DAYS = 14
CALENDAR_DAYS = 35  # five weeks


class LearnerPage(Page):
    """Builds `/api/me` for a verified caller."""

    async def me(self, who: Identity) -> dict[str, Any]:
        """Scores per quiz, accuracy per question, due reviews and their forecast, the streak
        calendar, how often "sure" was right, the misses with their explanations."""
        p, u = who.platform, who.user_id
        now = self.engine.clock()
        # Asked at once, so SQLite's reader runs them as one batch (one hop to its thread)
        # and PostgreSQL's pool in parallel. The review days start early enough for any
        # UTC offset (and a 400-day streak).
        since = learning.local_day(now, 0) - CALENDAR_DAYS - 401
        (profile, attempts, answers, groups, own, managed), (settings, cards, totals, days) = (
            await asyncio.gather(
                asyncio.gather(self.store.read(sessions_sql.user, p, u),
                               self.store.read(reads.attempts, p, u),
                               self.store.read(reads.answers, p, u),
                               self.store.read(reads.groups_of, p, u),
                               self.store.read(reads.group_quizzes, p, u),
                               self.store.read(groups_sql.managed_groups, p, u)),
                asyncio.gather(self.store.read(learning_sql.learner_settings,
                                               p, u), self.store.read(learning_sql.cards, p, u),
                               self.store.read(learning_sql.review_totals, p, u),
                               self.store.read(learning_sql.review_days, p, u, since))))
        lang = self.engine.resolve_language(profile[1] if profile else None, who.locale)
        quizzes = self.quizzes()
        figures = standing(now, settings.utc_offset, cards, totals, days)
        today, streak = figures.today, figures.streak
        t = self._t(lang)

        scores = []
        for quiz_id, quiz in sorted(quizzes.items()):
            mine = [a for a in attempts if a.quiz_id == quiz_id]
            title = quiz.title.get(lang)
            # The best attempt by the board's rule (highest score, the earlier finish keeps
            # a tie: `max` keeps the first of equals, oldest first), out of its own questions.
            top = max(mine, key=lambda a: a.score, default=None)
            best, best_total = (top.score, top.total) if top else (None, None)
            last, last_total = (mine[-1].score, mine[-1].total) if mine else (None, None)
            total = len(quiz.questions)
            scores.append({
                "id": quiz_id, "title": title, "total": total, "attempts": len(mine),
                "best": best, "best_total": best_total, "last": last, "last_total": last_total,
                "badge": BADGE if earns_badge(best, total, of=best_total) else "",
                "line": t("dashboard.quiz_row", title=title, best=best, best_total=best_total,
                          last=last, last_total=last_total, attempts=len(mine)) if mine
                else t("dashboard.quiz_none", title=title),
                "chart": svg.score_line([(a.score, a.total) for a in mine], title,
                                        [learning.day_label(learning.local_day(
                                            a.finished_at, settings.utc_offset))
                                         for a in mine])
                if len(mine) > 1 else ""})
        questions = accuracy_rows(quizzes, answers, lang)
        forecast = [0] * FORECAST_DAYS
        for c in cards:
            ahead = max(0, learning.local_day(c.due_at, settings.utc_offset) - today)
            if ahead < FORECAST_DAYS:
                forecast[ahead] += 1
        labels = [day_text(today + i)[5:] for i in range(FORECAST_DAYS)]
        first = today - CALENDAR_DAYS + 1
        calendar = [(day_text(d), n, r) for d, n, r in figures.history(CALENDAR_DAYS)]
        sure, due_now = figures.sure, figures.due_now
        percent = round(100 * sure[1] / sure[0]) if sure[0] else None
        # "Due today" is the forecast's first column (overdue cards count there too), so the
        # summary and the chart say the same number; "now" is the part already due.
        due_today = forecast[0]
        played = [q for q in scores if q["attempts"]]
        listed = await self._groups(who, groups, managed, t)
        view = {
            "new": not played and not answers,
            "summary": {
                "streak": streak, "due_today": due_today, "due_now": due_now,
                "due_text": t("dashboard.due_today", today=due_today, now=due_now),
                "best": [{"quiz": q["id"], "title": q["title"],
                          "score": f'{q["best"]}/{q["best_total"]}',
                          "badge": q["badge"]}
                         for q in played],
                "next": suggest(quizzes, attempts, lang, t, own)},
            "kind": "me", "lang": lang, "dir": direction(lang),
            "user": {"name": shown_name((profile[0] if profile else "") or who.display_name)},
            # what the learner played and their groups' own quizzes first: a biology
            # group's learner read six shipped parallelism quizzes "not finished yet" above
            # their own (`sorted` is stable: by id within each part)
            "quizzes": sorted(scores, key=lambda q: not q["attempts"] and q["id"] not in own),
            "questions": questions,
            "accuracy_charts": charts(quizzes, questions, lang),
            "due": {"now": due_now, "cards": len(cards),
                    "text": t("progress.due", due=due_now, cards=len(cards)),
                    "forecast": [{"day": d, "count": n} for d, n in zip(labels, forecast,
                                                                        strict=True)],
                    "chart": svg.day_columns(list(zip(labels, forecast, strict=True)),
                                             t("dashboard.forecast"))},
            "streak": {"days": streak, "text": t("progress.streak", days=streak),
                       "calendar": [{"day": d, "answered": n, "correct": r}
                                    for d, n, r in calendar],
                       "chart": svg.streak_calendar(calendar, (first + 3) % 7,
                                                    t("dashboard.calendar"),
                                                    t("dashboard.weekdays").split(","))},
            "sure": {"answered": sure[0], "correct": sure[1], "percent": percent,
                     "text": t("progress.calibration", percent=percent, sure=sure[0],
                               right=sure[1]) if sure[0] else t("dashboard.sure_none")},
            "misses": misses_view(quizzes, answers, lang, t),
            **await self._topics(who, quizzes, totals, cards, lang),
            "groups": listed,
            # how to reach a group not listed (a Discord link opens one server only)
            "groups_hint": t("dashboard.groups_hint_server" if p == "discord"
                             else "dashboard.groups_hint") if groups or listed else "",
        }
        if self.engine.is_admin(Actor(p, u)):  # the configured admins: open reports
            view["reports"] = reports_view(*await self.engine.reports.open(), quizzes, lang, t)
        return view

    async def _groups(self, who: Identity, groups: list[tuple[str, str | None]],
                      managed: list[tuple[str, str | None]], t: Callable[..., str]
                      ) -> list[dict[str, Any]]:
        """The caller's groups: those they play or host in, latest first, then those they
        only manage (a teacher who set a group up and neither plays nor hosts there finds
        it here); each they manage labelled. A Discord link opens only the server it was
        made in (see `GroupPage.role`), so it lists that one, managed exactly when the link
        says Manage Server (as that page allows; a Manage Messages moderator noted by a
        round's stop is not labelled)."""
        manages = {g for g, _ in managed}
        listed = dict(groups)
        listed.update((g, title) for g, title in managed if g not in listed)
        if who.platform == "discord":
            manages = {who.guild_id} if who.guild_id is not None and who.guild_admin else set()
            if who.guild_id in manages and who.guild_id not in listed:
                listed[who.guild_id] = (await self.store.read(
                    reads.chat_titles, "discord", [who.guild_id])).get(who.guild_id)
            listed = {g: title for g, title in listed.items() if g == who.guild_id}
        return [{"id": g, "title": title or t("dashboard.group_untitled"),
                 "manages": g in manages, "note": t("dashboard.you_manage") if g in manages
                 else ""} for g, title in listed.items()]

    async def _topics(self, who: Identity, quizzes: Mapping[str, Quiz],
                      totals: list[ReviewTotal], cards: list[CardRow], lang: str
                      ) -> dict[str, Any]:
        """The mastery map with calibration per topic, and the confident misses, worded
        as /stats words them (`render.topic_map_lines`), from the reads `me` made."""
        topics = await self.engine.spaced.topic_map(who.platform, who.user_id, lang,
                                                    totals=totals, cards=cards)
        lines = topic_map_lines(self.cat, lang, topics)
        misses = []
        for t in confident_misses(totals):
            q = quizzes[t.quiz_id].question(t.question_id) if t.quiz_id in quizzes else None
            if q is not None:
                text = content_text(lang, shown_text(q, lang, None))
                misses.append({"quiz": t.quiz_id, "question": t.question_id, "text": text,
                               "line": self.cat.t(lang, "progress.confident_miss",
                                                  text=clip(text, 90),
                                                  misses=t.answered - t.correct)})
        return {"topics": [{"topic": t.topic, "name": t.name, "percent": t.percent,
                            "answered": t.answered, "sure": t.sure, "sure_right": t.sure_right,
                            "line": line} for t, line in zip(topics, lines, strict=True)],
                "confident_misses": misses}

    async def resolve(self, who: Identity, report_id: int) -> bool:
        """Mark a problem report resolved; the configured admins only."""
        actor = Actor(who.platform, who.user_id, None, who.display_name)
        if not self.engine.is_admin(actor):
            raise Forbidden(f"{who.platform} user is no configured admin")
        return await self.engine.reports.resolve(report_id, actor)



__all__ = ["CALENDAR_DAYS", "FORECAST_DAYS", "LearnerPage"]
