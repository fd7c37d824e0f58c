"""Operations against the real PTB and the fake Bot API: /healthz and /metrics scraped over
HTTP, SIGTERM with an answer in flight, and the Dockerfile's own command and health check."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import signal
import sqlite3
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from adapters.telegram import TelegramAdapter
from bot.app.compose import open_app
from bot.app.config import load_config
from bot.app.metrics import Health, serve
from bot.store.commands import sessions_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, is_question
from tests.adapters.telegram.support import (
    SECRET_PART,
    TOKEN,
    AnswerKey,
    free_port,
    write_config,
)

ROOT = Path(__file__).resolve().parents[3]


def with_metrics(config: Path, port: int, **more: Any) -> Path:
    data = yaml.safe_load(config.read_text())
    data.update({"metrics": {"port": port}, **more})
    config.write_text(yaml.safe_dump(data))
    return config


async def get(port: int, path: str) -> tuple[int, str, str]:
    """(status, content type, body) of GET http://127.0.0.1:port/path."""
    async with aiohttp.ClientSession() as http, \
            http.get(f"http://127.0.0.1:{port}{path}") as response:
        return response.status, response.headers["Content-Type"], await response.text()


async def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics, keyed by (name, sorted labels)."""
    status, ctype, body = await get(port, "/metrics")
    assert status == 200 and ctype.startswith("text/plain; version=")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(body) for s in family.samples}


def sample(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def answer_right(learner: Learner, question: dict[str, Any], key: AnswerKey
                       ) -> dict[str, Any]:
    since = learner.mark()
    await learner.press(question, key.right(question["text"]))
    number = int(question["text"].split("/")[0].split()[-1])
    return await learner.reply(since, lambda m: is_question(m)
                               and f"Question {number + 1}/8" in m["text"])


async def test_healthz_and_metrics_follow_the_bot(tmp_path: Path, api: FakeBotAPI,
                                                  key: AnswerKey) -> None:
    port = free_port()
    config = load_config(with_metrics(write_config(tmp_path, api), port),
                         env={"TELEGRAM_BOT_TOKEN": TOKEN})
    assert config.metrics.listen == "127.0.0.1"
    async with open_app(config) as app:
        adapter, started = TelegramAdapter(app), []
        health = Health(lambda: app.store.read(sessions_sql.get_session, 0), ["telegram"], started)
        async with serve(app.metrics, health, config.metrics.listen, port):
            status, _, body = await get(port, "/healthz")
            assert (status, body) == (503, "database: ok\ntelegram: not connected\n")

            await adapter.start()
            started.append(adapter)
            try:
                status, _, body = await get(port, "/healthz")
                assert (status, body) == (200, "database: ok\ntelegram: connected\n")
                before = await scrape(port)
                assert sample(before, "quizbot_answers_total",
                              platform="telegram", correct="true") == 0

                learner = Learner(api, api.user(2001, "Dana"))
                since = learner.mark()
                await learner.send("/quiz parallelism")
                question = await learner.reply(since, is_question)
                question = await answer_right(learner, question, key)
                api.inject("answerCallbackQuery", 400, "Bad Request: query is too old and "
                           "response timeout expired or query ID is invalid")
                since = learner.mark()
                await learner.press(question, key.wrong(question["text"]))
                await learner.reply(since, is_question)  # the answer still went through
                await learner.barrier()

                after = await scrape(port)
                assert sample(after, "quizbot_answers_total",
                              platform="telegram", correct="true") == 1
                assert sample(after, "quizbot_answers_total",
                              platform="telegram", correct="false") == 1
                assert sample(after, "quizbot_sessions_started_total", platform="telegram") == 1
                assert sample(after, "quizbot_platform_api_errors_total",
                              platform="telegram", kind="bad_request") == 1
                # One tap acknowledged; the second one's acknowledgement failed.
                assert sample(after, "quizbot_tap_ack_seconds_count", platform="telegram") == 1
                assert sample(after, "quizbot_tap_ack_seconds_sum", platform="telegram") > 0
                assert sample(after, "quizbot_db_commit_seconds_count") >= 3  # user, session,
                                                                              # two answers
                status, _, _ = await get(port, "/nope")
                assert status == 404
            finally:
                await adapter.stop()
            status, _, body = await get(port, "/healthz")
            assert (status, body) == (503, "database: ok\ntelegram: not connected\n")
        await app.store.close()  # the database stops answering
        health = Health(lambda: app.store.read(sessions_sql.get_session, 0), [], [])
        healthy, lines = await health.check()
        assert not healthy and lines[0].startswith("database: down")


class GatedAcks(FakeBotAPI):
    """A Bot API whose answerCallbackQuery waits for the test to open the gate."""

    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.gate = asyncio.Event()
        self.gate.set()

    async def _api_answerCallbackQuery(self, params: dict[str, Any]) -> bool:
        await self.gate.wait()
        return await super()._api_answerCallbackQuery(params)


class Lines:
    """Collects a process's stderr lines; waits for one that matches."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.lines: list[str] = []
        self._new = asyncio.Condition()
        self.task = asyncio.create_task(self._read(stream))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        async for raw in stream:
            async with self._new:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self._new.notify_all()
        async with self._new:
            self._new.notify_all()

    async def wait_for(self, pattern: str, timeout: float = 15) -> str:  # noqa: ASYNC109
        regex = re.compile(pattern)

        async def find() -> str:
            async with self._new:
                while True:
                    hit = next((line for line in self.lines if regex.search(line)), None)
                    if hit is not None:
                        return hit
                    if self.task.done():
                        raise AssertionError(f"process ended without {pattern!r}")
                    await self._new.wait()
        return await asyncio.wait_for(find(), timeout)


