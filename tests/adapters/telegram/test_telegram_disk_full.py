"""A full disk while the bot runs on Telegram: the tap that could not be saved is not judged,
the learner is asked to try again, others are still served, and it recovers with space."""

from __future__ import annotations

from pathlib import Path

import yaml

from adapters.telegram import TelegramAdapter
from bot.app.compose import open_app
from bot.app.config import load_config
from bot.store.commands import sessions_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, is_question
from tests.adapters.telegram.support import TOKEN, AnswerKey
from tests.mounts import fill, tmpfs

SAVE_FAILED = "Your answer could not be saved"


async def test_full_disk_mid_quiz(tmp_path: Path, api: FakeBotAPI, key: AnswerKey) -> None:
    mnt = tmp_path / "small"
    with tmpfs(mnt, size="1m"):
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump({"storage": {"url": f"sqlite:///{mnt / 'q.db'}"},
                                        "telegram": {"api_base_url": api.base_url}}))
        config = load_config(path, env={"TELEGRAM_BOT_TOKEN": TOKEN})
        alice, bob = Learner(api, api.user(1001, "Alice")), Learner(api, api.user(1002, "Bob"))
        async with open_app(config) as app:
            adapter = TelegramAdapter(app)
            await adapter.start()
            try:
                since = alice.mark()
                await alice.send("/quiz parallelism")
                question = await alice.reply(since, is_question)
                await bob.barrier()  # Bob is known to the bot before the disk fills
                filler = fill(mnt)
                since = alice.mark()
                tap = await alice.press(question, key.right(question["text"]))
                toast = await alice.toast(tap)
                await alice.barrier()
                shown = [toast.params.get("text", "")] + [
                    c.result["text"] for c in alice.sent(since, methods=("sendMessage",))]
                assert any(SAVE_FAILED in s for s in shown), shown
                assert not any("Correct!" in s or "Not quite" in s for s in shown), shown
                await bob.barrier()  # others are still served
                filler.unlink()  # space returns: the same button now counts
                since = alice.mark()
                await alice.press(question, key.right(question["text"]))
                nxt = await alice.reply(since, lambda m: is_question(m)
                                        and "Question 2/8" in m["text"])
                assert nxt is not None
            finally:
                await adapter.stop()
            row = await app.store.read(sessions_sql.active_session,
                                       "telegram", "1001", "parallelism")
            assert row is not None and row.position == 1 and row.score == 1
