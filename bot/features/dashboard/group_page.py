"""A group's dashboard page (`GET /api/groups/<id>`): rounds, accuracy per question and
misconceptions, members' progress; admins also one row per member, item statistics and the
export. Who may see a group is decided in `role`: members only (Telegram asks getChatMember
through the running bot, Discord trusts the signed link's guild)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from bot.domain.product_limits import ROUNDS_LISTED
from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import named_option, shown_text
from bot.domain.report_rows import QuestionAccuracy
from bot.domain.results import Actor
from bot.features.dashboard.auth import Identity
from bot.features.dashboard.group_export import Exporter
from bot.features.dashboard.items import items_csv, items_view
from bot.features.dashboard.member_table import Members, TableAsk, member_rows, member_table
from bot.features.dashboard.membership import BotGone, Forbidden, Memberships, Role, Unavailable
from bot.features.dashboard.page_base import Page
from bot.features.dashboard.recent import Recent
from bot.features.dashboard.view_parts import (
    charts,
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
from bot.present.i18n import Catalogue, titled
from bot.present.render import content_text
from bot.store.commands import dashboard_sql as reads
from bot.store.commands import quizzes_sql
from bot.store.commands.dashboard_sql import AttemptAnswer, GroupRound
from bot.store.commands.report_sql import Scope, accuracy
from bot.store.commands.rounds_sql import round_places
from bot.store.protocol import Store

GROUP_SECONDS = 10.0  # a group's figures are read at most this often (see Recent)
NOTED_SECONDS = 3600.0  # an admin opening the group's page is noted at most this often

# rounds, per-question counts, members' bests, the group's title, where rounds ran
GroupReads = tuple[list[GroupRound], list[QuestionAccuracy], Members,
                   dict[str, str], dict[int, str]]


class GroupPage(Page):
    """Builds `/api/groups/<id>` (and its member pages, item statistics and export)."""

    def __init__(self, engine: Engine, store: Store, catalogue: Catalogue,
                 memberships: Memberships, *, exporter: Exporter | None = None) -> None:
        super().__init__(engine, store, catalogue)
        self.memberships = memberships
        self.exporter = exporter
        # A group's figures are the same for every member who opens the page: a group
        # opening it together after a round (or a flood) costs one read per GROUP_SECONDS.
        self.group_figures: Recent[tuple[str, str], GroupReads] = Recent(GROUP_SECONDS,
                                                                         engine.clock)
        self.group_answers: Recent[tuple[str, str], list[AttemptAnswer]] = Recent(
            GROUP_SECONDS, engine.clock, max_keys=100)
        # What the platform last said of each caller here (`Groups.said`: a manager noted,
        # or a demoted one's note dropped), so that page views write once an hour at most;
        # dropping it costs a write or a read that changes nothing.
        self.noted: Recent[tuple[str, str, str, bool], None] = Recent(
            NOTED_SECONDS, engine.clock, max_keys=10_000)

    async def role(self, who: Identity, group_id: str) -> Role:
        """The caller's role in the group; Forbidden when they are not in it."""
        if who.platform == "discord":  # what the signed link says, nothing else
            role = Role(who.guild_id == group_id, who.guild_id == group_id and who.guild_admin)
        else:
            role = await self.memberships.role(who.platform, group_id, who.user_id)
        if not role.member:  # BotGone: nobody can be checked there (the page says why)
            raise (BotGone if role.bot_gone else Forbidden)(
                f"{who.platform} user is not in group {group_id} (bot gone: {role.bot_gone})")
        # The platform's word on whether they manage it: their own page lists it labelled,
        # or no longer (an admin demoted since); kept at most once an hour per answer.
        said = (who.platform, group_id, who.user_id, role.admin)
        await self.noted.get(said, lambda: self.engine.groups.said(*said))
        self.noted.forget((*said[:3], not role.admin))
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



__all__ = ["GROUP_SECONDS", "GroupPage", "GroupReads"]
