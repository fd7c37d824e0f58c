"""`quizbot run` as a real process: killed with SIGKILL mid-quiz, restarted, it resumes;
a tap redelivered after the crash counts once; the token stays out of stderr."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO

import pytest

from bot.domain.results import Actor
from bot.store.commands import sessions_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, is_question
from tests.adapters.telegram.support import SECRET_PART, TOKEN, AnswerKey, write_config

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def stderr_log(tmp_path: Path) -> Iterator[IO[bytes]]:
    with (tmp_path / "stderr.log").open("w+b") as fh:
        yield fh


@asynccontextmanager
async def quizbot(config: Path, api: FakeBotAPI, stderr: IO[bytes],
                  ) -> AsyncIterator[asyncio.subprocess.Process]:
    """`python -m adapters.cli run --config PATH`, ready once it polls; SIGKILLed if still alive."""
    since = len(api.calls)
    env = {"TELEGRAM_BOT_TOKEN": TOKEN, "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli", "run", "--config", str(config),
        cwd=str(config.parent), env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=stderr, stderr=stderr)
    try:
        await api.wait_for(lambda: any(c.method == "getUpdates" for c in api.calls[since:])
                           or proc.returncode is not None, timeout=90, what="quizbot to poll")
        assert proc.returncode is None, "quizbot exited at start"
        yield proc
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()


async def answer(learner: Learner, question: dict, key: AnswerKey) -> dict | None:
    """Tap the right answer; return the next question (None after the last)."""
    since = learner.mark()
    number = int(question["text"].split("/")[0].split()[-1])
    await learner.press(question, key.right(question["text"]))
    if number == 8:
        await learner.reply(since, lambda m: m["text"].startswith("Finished"))
        return None
    return await learner.reply(since, lambda m: is_question(m)
                               and f"Question {number + 1}/8" in m["text"])


async def test_killed_process_resumes_and_counts_every_tap_once(
        tmp_path: Path, api: FakeBotAPI, key: AnswerKey, stderr_log: IO[bytes],
        process_content: Path) -> None:
    config = write_config(tmp_path, api, content=process_content)
    learner = Learner(api, api.user(1001, "Alice"))
    async with quizbot(config, api, stderr_log):
        since = learner.mark()
        await learner.send("/quiz parallelism")
        question = await learner.reply(since, is_question)
        for _ in range(3):
            question = await answer(learner, question, key)
        assert question is not None and "Question 4/8" in question["text"]
    # SIGKILLed: no goodbye getUpdates confirmed anything, no store closed cleanly.

    async with quizbot(config, api, stderr_log):
        question = await answer(learner, question, key)  # a button from the dead process
        assert question is not None and "Question 5/8" in question["text"]
        tap_id = await learner.press(question, key.right(question["text"]))
        update_id = api.callback_update[tap_id]
        await api.wait_for(lambda: update_id in api.handed_out, what="the tap handed out")
        proc_kill_time = len(api.calls)
    assert proc_kill_time  # killed right after Telegram handed the tap over

    async with quizbot(config, api, stderr_log) as proc:
        since = learner.mark()
        await learner.send("/quiz parallelism")  # wherever the crash left us: question 5 or 6
        current = await learner.reply(since, is_question)
        while current is not None:
            current = await answer(learner, current, key)
        until = await learner.barrier()
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 15) == 0

    finished = [c for c in learner.sent(0, until, methods=("sendMessage",))
                if c.result["text"].startswith("Finished")]
    assert len(finished) == 1 and "8/8" in finished[0].result["text"]
    feedback = [c for c in learner.sent(0, until, methods=("editMessageText",))
                if "✅ Correct!" in c.result["text"]]
    assert len(feedback) <= 8  # a redelivered tap never explains itself twice

    from bot.app.config import load_config
    from bot.store.sqlite import SQLiteStore
    store = await SQLiteStore.open(load_config(config, env={}).storage_url)
    try:
        attempts, best, last = await store.read(sessions_sql.attempts,
                                                "telegram", "1001", "parallelism")
        assert (attempts, best, last) == (1, 8, 8)
        session = await store.read(sessions_sql.last_finished, "telegram", "1001", "parallelism")
        assert session is not None
        assert len(await store.read(sessions_sql.answers, session.id)) == 8
    finally:
        await store.close()
    assert Actor  # the engine's identity for this learner is telegram:1001

    stderr_log.seek(0)
    stderr = stderr_log.read().decode("utf-8", "replace")
    assert "getUpdates" in stderr  # DEBUG logging was on
    assert "runtime settled: " in stderr  # tuned for serving once started (bot/app/runtime)
    assert TOKEN not in stderr and SECRET_PART not in stderr


async def test_rejected_token_exits_with_a_message_that_does_not_quote_it(
        tmp_path: Path, api: FakeBotAPI, stderr_log: IO[bytes], process_content: Path) -> None:
    wrong = "999:AAWrongTokenWrongTokenWrongToken"
    env = {"TELEGRAM_BOT_TOKEN": wrong, "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli", "run", "--config",
        str(write_config(tmp_path, api, content=process_content)),
        cwd=str(tmp_path), env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=stderr_log, stderr=stderr_log)
    assert await asyncio.wait_for(proc.wait(), 30) != 0
    stderr_log.seek(0)
    stderr = stderr_log.read().decode("utf-8", "replace")
    assert "TELEGRAM_BOT_TOKEN was rejected" in stderr
    assert wrong not in stderr and wrong.split(":")[1] not in stderr


async def test_revoked_token_makes_quizbot_exit(tmp_path: Path, api: FakeBotAPI,
                                               stderr_log: IO[bytes], process_content: Path
                                               ) -> None:
    async with quizbot(write_config(tmp_path, api, content=process_content), api,
                       stderr_log) as proc:
        await api.revoke()
        assert await asyncio.wait_for(proc.wait(), 15) != 0  # no idling without a bot
    stderr_log.seek(0)
    stderr = stderr_log.read().decode("utf-8", "replace")
    assert TOKEN not in stderr and SECRET_PART not in stderr