@asynccontextmanager
async def process(argv: list[str], cwd: Path, api: FakeBotAPI, env: dict[str, str] | None = None,
                  ) -> AsyncIterator[tuple[asyncio.subprocess.Process, Lines]]:
    """Start `argv`; ready once it polls the fake. SIGKILLed if still alive at the end."""
    since = len(api.calls)
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=str(cwd), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        env={"TELEGRAM_BOT_TOKEN": TOKEN, "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
             **(env or {})})
    assert proc.stderr is not None
    lines = Lines(proc.stderr)
    try:
        await api.wait_for(lambda: any(c.method == "getUpdates" for c in api.calls[since:])
                           or proc.returncode is not None, timeout=90, what="the bot to poll")
        assert proc.returncode is None, "\n".join(lines.lines)
        yield proc, lines
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()
        await lines.task


async def test_sigterm_finishes_the_answer_in_flight_and_exits_0(
        tmp_path: Path, key: AnswerKey, process_content: Path) -> None:
    async with GatedAcks(TOKEN) as api:
        config = with_metrics(write_config(tmp_path, api, content=process_content),
                              free_port(), log_format="json")
        argv = [sys.executable, "-m", "adapters.cli", "run", "--config", str(config)]
        async with process(argv, tmp_path, api) as (proc, lines):
            learner = Learner(api, api.user(3001, "Eve"))
            since = learner.mark()
            await learner.send("/quiz parallelism")
            question = await learner.reply(since, is_question)

            api.gate.clear()
            since = learner.mark()
            tap = await learner.press(question, key.right(question["text"]))
            await api.wait_for(lambda: any(
                c.method == "answerCallbackQuery" and c.params.get("callback_query_id") == tap
                for c in api.calls[since:]), what="the ack to be in flight")
            sent = time.perf_counter()
            proc.send_signal(signal.SIGTERM)
            await lines.wait_for(r'"message": "shutting down"')  # no more updates taken
            api.gate.set()
            code = await asyncio.wait_for(proc.wait(), 15)
            stop_seconds = time.perf_counter() - sent
        assert code == 0, "\n".join(lines.lines[-20:])

        # Acknowledged, and the turn ran to its end: feedback and the next question.
        assert tap in api.answered
        edits = [c.result["text"] for c in learner.sent(since, methods=("editMessageText",))]
        texts = [c.result["text"] for c in learner.sent(since, methods=("sendMessage",))]
        assert any("✅ Correct!" in t for t in edits)  # the question, turned into its result
        assert any("Question 2/8" in t for t in texts)
        db = sqlite3.connect(tmp_path / "quiz.db")
        try:
            assert db.execute("SELECT position, correct FROM answers").fetchall() == [(0, 1)]
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finally:
            db.close()
        assert not (tmp_path / "quiz.db-wal").exists()  # closed cleanly (checkpointed)

        records = [json.loads(line) for line in lines.lines]  # every line is one object
        assert {"time", "level", "logger", "message"} <= set(records[0])
        assert any(r["message"] == "stopped" for r in records[-3:])
        assert all(TOKEN not in line and SECRET_PART not in line for line in lines.lines)
        assert any(r.get("platform") == "telegram" for r in records)
        assert stop_seconds < 10, f"stopped in {stop_seconds:.1f} s"
        print(f"SIGTERM to exit 0 with an answer in flight: {stop_seconds:.2f} s")


def dockerfile() -> tuple[dict[str, str], list[str], list[str], dict[str, str]]:
    """ENV, CMD and HEALTHCHECK CMD of deploy/Dockerfile (exec form only), and the files
    its `COPY <<EOF path` here-documents write."""
    text = (ROOT / "deploy" / "Dockerfile").read_text().replace("\\\n", " ")
    env: dict[str, str] = {}
    cmd: list[str] = []
    health: list[str] = []
    files: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        word, _, rest = line.strip().partition(" ")
        if word == "COPY" and rest.startswith("<<EOF "):
            files[rest.split()[1]] = "\n".join(iter(lines.__next__, "EOF"))
            continue
        if word == "ENV":
            env.update(dict(pair.split("=", 1) for pair in shlex.split(rest)))
        elif word == "CMD":
            cmd = json.loads(rest)
        elif word == "HEALTHCHECK":
            health = json.loads(rest.split(" CMD ", 1)[1])
    return env, cmd, health, files


