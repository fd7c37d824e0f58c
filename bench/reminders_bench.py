"""Reminder fan-out: N learners with a reminder at the same minute, Telegram's 30 msg/s.

Two parts, both through the real scheduler (`bot.features.jobs`), reminder handler
(`bot.features.reminders`) and SQLite store:

1. simulated (default 100,000 learners): the clock is simulated, the sender enforces
   30 messages a second in simulated time and counts violations. Reports the simulated
   time until the last reminder and the wall time the machinery needed (its headroom).
2. wire (default 300 learners): the real python-telegram-bot `Bot` against the fake Bot
   API on 127.0.0.1, which answers 429 to any send beyond 30 in a sliding second; real
   clock. Reports the time to the last send, the achieved rate and the 429s.

    python bench/reminders_bench.py [--learners 100000] [--wire 300]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from telegram import Bot  # noqa: E402
from telegram.request import HTTPXRequest  # noqa: E402

from adapters.telegram.adapter import deliver_reminder  # noqa: E402
from bot.app.compose import build_engine  # noqa: E402
from bot.domain.quiz import default_content_dir, load_quizzes  # noqa: E402
from bot.domain.stats_results import ReminderNote  # noqa: E402
from bot.features.jobs import Scheduler  # noqa: E402
from bot.features.reminders import Delivery, Reminders, Sent  # noqa: E402
from bot.features.review import reminder_kind  # noqa: E402
from bot.store.sqlite import SQLiteStore  # noqa: E402
from tests.adapters.telegram.fake_bot_api import FakeBotAPI  # noqa: E402
from tests.adapters.telegram.wire import ApiError  # noqa: E402

RATE = 30.0
MINUTE = 1_767_000_000.0  # the reminder minute (epoch seconds)
TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"


class SimClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now = max(self.now, self.now + max(0.0, seconds))


class LimitedSender:
    """Accepts a send only if fewer than RATE went out in the last (simulated) second."""

    def __init__(self, clock: SimClock) -> None:
        self.clock = clock
        self.window: collections.deque[float] = collections.deque()
        self.sent = self.refused = 0
        self.first = self.last = 0.0

    async def __call__(self, note: ReminderNote) -> Sent:
        now = self.clock()
        while self.window and self.window[0] <= now - 1.0 + 1e-6:  # epoch-sized floats
            self.window.popleft()
        if len(self.window) >= RATE:
            self.refused += 1
            return Sent(Delivery.RETRY, 1.0)
        self.window.append(now)
        if not self.sent:
            self.first = now
        self.sent += 1
        self.last = now
        return Sent(Delivery.SENT)


def seed(path: Path, learners: int, platform: str = "telegram") -> None:
    """Learners with one due card and a reminder job at MINUTE, written with plain SQL."""
    db = sqlite3.connect(path)
    try:
        with db:
            ids = [str(10_000 + i) for i in range(learners)]
            db.executemany("INSERT INTO users (platform, user_id, display_name, created_at) "
                           "VALUES (?, ?, '', 0)", [(platform, u) for u in ids])
            db.executemany("INSERT INTO cards (platform, user_id, quiz_id, question_id, card, "
                           "due_at, reviews, updated_at) "
                           "VALUES (?, ?, 'parallelism', 'q', '{}', 0, 1, 0)",
                           [(platform, u) for u in ids])
            db.executemany("INSERT INTO learner_settings (platform, user_id, remind_at) "
                           "VALUES (?, ?, 0)", [(platform, u) for u in ids])
            db.executemany(
                "INSERT INTO jobs (kind, key, due_at, payload) VALUES (?, ?, ?, ?)",
                [(reminder_kind(platform), f"remind:{platform}:{u}", MINUTE,
                  f'{{"platform": "{platform}", "user_id": "{u}"}}') for u in ids])
    finally:
        db.close()


async def open_store(path: Path) -> SQLiteStore:
    store = await SQLiteStore.open(path, synchronous="NORMAL")
    return store


async def simulated(learners: int, rate: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        store = await open_store(path)  # creates the schema
        await store.close()
        seed(path, learners)
        store = await open_store(path)
        clock = SimClock(MINUTE)
        sender = LimitedSender(clock)
        engine = build_engine(store, load_quizzes([default_content_dir()]), clock=clock)
        reminders = Reminders(engine, {"telegram": sender}, clock=clock, sleep=clock.sleep,
                              rates={"telegram": rate})
        scheduler = Scheduler(store, {reminder_kind("telegram"): reminders}, clock=clock, batch=30)
        started = time.perf_counter()
        await scheduler.run_until_idle()
        wall = time.perf_counter() - started
        await store.close()
    span = sender.last - MINUTE
    print(f"simulated: {learners} reminders at one minute, paced at {rate:g}/s, "
          f"limit {RATE:.0f}/s")
    print(f"  sent {sender.sent}, refused by the limit {sender.refused}")
    print(f"  last sent {span:.1f} s = {span / 60:.1f} min after the minute "
          f"(floor {(learners - 1) / RATE / 60:.1f} min)")
    print(f"  wall time {wall:.1f} s: the machinery alone does {learners / wall:.0f} "
          f"reminders/s, {learners / wall / RATE:.0f}x the platform limit")


class LimitedFake(FakeBotAPI):
    """The fake Bot API with Telegram's ~30 messages/s enforced on sendMessage."""

    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.window: collections.deque[float] = collections.deque()
        self.refused = 0
        self.sent_at: list[float] = []

    async def _api_sendMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        now = time.monotonic()
        while self.window and self.window[0] <= now - 1.0:
            self.window.popleft()
        if len(self.window) >= RATE:
            self.refused += 1
            raise ApiError(429, "Too Many Requests: retry after 1", {"retry_after": 1})
        self.window.append(now)
        self.sent_at.append(now)
        return await super()._api_sendMessage(params)


