"""The dashboard API served on 127.0.0.1 (no browser): the `served` fixture."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp import ClientSession, web
from aiohttp.test_utils import TestServer

from bot.app.compose import build_engine
from bot.app.dashboard_web import DashboardWeb
from bot.domain.quiz import Quiz
from bot.features.dashboard.auth import Signer, derive_secret
from bot.features.dashboard.group_export import exporter_for
from bot.features.dashboard.pages import Dashboard, Memberships, Role, quizzes_of
from bot.features.engine import Engine
from bot.present.i18n import Catalogue
from bot.store.sqlite import SQLiteStore
from tests.clock import FakeClock
from tests.dashboard_support import init_data

TOKEN = "4242:dashboard-test-token"
GROUP = "-1001"


@dataclass
class Served:
    url: str
    http: ClientSession
    clock: FakeClock
    engine: Engine
    signer: Signer
    members: dict[tuple[str, str], Role]
    memberships: Memberships
    web: DashboardWeb
    store: SQLiteStore
    store_url: str = ""

    def tma(self, user_id: int, name: str, **kw: object) -> dict[str, str]:
        data = init_data(TOKEN, user_id, name, auth_date=self.clock(), **kw)  # type: ignore[arg-type]
        return {"Authorization": f"tma {data}"}

    async def get(self, path: str, headers: dict[str, str] | None = None
                  ) -> tuple[int, object]:
        async with self.http.get(self.url + path, headers=headers or {}) as r:
            body = await r.text()
            return r.status, json.loads(body) if r.content_type == "application/json" else body


@pytest.fixture
async def served(tmp_path: Path, quizzes: dict[str, Quiz], catalogue: Catalogue,
                 ) -> AsyncIterator[Served]:
    clock = FakeClock(1_800_000_000)
    store = await SQLiteStore.open(tmp_path / "quiz.db")
    engine = build_engine(store, quizzes, rng=random.Random(5), clock=clock,
                          admins={"telegram": frozenset({"77"})})
    members: dict[tuple[str, str], Role] = {}
    memberships = Memberships(clock)

    async def check(group: str, user: str) -> Role:
        return members.get((group, user), Role(False))

    memberships.provide("telegram", check)
    dashboard = Dashboard(engine, store, catalogue, memberships,
                          exporter=exporter_for(store, lambda: quizzes_of(engine)))
    signer = Signer(derive_secret("test-secret", ""), clock)
    app = web.Application()
    routes = DashboardWeb(dashboard, catalogue, bot_token=TOKEN, signer=signer)
    routes.mount(app.router.add_route)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        async with ClientSession() as http:
            yield Served(str(server.make_url("")).rstrip("/"), http, clock, engine, signer,
                         members, memberships, routes, store,
                         f"sqlite:///{tmp_path / 'quiz.db'}")
    finally:
        await server.close()
        await store.close()
