"""The dashboard API under abuse: rate limits (429 + Retry-After), membership asked at most
once a minute per member, Discord links that work once, QUIZBOT_WEB_SECRET's length."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from bot.app.config import load_config
from bot.app.dashboard_web import API_WORKERS
from bot.app.metrics import Metrics
from bot.domain.errors import ConfigError
from bot.features.dashboard.auth import INIT_DATA_MAX_AGE, Identity
from bot.features.dashboard.membership import MEMBER_SECONDS, Memberships, Role, Unavailable
from bot.features.dashboard.throttle import RateLimit
from bot.store.commands.dashboard_sql import use_link
from tests.bot.features.dashboard.conftest import GROUP, Served
from tests.clock import FakeClock


async def test_a_learner_past_the_limit_gets_429_with_retry_after(served: Served) -> None:
    served.web.learners = RateLimit(5, served.clock)  # a burst of 5, then one in 12 s
    ada, bob = served.tma(1, "Ada"), served.tma(2, "Bob")
    statuses = [(await served.get("/api/me", ada))[0] for _ in range(7)]
    assert statuses == [200] * 5 + [429] * 2
    async with served.http.get(served.url + "/api/me", headers=ada) as r:
        assert r.status == 429 and r.headers["Retry-After"] == "12"  # 5 a minute: one in 12 s
        assert await r.json() == {"error": "busy", "retry_after": 12}
    assert (await served.get("/api/me", bob))[0] == 200  # another learner is not held up
    served.clock.advance(12)
    assert (await served.get("/api/me", ada))[0] == 200
    assert (await served.get("/api/me", ada))[0] == 429


async def test_an_address_past_its_limit_is_refused_before_any_check(served: Served) -> None:
    served.web.addresses = RateLimit(20, served.clock)  # a burst of 5, then one in 3 s
    for uid in range(5):  # five learners behind one address
        assert (await served.get("/api/me", served.tma(uid + 1, "L")))[0] == 200
    assert (await served.get("/api/me", served.tma(9, "New")))[0] == 429
    assert (await served.get("/api/me"))[0] == 429  # before the credential is even read
    async with served.http.post(served.url + "/api/session") as r:
        assert r.status == 429 and r.headers["Retry-After"] == "3"


async def test_behind_the_proxy_each_forwarded_address_has_its_own_bucket(
        served: Served) -> None:
    served.web.addresses = RateLimit(1, served.clock)  # a burst of 5
    for hop in ("203.0.113.7", "203.0.113.8"):
        # A client may write its own X-Forwarded-For; the proxy's hop is the last one.
        statuses = [(await served.get("/api/me", {**served.tma(n, "L"),
                                                  "X-Forwarded-For": f"10.0.0.{n}, {hop}"}))[0]
                    for n in range(1, 7)]
        assert statuses == [200] * 5 + [429]


async def test_a_flood_asks_telegram_once_per_member_per_minute(served: Served) -> None:
    calls: list[tuple[str, str]] = []

    async def check(group: str, user: str) -> Role:
        calls.append((group, user))
        return Role(True)

    served.memberships.provide("telegram", check)
    served.web.learners = served.web.addresses = RateLimit(10**6, served.clock)  # not this test
    ada = served.tma(1, "Ada")
    flood = [served.get(f"/api/groups/{GROUP}", ada) for _ in range(40)]
    results = await asyncio.wait_for(asyncio.gather(*flood), 30)
    assert [status for status, _ in results] == [200] * 40
    assert calls == [(GROUP, "1")]
    assert served.web.dashboard.group_figures.made == 1  # and the group's figures read once
    served.clock.advance(MEMBER_SECONDS)
    assert (await served.get(f"/api/groups/{GROUP}", ada))[0] == 200
    assert len(calls) == 2  # asked again after a minute
    assert (await served.get(f"/api/groups/{GROUP}", served.tma(2, "Bob")))[0] == 200
    assert len(calls) == 3  # each member is their own question


async def test_questions_in_flight_share_one_call() -> None:
    memberships = Memberships(FakeClock(100.0))
    gate = asyncio.Event()
    calls = 0

    async def check(group: str, user: str) -> Role:
        nonlocal calls
        calls += 1
        await gate.wait()
        return Role(True)

    memberships.provide("telegram", check)
    asked = [asyncio.create_task(memberships.role("telegram", "-1", "7")) for _ in range(50)]
    await asyncio.sleep(0)  # one turn of the loop: every task is now waiting on the first
    assert calls == 1
    gate.set()
    assert await asyncio.wait_for(asyncio.gather(*asked), 5) == [Role(True)] * 50
    assert calls == 1 and memberships.calls == 1


async def test_the_membership_cache_keeps_no_failure() -> None:
    clock = FakeClock(100.0)
    memberships = Memberships(clock)
    answers: list[Role | Exception] = [Unavailable("down"), Role(True, True)]

    async def check(group: str, user: str) -> Role:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    memberships.provide("telegram", check)
    with pytest.raises(Unavailable):
        await memberships.role("telegram", "-1", "7")
    assert await memberships.role("telegram", "-1", "7") == Role(True, True)
    assert await memberships.role("telegram", "-1", "7") == Role(True, True)  # kept
    assert memberships.calls == 2


async def test_a_discord_link_works_once(served: Served) -> None:
    link = served.signer.link(Identity("discord", "42", "Grace", None, "9001", False))
    other = served.signer.link(Identity("discord", "42", "Grace", None, "9001", False))
    assert link != other  # each link its own nonce
    statuses = []
    for token in (link, link, other):
        async with served.http.post(served.url + "/api/session",
                                    headers={"Authorization": f"link {token}"}) as r:
            statuses.append(r.status)
    assert statuses == [200, 401, 200]
    # Another process on the same database refuses the replay too: the nonce is stored.
    assert await served.web.dashboard.store.write(
        use_link, served.signer.open_link(link).nonce, served.clock() + 600,
        served.clock()) is False


@pytest.mark.parametrize(("secret", "ok"), [("abc", False), ("x" * 31, False),
                                            ("x" * 32, True), ("ü" * 16, True), ("", True)])
def test_a_short_web_secret_is_refused_at_start(tmp_path: Path, secret: str, ok: bool) -> None:
    env = {"QUIZBOT_WEB_SECRET": secret}
    if ok:
        assert load_config(None, env).web_secret.reveal() == secret
        return
    with pytest.raises(ConfigError) as err:
        load_config(None, env)
    message = str(err.value)
    assert "QUIZBOT_WEB_SECRET must be at least 32 bytes" in message and "\n" not in message
    assert secret not in message.split("got ")[1]  # the length, never the value


@pytest.mark.parametrize("command", ["check", "run"])
def test_quizbot_check_and_run_refuse_a_short_secret_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        command: str) -> None:
    from adapters.cli.main import main

    monkeypatch.setenv("QUIZBOT_WEB_SECRET", "abc")
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "config.yaml"
    config.write_text("storage:\n  url: sqlite:///quiz.db\n", encoding="utf-8")
    assert main([command, "--config", str(config)]) == 1
    err = capsys.readouterr().err.strip()
    assert "QUIZBOT_WEB_SECRET must be at least 32 bytes, got 3" in err and "\n" not in err


async def test_a_refusal_is_counted_not_logged_and_a_kept_credential_still_expires(
        served: Served, caplog: pytest.LogCaptureFixture) -> None:
    served.web.learners = RateLimit(5, served.clock)  # a burst of 5, then one in 12 s
    metrics = Metrics()
    served.web.refused = metrics.rate_limited
    ada = served.tma(1, "Ada")
    with caplog.at_level(logging.DEBUG):
        statuses = [(await served.get("/api/me", ada))[0] for _ in range(8)]
    assert statuses == [200] * 5 + [429] * 3
    assert [r.getMessage() for r in caplog.records if r.name.startswith("bot.")] == []
    assert 'quizbot_web_rate_limited_total{limit="learner"} 3.0' in (
        metrics.exposition().decode())
    # Ada's init data was verified once and is looked up since; it still stops counting a
    # day after its auth_date.
    served.clock.advance(INIT_DATA_MAX_AGE + 1)
    assert (await served.get("/api/me", ada))[0] == 401


async def test_at_most_api_workers_requests_are_worked_on_at_once(served: Served) -> None:
    """Requests within the limits take turns: while API_WORKERS wait on Telegram, the rest
    wait for a turn instead of piling onto the database and the bot's API."""
    arrived, go = asyncio.Event(), asyncio.Event()
    inside: list[str] = []

    class Counting(RateLimit):
        taken = 0

        def take(self, key: str) -> int:
            Counting.taken += 1
            if Counting.taken == API_WORKERS + 2:
                arrived.set()
            return super().take(key)

    async def slow_check(group: str, user: str) -> Role:
        inside.append(user)
        await go.wait()
        return Role(True)

    served.web.addresses = Counting(600, served.clock)
    served.memberships.provide("telegram", slow_check)
    asks = [asyncio.create_task(served.get(f"/api/groups/{GROUP}", served.tma(n, f"L{n}")))
            for n in range(1, API_WORKERS + 3)]
    await asyncio.wait_for(arrived.wait(), 10)
    # Every request got past its buckets (nothing between them and their turn awaits):
    # API_WORKERS are asking Telegram, two wait their turn.
    assert len(inside) == API_WORKERS
    go.set()
    assert [status for status, _ in await asyncio.gather(*asks)] == [200] * (API_WORKERS + 2)
    assert len(inside) == API_WORKERS + 2