async def wire(learners: int, rate: float) -> None:
    async with LimitedFake(TOKEN) as api:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.db"
            store = await open_store(path)
            await store.close()
            seed(path, learners)
            store = await open_store(path)
            bot = Bot(TOKEN, base_url=api.base_url,
                      request=HTTPXRequest(connection_pool_size=64))
            await bot.initialize()
            start = time.time()

            async def send(note: ReminderNote) -> Sent:
                return await deliver_reminder(bot, int(note.user_id), "due", None)

            engine = build_engine(store, load_quizzes([default_content_dir()]),
                                  clock=lambda: time.time() - start + MINUTE)
            reminders = Reminders(engine, {"telegram": send}, rates={"telegram": rate})
            scheduler = Scheduler(store, {reminder_kind("telegram"): reminders},
                                  clock=engine.clock, batch=30)
            began = time.monotonic()
            deadline = began + learners / RATE * 3 + 30  # bounded, whatever happens
            while len(api.sent_at) < learners and time.monotonic() < deadline:
                if not await scheduler.tick():
                    await asyncio.sleep(0.05)
            span = (api.sent_at[-1] - began) if api.sent_at else float("nan")
            await bot.shutdown()
            await store.close()
    achieved = (len(api.sent_at) - 1) / span if span else 0.0
    print(f"wire: {learners} reminders through python-telegram-bot to the fake Bot API "
          f"(30/s enforced), paced at {rate:g}/s")
    print(f"  delivered {len(api.sent_at)}, 429s {api.refused}, last after {span:.1f} s "
          f"({achieved:.1f}/s); at that rate 100,000 take {100_000 / achieved / 60:.1f} min")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=100_000)
    parser.add_argument("--wire", type=int, default=300)
    parser.add_argument("--rates", default="30,28", help="pacing rates to compare")
    args = parser.parse_args()
    for rate in (float(r) for r in args.rates.split(",")):
        asyncio.run(simulated(args.learners, rate))
        if args.wire:
            asyncio.run(wire(args.wire, rate))


if __name__ == "__main__":
    main()
