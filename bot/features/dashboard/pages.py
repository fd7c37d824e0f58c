"""The dashboard's two views, as JSON-ready dicts: a learner's progress and a group's.

Only reads: the store's rows (bot.store.commands.dashboard_sql and the learning reads), the
quiz files for texts and explanations in the caller's language, and SVG charts drawn here. Who may
see a group is decided in `group`: members only (Telegram asks getChatMember through the
running bot, Discord trusts the signed link's guild), and only admins get one row per
member and the export.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any

from bot.domain import learning
from bot.domain.product_limits import ROUNDS_LISTED
from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import named_option, shown_text
from bot.domain.report_rows import QuestionAccuracy
from bot.domain.results import Actor
from bot.domain.round_rules import BADGE, earns_badge
from bot.features.dashboard.auth import Identity
from bot.features.dashboard.group_export import Exporter
from bot.features.dashboard.items import items_csv, items_view
from bot.features.dashboard.member_table import Members, TableAsk, member_rows, member_table
from bot.features.dashboard.membership import (
    BotGone,
    Forbidden,
    MemberCheck,
    Memberships,
    Role,
    Unavailable,
)
from bot.features.dashboard.misses_view import misses_view
from bot.features.dashboard.recent import Recent
from bot.features.dashboard.reports_view import reports_view
from bot.features.dashboard.suggest import suggest
from bot.features.dashboard.view_parts import (
    accuracy_rows,
    charts,
    day_text,
    direction,
    gone_titles,
    label,
    needs_help,
    quiz_members,
    time_text,
    title_of,
    weakest,
)
from bot.features.engine import Engine
from bot.features.progress import standing
from bot.features.topic_map import confident_misses
from bot.present import svg
from bot.present.i18n import Catalogue, shown_name, titled
from bot.present.render import clip, content_text, topic_map_lines
from bot.store.commands import dashboard_sql as reads
from bot.store.commands import learning_sql, quizzes_sql, sessions_sql
from bot.store.commands.dashboard_sql import (
    AttemptAnswer,
    GroupRound,
)
from bot.store.commands.report_sql import Scope, accuracy
from bot.store.commands.rounds_sql import round_places
from bot.store.protocol import Store
from bot.store.rows import CardRow, ReviewTotal

log = logging.getLogger(__name__)

FORECAST_DAYS = 14
CALENDAR_DAYS = 35  # five weeks
GROUP_SECONDS = 10.0  # a group's figures are read at most this often (see Recent)


# rounds, per-question counts, members' bests, the group's title, where rounds ran
GroupReads = tuple[list[GroupRound], list[QuestionAccuracy], Members,
                   dict[str, str], dict[int, str]]


class Dashboard:
    """Builds `/api/me` and `/api/groups/<id>` for a verified caller."""

    def __init__(self, engine: Engine, store: Store, catalogue: Catalogue,
                 memberships: Memberships, *, exporter: Exporter | None = None) -> None:
        self.engine, self.store, self.cat = engine, store, catalogue
        self.memberships = memberships
        self.exporter = exporter
        # A group's figures are the same for every member who opens the page: a group
        # opening it together after a round (or a flood) costs one read per GROUP_SECONDS.
        self.group_figures: Recent[tuple[str, str], GroupReads] = Recent(GROUP_SECONDS,
                                                                         engine.clock)
        self.group_answers: Recent[tuple[str, str], list[AttemptAnswer]] = Recent(
            GROUP_SECONDS, engine.clock, max_keys=100)

    def quizzes(self) -> dict[str, Quiz]:
        """Every quiz loaded now (after a /reload too), by id."""
        return quizzes_of(self.engine)

    async def language(self, who: Identity) -> str:
        """The caller's chosen language, else their app's, else the default."""
        profile = await self.store.read(sessions_sql.user, who.platform, who.user_id)
        return self.engine.resolve_language(profile[1] if profile else None, who.locale)

    # --- the learner ---------------------------------------------------------------------

    async def me(self, who: Identity) -> dict[str, Any]:
        """Scores per quiz, accuracy per question, due reviews and their forecast, the streak
        calendar, how often "sure" was right, the misses with their explanations."""
        p, u = who.platform, who.user_id
        now = self.engine.clock()
        # Asked at once, so SQLite's reader runs them as one batch (one hop to its thread)
        # and PostgreSQL's pool in parallel. The review days start early enough for any
        # UTC offset (and a 400-day streak).
        since = learning.local_day(now, 0) - CALENDAR_DAYS - 401
        (profile, attempts, answers, groups), (settings, cards, totals, days) = (
            await asyncio.gather(
                asyncio.gather(self.store.read(sessions_sql.user, p, u),
                               self.store.read(reads.attempts, p, u),
                               self.store.read(reads.answers, p, u),
                               self.store.read(reads.groups_of, p, u)),
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
        view = {
            "new": not played and not answers,
            "summary": {
                "streak": streak, "due_today": due_today, "due_now": due_now,
                "due_text": t("dashboard.due_today", today=due_today, now=due_now),
                "best": [{"quiz": q["id"], "title": q["title"],
                          "score": f'{q["best"]}/{q["best_total"]}',
                          "badge": q["badge"]}
                         for q in played],
                "next": suggest(quizzes, attempts, lang, t)},
            "kind": "me", "lang": lang, "dir": direction(lang),
            "user": {"name": shown_name((profile[0] if profile else "") or who.display_name)},
            "quizzes": scores,
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
            # A Discord link opens only the server it was made in (see `role`): no others.
            "groups": [{"id": g, "title": title or t("dashboard.group_untitled")}
                       for g, title in groups if p != "discord" or g == who.guild_id],
            # how to reach a group not listed (a Discord link opens one server only)
            "groups_hint": t("dashboard.groups_hint_server" if p == "discord"
                             else "dashboard.groups_hint") if groups else "",
        }
        if self.engine.is_admin(Actor(p, u)):  # the configured admins: open reports
            view["reports"] = reports_view(*await self.engine.reports.open(), quizzes, lang, t)
        return view

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

    # --- the group -------------------------------------------------------------------------

    async def role(self, who: Identity, group_id: str) -> Role:
        """The caller's role in the group; Forbidden when they are not in it."""
        if who.platform == "discord":  # what the signed link says, nothing else
            role = Role(who.guild_id == group_id, who.guild_id == group_id and who.guild_admin)
        else:
            role = await self.memberships.role(who.platform, group_id, who.user_id)
        if not role.member:  # BotGone: nobody can be checked there (the page says why)
            raise (BotGone if role.bot_gone else Forbidden)(
                f"{who.platform} user is not in group {group_id} (bot gone: {role.bot_gone})")
        if not role.admin and self.engine.is_admin(Actor(who.platform, who.user_id)):
            role = Role(True, True)  # the configured `admins`
        return role

    async def group(self, who: Identity, group_id: str) -> dict[str, Any]:
        """Rounds, per-question accuracy and misconceptions, members' progress; admins also
        one row per member and the export links."""
        role = await self.role(who, group_id)
        p = who.platform
        lang, (rounds, rows, members, titles, places) = await asyncio.gather(
            self.language(who), self.group_figures.get((p, group_id),
                                                 lambda: self.group_reads(p, group_id)))
        quizzes = self.quizzes()
        t = self._t(lang)
        gone = await self._gone(quizzes, {r.quiz_id for r in rounds}
                                | {m.quiz_id for m in members.rows}, lang)
        questions = []
        for r in rows:
            quiz = quizzes.get(r.quiz_id)
            q = quiz.question(r.question_id) if quiz else None
            if quiz is None or q is None:
                continue
            wrong = None
            if r.wrong_choice is not None and 0 <= r.wrong_choice < len(q.options):
                option = named_option(q, r.wrong_choice, lang)
                wrong = {"option": content_text(lang, option), "count": r.wrong_count,
                         "line": t("dashboard.wrong_pick", option=option, count=r.wrong_count)}
            number = quiz.questions.index(q) + 1
            questions.append({"quiz": r.quiz_id, "quiz_title": quiz.title.get(lang),
                              "id": r.question_id, "label": label(r.quiz_id, number),
                              "order": number,
                              "text": content_text(lang, shown_text(q, lang, None)),
                              "answered": r.answered, "correct": r.correct, "wrong": wrong})
        questions.sort(key=lambda q: (q["quiz"], q["order"]))
        count = members.count
        view: dict[str, Any] = {
            "kind": "group", "lang": lang, "dir": direction(lang), "admin": role.admin,
            "group": {"id": group_id, "platform": p, "title": titles.get(group_id),
                      "heading": t("dashboard.group_title",
                                   group=titled(lang, titles[group_id]))
                      if group_id in titles else t("dashboard.group_untitled")},
            "rounds": [{"id": r.id, "quiz": r.quiz_id, "status": r.status,
                        "channel": places.get(r.id),
                        "started": time_text(r.started_at), "started_at": r.started_at,
                        "players": r.players,
                        "best": r.best, "total": r.total,
                        "mean": None if r.mean is None else round(r.mean, 1),
                        "line": t("dashboard.round_row" if r.players
                                  else "dashboard.round_nobody",
                                  title=title_of(quizzes, r.quiz_id, lang, gone),
                                  best=r.best, total=r.total, players=r.players)}
                       for r in rounds],
            "questions": questions,
            "weakest": weakest(t, questions, p),
            "accuracy_charts": charts(quizzes, questions, lang),
            "members": {
                "count": count, "text": t("dashboard.members_summary", members=count),
                "quizzes": [quiz_members(t, quizzes, quiz_id, bests, lang, gone)
                            for quiz_id, bests in sorted(members.bests.items())]},
        }
        if role.admin:  # the table's first page; `members` serves the rest
            now = self.engine.clock()
            view["members"].update(member_table(members.rows, quizzes, lang, t, now,
                                                TableAsk(), gone))
            view["members"]["order_text"] = t("dashboard.members_order")
            view["members"]["needs_help"] = needs_help(
                t, member_rows(members.rows, quizzes, lang, t, now, gone), lang,
                self.cat.raw(lang, "list.separator"))
            more = max(0, members.everyone - len(members.rows))
            view["members"]["more"] = more
            view["members"]["more_text"] = t("dashboard.more", count=more) if more else ""
            if self.exporter is not None:
                view["export"] = {f: f"/api/groups/{group_id}/export.{f}" for f in ("csv", "json")}
            view["items"] = items_view(await self._answers(p, group_id), quizzes, lang, t,
                                       f"/api/groups/{group_id}/items.csv")
        return view

    async def members(self, who: Identity, group_id: str, ask: TableAsk) -> dict[str, Any]:
        """A page of the group's member table (`GET /api/groups/<id>/members`); admins."""
        role = await self.role(who, group_id)
        if not role.admin:
            raise Forbidden(f"{who.platform} user is no admin of group {group_id}")
        p = who.platform
        lang, (rounds, _, members, _, _) = await asyncio.gather(
            self.language(who), self.group_figures.get((p, group_id),
                                                 lambda: self.group_reads(p, group_id)))
        quizzes = self.quizzes()
        gone = await self._gone(quizzes, {r.quiz_id for r in rounds}  # numbered as the page
                                | {m.quiz_id for m in members.rows}, lang)
        return member_table(members.rows, quizzes, lang, self._t(lang), self.engine.clock(),
                            ask, gone)

    async def _gone(self, quizzes: Mapping[str, Quiz], ids: set[str], lang: str
                    ) -> dict[str, str]:
        """Names for the quizzes of these ids no longer loaded (`view_parts.gone_titles`):
        one store read, and only when there are any."""
        missing = sorted(ids - quizzes.keys())
        if not missing:
            return {}
        files = await self.store.read(quizzes_sql.stored_files, missing)
        return gone_titles(missing, files, lang, self.cat.t(lang, "dashboard.quiz_removed"),
                           lambda name, n: self.cat.t(lang, "dashboard.name_numbered",
                                                      name=name, number=n))

    async def resolve(self, who: Identity, report_id: int) -> bool:
        """Mark a problem report resolved; the configured admins only."""
        actor = Actor(who.platform, who.user_id, None, who.display_name)
        if not self.engine.is_admin(actor):
            raise Forbidden(f"{who.platform} user is no configured admin")
        return await self.engine.reports.resolve(report_id, actor)

    async def items_csv(self, who: Identity, group_id: str) -> str:
        """The group's item statistics as CSV; admins only."""
        role = await self.role(who, group_id)
        if not role.admin:
            raise Forbidden(f"{who.platform} user is no admin of group {group_id}")
        return items_csv(await self._answers(who.platform, group_id), self.quizzes(),
                         await self.language(who))

    async def _answers(self, platform: str, group_id: str) -> list[AttemptAnswer]:
        return await self.group_answers.get(
            (platform, group_id), lambda: self.store.read(reads.group_attempt_answers, platform,
                                           group_id))

    async def group_reads(self, platform: str, group_id: str) -> GroupReads:
        """A group's figures read afresh (what `group_figures` keeps for GROUP_SECONDS)."""
        rounds, rows, members, titles, places = await asyncio.gather(
            self.store.read(reads.group_rounds, platform, group_id),
            self.store.read(accuracy, Scope(group_id, platform)),
            self.store.read(reads.group_members, platform, group_id),
            self.store.read(reads.chat_titles, platform, [group_id]),
            self.store.read(round_places, platform, group_id, ROUNDS_LISTED))
        return rounds, rows, Members.of(members), titles, places

    async def export(self, who: Identity, group_id: str, fmt: str) -> str:
        """The group's results as CSV or JSON (`quizbot export --chat`); admins only."""
        role = await self.role(who, group_id)
        if not role.admin:
            raise Forbidden(f"{who.platform} user is no admin of group {group_id}")
        if self.exporter is None:
            raise Unavailable("export is not available on this store")
        return await self.exporter(who.platform, group_id, fmt)

    def _t(self, lang: str) -> Callable[..., str]:
        return lambda key, **params: self.cat.t(lang, key, **params)


def quizzes_of(engine: Engine) -> dict[str, Quiz]:
    """Every quiz the engine has loaded now (after a /reload too), by id."""
    return dict(engine.library.quizzes)


__all__ = ["BotGone", "Dashboard", "Forbidden", "MemberCheck", "Memberships", "Role", "Unavailable",
           "quizzes_of"]
