"""`quizbot run` on Discord as a real process: a rejected token is one line and exit 1; at
DEBUG, neither the bot token nor any interaction token reaches the log."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import yaml

from .conftest import ALICE, GUILD, PLAY, answer, replied, right_id, write_config
from .fake_discord import TOKEN, FakeDiscord

ROOT = Path(__file__).resolve().parents[3]


async def start(config: Path, token: str, stderr: Path) -> asyncio.subprocess.Process:
    env = {"DISCORD_BOT_TOKEN": token, "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    with stderr.open("wb") as fh:
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "adapters.cli", "run", "--config", str(config),
            cwd=str(config.parent), env=env, stdin=asyncio.subprocess.DEVNULL, stdout=fh,
            stderr=fh)


def with_debug(config: Path) -> Path:
    data = yaml.safe_load(config.read_text())
    config.write_text(yaml.safe_dump({**data, "log_level": "DEBUG"}))
    return config


async def test_rejected_token_is_one_line_and_exit_1(tmp_path: Path, fake: FakeDiscord,
                                                     process_content: Path):
    wrong = "wrong.discord.token-value-123"
    log = tmp_path / "stderr.log"
    proc = await start(write_config(tmp_path, fake, content=process_content), wrong, log)
    try:
        # start-up (imports, content, sampling) comes first: the same bound as the test below
        assert await asyncio.wait_for(proc.wait(), 30) == 1
    finally:  # a process left running fails the next test on this worker, not this one
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    err = log.read_text()
    ours = [line for line in err.splitlines() if line.startswith("quizbot:")]
    assert len(ours) == 1 and "DISCORD_BOT_TOKEN was rejected" in ours[0], err
    assert "Traceback" not in err and wrong not in err
    assert fake.identifies == []


async def test_debug_log_carries_no_bot_or_interaction_token(tmp_path: Path,
                                                             fake: FakeDiscord,
                                                             process_content: Path):
    log = tmp_path / "stderr.log"
    proc = await start(with_debug(write_config(tmp_path, fake, content=process_content)),
                       TOKEN, log)
    try:
        await fake.wait_for(lambda: fake.connected >= 1 or proc.returncode is not None,
                            timeout=30, what="quizbot on the gateway")
        assert proc.returncode is None, log.read_text()
        ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options=PLAY))
        assert ix.original is not None
        pressed = await answer(fake, ALICE, ix.original, right_id(ix.original))
        tokens = [ix.token, pressed.token]
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 15) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    err = log.read_text()
    assert "WebSocket Event" in err and "/interactions/" in err  # DEBUG was on
    assert "INTERACTION_CREATE" in err
    for secret in [TOKEN, *tokens]:
        assert secret not in err, secret
    # ids only: the learner's names (gateway events carry them) never reach the log
    assert ALICE["username"] not in err and ALICE["global_name"] not in err
