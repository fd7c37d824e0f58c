"""`quizbot run` when the Bot API is down at start: a warning per try with backoff, then one
line and exit 1 after startup_timeout; and it starts normally once the API comes up."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import pytest
import yaml

from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.support import SECRET_PART, TOKEN, free_port

ROOT = Path(__file__).resolve().parents[3]
# Every wait on the child is on an event (a stderr line, a Bot API call, its exit) bounded by
# PATIENCE: a fresh interpreter importing quizbot takes ~1.5 s idle but 5-10 s on a loaded
# 2-core box, so tight bounds (15 s) failed there. Only a broken start-up reaches the bound.
PATIENCE = 120


def config_for(tmp_path: Path, port: int, timeout: float, content: Path) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({
        "storage": {"url": f"sqlite:///{tmp_path / 'quiz.db'}"},
        "content": {"dir": str(content)},
        "telegram": {"api_base_url": f"http://127.0.0.1:{port}/bot"},
        "discord": {"enabled": False},
        "startup_timeout": timeout,
    }))
    return path


async def start(config: Path) -> asyncio.subprocess.Process:
    env = {"TELEGRAM_BOT_TOKEN": TOKEN, "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli", "run", "--config", str(config),
        cwd=str(config.parent), env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)


async def test_unreachable_api_is_retried_then_one_line_and_exit_1(tmp_path: Path,
                                                                   process_content: Path):
    # 5 s of retries (0.5, 1, 2 s apart): room for 2+ tries even when each try is slow
    proc = await start(config_for(tmp_path, free_port(), timeout=5, content=process_content))
    assert proc.stderr is not None
    async with asyncio.timeout(PATIENCE):
        err = (await proc.stderr.read()).decode()
        assert await proc.wait() == 1
    warnings = [line for line in err.splitlines() if "WARNING" in line and "unreachable" in line]
    assert len(warnings) >= 2, err  # retried, one line per try
    assert all("retrying in" in w for w in warnings)
    final = [line for line in err.splitlines() if line.startswith("quizbot:")]
    assert len(final) == 1 and "could not be reached in 5 s" in final[0], err
    assert "Traceback" not in err and TOKEN not in err and SECRET_PART not in err


async def test_an_api_that_comes_up_during_the_retries_is_used(tmp_path: Path,
                                                               process_content: Path):
    port = free_port()
    # it must not give up while the test waits (30 s did, on a loaded box)
    proc = await start(config_for(tmp_path, port, timeout=3 * PATIENCE,
                                  content=process_content))
    assert proc.stderr is not None
    api = FakeBotAPI(TOKEN)
    try:
        async with asyncio.timeout(PATIENCE):
            while b"unreachable" not in (line := await proc.stderr.readline()):
                assert line, "quizbot exited before its first retry"
        await api.start(port)
        await api.wait_for(lambda: any(c.method == "getUpdates" for c in api.calls),
                           timeout=PATIENCE, what="quizbot to poll once the API is up")
        proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(PATIENCE):
            rest = (await proc.stderr.read()).decode()
            assert await proc.wait() == 0, rest
        assert "Traceback" not in rest and TOKEN not in rest and SECRET_PART not in rest
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await api.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_during_the_retries_stops_at_once_exit_0(tmp_path: Path, sig: int,
                                                                process_content: Path):
    # retries for far longer than PATIENCE: only a signal that stops them at once lets the
    # child exit within the bound (before, the signal waited for the retries to give up)
    proc = await start(config_for(tmp_path, free_port(), timeout=5 * PATIENCE,
                                  content=process_content))
    assert proc.stderr is not None
    try:
        async with asyncio.timeout(PATIENCE):
            while b"unreachable" not in (line := await proc.stderr.readline()):
                assert line, "quizbot exited before its first retry"
        proc.send_signal(sig)
        async with asyncio.timeout(PATIENCE):
            rest = (await proc.stderr.read()).decode()
            assert await proc.wait() == 0, rest
        assert "stopped during start-up" in rest, rest
        assert "Traceback" not in rest and "could not be reached" not in rest
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