async def test_the_dockerfile_command_runs_healthy_and_stops_cleanly(
        tmp_path: Path, api: FakeBotAPI) -> None:
    env, cmd, health, files = dockerfile()
    assert cmd[:2] == ["quizbot", "run"] and cmd[-1] == "/etc/quizbot/config.yaml"
    # The image's config, with its paths under tmp_path (the container's /data is the
    # working directory) and the Bot API pointed at the fake.
    data = yaml.safe_load(files["/etc/quizbot/config.yaml"])
    assert data["storage"]["url"] == "sqlite:////data/quizbot.db"
    assert data["metrics"] == {"listen": "0.0.0.0", "port": 9090}
    port = free_port()
    data["storage"]["url"] = f"sqlite:///{tmp_path}/quizbot.db"
    data["metrics"]["port"] = port
    assert data["web"]["port"] == 8080 and data["web"]["public_url"]  # the dashboard is on
    data["web"]["port"] = free_port()
    data["telegram"] = {"api_base_url": api.base_url}
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(data))

    quizbot = str(Path(sys.executable).with_name("quizbot"))
    argv = [quizbot, *cmd[1:-1], str(config)]
    probe = [sys.executable if health[0] == "python" else health[0],
             *[a.replace(":9090/", f":{port}/") for a in health[1:]]]
    async with process(argv, tmp_path, api, env=env) as (proc, _):
        check = await asyncio.create_subprocess_exec(*probe)
        assert await asyncio.wait_for(check.wait(), 10) == 0  # healthy
        proc.send_signal(signal.SIGTERM)  # docker stop
        assert await asyncio.wait_for(proc.wait(), 10) == 0
    check = await asyncio.create_subprocess_exec(*probe, stderr=asyncio.subprocess.DEVNULL)
    assert await asyncio.wait_for(check.wait(), 10) != 0  # nobody answers: unhealthy
    assert (tmp_path / "quizbot.db").exists()


def comment_block(text: str, after: str) -> str:
    """The indented YAML in a file's comments, below the comment line ending in `after`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.endswith(after)) + 1
    block = []
    for line in lines[start:]:
        if not line.startswith("#   "):
            break
        block.append(line[4:])
    return "\n".join(block)


@pytest.mark.parametrize("unit", ["deploy/quizbot.service"])
def test_systemd_unit_is_hardened(unit: str, tmp_path: Path) -> None:
    text = (ROOT / unit).read_text()
    settings = dict(line.split("=", 1) for line in text.splitlines()
                    if "=" in line and not line.startswith("#"))
    assert settings["User"] == "quizbot" and settings["StateDirectory"] == "quizbot"
    assert settings["ProtectSystem"] == "strict" and settings["Restart"] == "on-failure"
    assert settings["EnvironmentFile"] == "/etc/quizbot/quizbot.env"
    assert "--config /etc/quizbot/config.yaml" in settings["ExecStart"]
    # the config lines the unit's header lists are a valid config of their own
    lines = comment_block(text, "running changes:")
    config = yaml.safe_load(lines)
    assert config["storage"]["url"] == "sqlite:////var/lib/quizbot/quizbot.db"
    (tmp_path / "systemd.yaml").write_text(lines)
    systemd = load_config(tmp_path / "systemd.yaml", env={})
    assert systemd.log_format == "json" and systemd.web.port == 8080  # the dashboard is on
    (tmp_path / "docker.yaml").write_text(dockerfile()[3]["/etc/quizbot/config.yaml"])
    assert load_config(tmp_path / "docker.yaml", env={}).metrics.port == 9090


def test_one_compose_file_with_a_profile_per_way_of_running(tmp_path: Path) -> None:
    compose = yaml.safe_load((ROOT / "deploy/compose.yaml").read_text())
    profiles = {name: set(service.get("profiles", ())) for name, service
                in compose["services"].items()}
    assert profiles == {"bot": {"bot"}, "postgres": {"postgres", "workers"},
                        "set-webhook": {"workers"}, "worker": {"workers"},
                        "nginx": {"bot", "workers"}}
    # the workers' config: compose fills ${PUBLIC_HOST:-...} in; the secret from the env
    content = compose["configs"]["worker"]["content"].replace(
        "${PUBLIC_HOST:-quiz.example.org}", "quiz.example.org")
    (tmp_path / "worker.yaml").write_text(content)
    config = load_config(tmp_path / "worker.yaml", env={"TELEGRAM_WEBHOOK_SECRET": "s"})
    assert config.telegram.mode == "webhook" and not config.telegram.webhook.register
    assert config.storage_url.startswith("postgresql://") and config.metrics.port == 9090
    nginx = (ROOT / "deploy/nginx.conf").read_text()
    assert "server 127.0.0.1:8443" in nginx  # the line compose's nginx points at `worker`
    assert "client_max_body_size 1m" in nginx
