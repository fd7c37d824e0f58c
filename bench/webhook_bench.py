"""Webhook benchmark: memory under big unauthenticated POSTs, and tap latency through the
inbox against the same bot polling, in one run.

    python bench/webhook_bench.py [--learners 50] [--posts 8] [--mb 20] [--root PATH]

One `quizbot run` process (SQLite, `telegram.webhook.register: false`) against the fake Bot
API in this process. Memory: its VmRSS once ready, then its peak (VmHWM) after `--posts`
POSTs of `--mb` MB each, all at once, without the secret. Latency: `--learners` learners send
/quiz and tap through the quiz all at the same moment, question after question; a tap's
latency is from the POST (webhook) or from getUpdates handing it out (polling, the same bot
in polling mode: the baseline) to the bot's answerCallbackQuery reaching the fake.
`--root` runs another checkout's code (e.g. an older commit, for before/after numbers).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from bot.domain.quiz import default_content_dir, load_quizzes  # noqa: E402
from tests.adapters.telegram.fake_bot_api import FakeBotAPI  # noqa: E402
from tests.adapters.telegram.learners import Learner, buttons, is_question  # noqa: E402
from tests.adapters.telegram.support import AnswerKey, free_port  # noqa: E402
from tests.scale.workers import Worker, write_yaml  # noqa: E402

TOKEN = "424242:AAbenchmarkTokenNotARealOne_0123456"
SECRET = "bench-secret-123"
HEADER = "X-Telegram-Bot-Api-Secret-Token"


def vm(pid: int, field: str) -> float:
    """VmRSS / VmHWM of a process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise LookupError(field)


async def start(api: FakeBotAPI, work: Path, mode: str, code: Path) -> tuple[Worker, int]:
    port = free_port()
    config = write_yaml(work / f"{mode}.yaml", {
        "storage": {"url": f"sqlite:///{work / (mode + '.db')}"},
        "telegram": {"api_base_url": api.base_url, "mode": mode, "concurrent_updates": 64,
                     "webhook": {"listen": "127.0.0.1", "port": port, "url_path": "tg",
                                 "public_url": "https://bench.example/tg",
                                 "secret_token": SECRET, "register": False}},
        "discord": {"enabled": False}, "log_level": "INFO"})
    worker = Worker(mode, config, {"TELEGRAM_BOT_TOKEN": TOKEN, "PYTHONPATH": str(code)})
    await worker.start(ready="webhook listening" if mode == "webhook" else "running (polling)")
    return worker, port


async def big_posts(port: int, posts: int, mb: int) -> list[str]:
    """POST `posts` bodies of `mb` MB at once, without the secret; what each got."""
    chunk = b"x" * (1 << 20)

    async def body() -> Any:
        for _ in range(mb):
            yield chunk

    async def one(http: aiohttp.ClientSession) -> str:
        try:
            async with http.post(f"http://127.0.0.1:{port}/tg", data=body(),
                                 headers={"Content-Length": str(mb << 20)}) as response:
                return str(response.status)
        except aiohttp.ClientError as exc:  # closed while we were still sending
            return type(exc).__name__

    async with aiohttp.ClientSession() as http:
        return list(await asyncio.gather(*(one(http) for _ in range(posts))))


async def burst(api: FakeBotAPI, key: AnswerKey, learners: int, port: int | None,
                first_uid: int) -> list[float]:
    """Every learner taps through the quiz at once, question after question; latencies."""
    people = [Learner(api, api.user(first_uid + i, f"L{i}")) for i in range(learners)]
    sent_at: dict[str, float] = {}
    ids = iter(range(first_uid * 100, first_uid * 100 + 100000))
    async with aiohttp.ClientSession() as http:
        async def deliver(update: dict[str, Any]) -> None:
            if port is None:
                await api.push_update(update)
                return
            update = {"update_id": next(ids), **update}
            if "callback_query" in update:
                api.callback_update[update["callback_query"]["id"]] = update["update_id"]
                sent_at[update["callback_query"]["id"]] = time.perf_counter()
            async with http.post(f"http://127.0.0.1:{port}/tg", json=update,
                                 headers={HEADER: SECRET}) as response:
                assert response.status == 200, response.status

        async def begin(p: Learner) -> dict[str, Any]:
            since = p.mark()
            await deliver(api.message(p.user, "/quiz parallelism"))
            return await p.reply(since, is_question, timeout=120)

        questions = await asyncio.gather(*(begin(p) for p in people))
        latencies: list[float] = []
        for number in range(1, 9):
            async def tap(p: Learner, q: dict[str, Any], number: int = number) -> Any:
                since = p.mark()
                current = api.messages[(p.chat_id, q["message_id"])]
                data = next(b["callback_data"] for row in buttons(current) for b in row
                            if b["text"] == key.right(q["text"]))
                update = api.callback(p.user, current, data)
                qid = update["callback_query"]["id"]
                await deliver(update)
                await api.wait_for(lambda: qid in api.answered, timeout=120, what="ack")
                start = sent_at.get(qid) if port is not None else api.handed_out.get(
                    api.callback_update[qid])
                latencies.append(api.answered[qid] - float(start or 0))
                if number == 8:
                    return q
                return await p.reply(since, lambda m: is_question(m)
                                     and f"Question {number + 1}/" in m["text"], timeout=120)
            questions = list(await asyncio.gather(*(tap(p, q) for p, q in
                                                    zip(people, questions, strict=True))))
    return sorted(latencies)


def pct(values: list[float], p: float) -> float:
    return values[min(len(values) - 1, int(p / 100 * len(values)))] * 1000


async def bench(args: argparse.Namespace) -> None:
    key = AnswerKey(load_quizzes([default_content_dir()])["parallelism"])
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeBotAPI(TOKEN) as api:
            worker, port = await start(api, Path(tmp), "webhook", args.root)
            try:
                assert worker.proc is not None
                pid = worker.proc.pid
                rss = vm(pid, "VmRSS")
                got = await big_posts(port, args.posts, args.mb)
                peak = vm(pid, "VmHWM")
                print(f"{args.posts} x {args.mb} MB unauthenticated POSTs: {sorted(set(got))}; "
                      f"RSS {rss:.0f} MB before, peak {peak:.0f} MB")
                hook = await burst(api, key, args.learners, port, 10_000)
            finally:
                await worker.stop()
            worker, _ = await start(api, Path(tmp), "polling", args.root)
            try:
                poll = await burst(api, key, args.learners, None, 20_000)
            finally:
                with contextlib.suppress(Exception):
                    await worker.stop()
    print(f"\n{args.learners} learners x 8 taps, burst; ack latency in ms")
    print("| mode | p50 | p90 | p99 | max | mean |")
    print("|---|---|---|---|---|---|")
    for name, values in (("webhook (inbox)", hook), ("polling (baseline)", poll)):
        print(f"| {name} | {pct(values, 50):.1f} | {pct(values, 90):.1f} | "
              f"{pct(values, 99):.1f} | {values[-1] * 1000:.1f} | "
              f"{statistics.mean(values) * 1000:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=50)
    parser.add_argument("--posts", type=int, default=8)
    parser.add_argument("--mb", type=int, default=20)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to run")
    asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    main()
