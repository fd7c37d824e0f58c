"""The dashboard's two views, as JSON-ready dicts: a learner's progress (`learner_page`) and a
group's (`group_page`).

Reads (and one write: an admin opening a group's page is noted as its manager, and a
member no longer one (demoted) is not, at most once an hour, so their own page lists it as
the group's page allows: `Groups.said`): the store's rows (bot.store.commands.dashboard_sql
and the learning reads), the quiz files for texts and explanations in the caller's
language, and SVG charts. Who may see
a group is decided in `GroupPage.role`: members only, and only admins get one row per member
and the export.
"""

from __future__ import annotations

from typing import Any

from bot.features.dashboard.auth import Identity
from bot.features.dashboard.group_export import Exporter
from bot.features.dashboard.group_page import GroupPage
from bot.features.dashboard.learner_page import LearnerPage
from bot.features.dashboard.member_table import TableAsk
from bot.features.dashboard.membership import (
    BotGone,
    Forbidden,
    MemberCheck,
    Memberships,
    Role,
    Unavailable,
)
from bot.features.dashboard.page_base import quizzes_of
from bot.features.engine import Engine
from bot.present.i18n import Catalogue
from bot.store.protocol import Store


class Dashboard:
    """Builds `/api/me` and `/api/groups/<id>` for a verified caller: the learner's page and
    the group's, each its own object."""

    def __init__(self, engine: Engine, store: Store, catalogue: Catalogue,
                 memberships: Memberships, *, exporter: Exporter | None = None) -> None:
        self.store = store
        self.learner = LearnerPage(engine, store, catalogue)
        self.groups = GroupPage(engine, store, catalogue, memberships, exporter=exporter)
        self.group_figures = self.groups.group_figures  # how often the group was read

    async def me(self, who: Identity) -> dict[str, Any]:
        """The caller's own page (`LearnerPage.me`)."""
        return await self.learner.me(who)

    async def resolve(self, who: Identity, report_id: int) -> bool:
        """Mark a problem report resolved; the configured admins only."""
        return await self.learner.resolve(who, report_id)

    async def role(self, who: Identity, group_id: str) -> Role:
        """The caller's role in the group; Forbidden when they are not in it."""
        return await self.groups.role(who, group_id)

    async def group(self, who: Identity, group_id: str) -> dict[str, Any]:
        """A group's page (`GroupPage.group`)."""
        return await self.groups.group(who, group_id)

    async def members(self, who: Identity, group_id: str, ask: TableAsk) -> dict[str, Any]:
        """A page of the group's member table; admins."""
        return await self.groups.members(who, group_id, ask)

    async def items_csv(self, who: Identity, group_id: str) -> str:
        """The group's item statistics as CSV; admins only."""
        return await self.groups.items_csv(who, group_id)

    async def export(self, who: Identity, group_id: str, fmt: str) -> str:
        """The group's results as CSV or JSON; admins only."""
        return await self.groups.export(who, group_id, fmt)


__all__ = ["BotGone", "Dashboard", "Forbidden", "MemberCheck", "Memberships", "Role", "Unavailable",
           "quizzes_of"]
