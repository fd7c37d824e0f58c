"""Telegram adapter benchmark: concurrent learners tapping through the fake Bot API.

    python bench/telegram_bench.py [--learners 100 500]

Each learner sends /quiz and taps through the whole quiz. Three load shapes: "burst" learners
all tap at the same moment, question after question (a study group told "go"), "closed" learners
tap the instant the next question arrives (saturation: latency is mostly queueing, and a
bot that sends more messages per tap queues longer), "paced" learners think 5-15 s before
each tap, as people reading a hard question do. Latency is measured on the fake server,
from the moment getUpdates hands a tap's update to the bot until the bot's
answerCallbackQuery for it arrives. The same learners then drive a bare python-telegram-bot
bot (no engine, no database) that only answers and edits, as a baseline for what PTB and
HTTP cost by themselves.

Each bot runs in its own process, so the fake server and the learners (this process) do not
share an event loop with the bot being measured. Both bots use AIORateLimiter with its
throttling off: the fake has no flood limits, and Telegram's real 30 messages/s would measure
Telegram, not us. Numbers, not assertions: tests never time anything.

--breakdown splits each tap's latency into stages (see bench/telegram_trace.py).
BENCH_SWITCHINTERVAL=SECONDS overrides the quizbot process's sys.setswitchinterval after
`runtime.settle()` (which sets 0.001; CPython's default is 0.005): how long the store's
threads may wait for the GIL while the loop runs.

BENCH_PROFILE=DIR profiles each bot's event-loop thread while it serves (cProfile on CPU time,
startup left out) into DIR/<bot>.pstats, e.g. `python -m pstats DIR/quizbot-100-full.pstats`;
with BENCH_SAMPLER=pyinstrument too (pip install pyinstrument), a sampled call tree (wall
time of the loop thread, without cProfile's per-call overhead) into DIR/<bot>.txt, and its
session for `pyinstrument --load DIR/<bot>.pyisession --show-all`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update  # noqa: E402
from telegram.ext import (  # noqa: E402
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)

from adapters.telegram import TelegramAdapter  # noqa: E402
from bench import telegram_trace  # noqa: E402
from bot.app import runtime  # noqa: E402
from bot.app.compose import open_app  # noqa: E402
from bot.app.config import TelegramConfig, load_config  # noqa: E402
from tests.adapters.telegram.fake_bot_api import Call, FakeBotAPI  # noqa: E402
from tests.adapters.telegram.learners import Learner, button_data, is_question  # noqa: E402

TOKEN = "424242:AAbenchmarkTokenNotARealOne_0123456"
TAPS_PER_BARE_LEARNER = 8  # as many taps as the quiz has questions
PACED = (5.0, 15.0)  # seconds a paced learner thinks before each tap
SWITCH = "BENCH_SWITCHINTERVAL"  # seconds: sys.setswitchinterval in the quizbot process
TRACE = "BENCH_TRACE"  # where a served bot writes its taps' marks (--breakdown)
WAIT = 120.0  # seconds a learner waits for one reply before the run is declared stuck


def unthrottled() -> AIORateLimiter:
    """PTB's limiter with retries on 429 but no flood-limit pacing."""
    return AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3)


# --- the bots (run with --serve in a child process) -------------------------------------------

async def until_signalled(name: str) -> None:
    """Serve until SIGINT/SIGTERM; under cProfile when BENCH_PROFILE names a folder."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    folder = os.environ.get("BENCH_PROFILE")
    if not folder:
        await stop.wait()
        return
    if os.environ.get("BENCH_SAMPLER") == "pyinstrument":  # sampled: no per-call overhead
        from pyinstrument import Profiler

        with Profiler(interval=0.0005, async_mode="disabled") as sampler:
            await stop.wait()
        sampler.last_session.save(os.path.join(folder, f"{name}.pyisession"))
        with open(os.path.join(folder, f"{name}.txt"), "w", encoding="utf-8") as out:  # noqa: ASYNC230
            out.write(sampler.output_text())
        return
    import cProfile  # only the bot started and serving: startup is not a tap's cost

    with cProfile.Profile(time.thread_time) as profile:  # CPU, not wall: the box is shared
        await stop.wait()
    profile.dump_stats(os.path.join(folder, f"{name}.pstats"))


async def serve_quizbot(config_path: Path) -> None:
    """The real adapter on the real engine and a SQLite file."""
    config = load_config(config_path)
    async with open_app(config) as app:
        adapter = TelegramAdapter(app, rate_limiter=unthrottled())
        await adapter.start()
        runtime.settle()  # as `quizbot run` does once started
        if os.environ.get(SWITCH):  # how soon a thread waiting for the GIL gets it
            sys.setswitchinterval(float(os.environ[SWITCH]))
        try:
            await until_signalled(config_path.stem)
        finally:
            await adapter.stop()


async def serve_bare(base_url: str, concurrency: int) -> None:
    """A bare PTB bot: /quiz sends buttons; a tap is answered and the message edited."""
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton(letter, callback_data=f"t:{i}")
                                      for i, letter in enumerate("ABCD")]])

    async def quiz(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.message is not None
        await update.message.reply_text("Question", reply_markup=keyboard)

    async def tap(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        await query.answer("ok")
        await query.edit_message_text(f"Tapped {query.data} ({query.id})", reply_markup=keyboard)

    application = (Application.builder().token(os.environ["TELEGRAM_BOT_TOKEN"])
                   .base_url(base_url).rate_limiter(unthrottled())
                   .concurrent_updates(concurrency).connection_pool_size(concurrency)
                   .pool_timeout(10.0).build())
    application.add_handler(CommandHandler("quiz", quiz))
    application.add_handler(CallbackQueryHandler(tap))
    async with application:
        await application.start()
        assert application.updater is not None
        await application.updater.start_polling(timeout=10, drop_pending_updates=False)
        try:
            await until_signalled("bare")
        finally:
            await application.updater.stop()
            await application.stop()


# --- the learners (this process) ------------------------------------------------------------

async def next_sent(inbox: asyncio.Queue[Call], method: str,
                    fits: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The next successful `method` call to this learner's chat whose result fits."""
    while True:
        call = await asyncio.wait_for(inbox.get(), WAIT)
        if call.method == method and isinstance(call.result, dict) and fits(call.result):
            return call.result


BURST = (-1.0, -1.0)  # the "pause" of a burst run: everyone taps at the same moment


async def think(user_id: int, seconds: tuple[float, float], rng: random.Random,
                together: asyncio.Barrier | None = None) -> None:
    if together is not None:
        await together.wait()  # every learner has their question: tap all at once
    elif seconds[1] > 0:
        await asyncio.sleep(rng.uniform(*seconds))


async def quiz_learner(api: FakeBotAPI, user_id: int, pause: tuple[float, float],
                       together: asyncio.Barrier | None = None) -> int:
    """Play the whole quiz, always tapping the first button; returns taps made."""
    learner = Learner(api, api.user(user_id, f"Learner {user_id}"))
    inbox = api.listen(learner.chat_id)
    rng = random.Random(user_id)
    await learner.send("/quiz parallelism")  # /quiz alone opens the catalogue
    question = await next_sent(inbox, "sendMessage", is_question)
    taps = 0
    while True:
        await think(user_id, pause, rng, together)
        await learner.tap(question, button_data(question)[0])
        taps += 1
        reply = await next_sent(inbox, "sendMessage", lambda m: is_question(m)
                                or m["text"].startswith("Finished"))
        if not is_question(reply):
            return taps
        question = reply


async def bare_learner(api: FakeBotAPI, user_id: int, pause: tuple[float, float],
                       together: asyncio.Barrier | None = None) -> int:
    """Tap the same message as many times as the quiz has questions, one edit at a time."""
    learner = Learner(api, api.user(user_id, f"Learner {user_id}"))
    inbox = api.listen(learner.chat_id)
    rng = random.Random(user_id)
    await learner.send("/quiz")
    message = await next_sent(inbox, "sendMessage", lambda m: bool(button_data(m)))
    for _ in range(TAPS_PER_BARE_LEARNER):
        await think(user_id, pause, rng, together)
        query_id = await learner.tap(message, "t:0")
        await next_sent(inbox, "editMessageText", lambda m, q=query_id: q in m["text"])
    return TAPS_PER_BARE_LEARNER


# --- a run ---------------------------------------------------------------------------------

async def run(kind: str, learners: int, workdir: Path, pause: tuple[float, float],
              synchronous: str = "full", trace: bool = False) -> dict[str, Any]:
    """Start the bot `kind` against a fresh fake, drive `learners` through it, measure."""
    async with FakeBotAPI(TOKEN) as api:
        config = workdir / f"{kind}-{learners}-{synchronous}.yaml"
        config.write_text(yaml.safe_dump({
            "storage": {"url": f"sqlite:///{workdir / f'{kind}-{learners}-{synchronous}.db'}",
                        "synchronous": synchronous},
            "telegram": {"api_base_url": api.base_url},
            "log_level": "WARNING",
        }), encoding="utf-8")
        args = (["--serve", "quizbot", "--config", str(config)] if kind == "quizbot"
                else ["--serve", "bare", "--base-url", api.base_url])
        env = {**os.environ, "TELEGRAM_BOT_TOKEN": TOKEN, "PTB_TIMEDELTA": "true"}
        marks = workdir / f"{kind}-{learners}-{synchronous}.marks.json"
        if trace:
            env[TRACE] = str(marks)
        proc = await asyncio.create_subprocess_exec(sys.executable, __file__, *args, env=env)
        try:
            await api.wait_for(lambda: api.calls_of("getUpdates") or proc.returncode is not None
                               or any(c.method == "getUpdates" for c in api.calls), 60)
            assert proc.returncode is None, f"{kind} bot exited at start"
            player: Callable[..., Awaitable[int]] = (
                quiz_learner if kind == "quizbot" else bare_learner)
            together = asyncio.Barrier(learners) if pause == BURST else None
            cpu0 = cpu_seconds(proc.pid)
            started = time.perf_counter()
            taps = sum(await asyncio.gather(*(player(api, 10_000 + i, pause, together)
                                              for i in range(learners))))
            wall = time.perf_counter() - started
            cpu = cpu_seconds(proc.pid) - cpu0
        finally:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(proc.wait(), 30)
                except TimeoutError:
                    proc.kill()
                    await proc.wait()
        calls = [c.method for c in api.calls if c.method != "getUpdates"]
        latencies = sorted(
            (api.answered[q] - api.handed_out[u]) * 1000
            for q, u in api.callback_update.items() if q in api.answered and u in api.handed_out)
        handed = {q: api.handed_out[u] for q, u in api.callback_update.items()
                  if u in api.handed_out}
        answered = dict(api.answered)
    assert len(latencies) == taps, f"{taps} taps but {len(latencies)} answers"
    load = ("burst" if pause == BURST else "closed" if pause[1] == 0
            else f"{pause[0]:g}-{pause[1]:g}s")
    name = kind if kind == "bare" else f"{kind}/{synchronous}"
    return {"bot": name, "load": load, "learners": learners, "taps": taps, "wall": wall,
            "p50": statistics.median(latencies), "p99": percentile(latencies, 99),
            "max": latencies[-1], "calls": len(calls) / taps, "cpu": cpu / taps * 1000,
            "stages": telegram_trace.breakdown(marks, handed, answered) if trace else {},
            "engine": telegram_trace.engine_parts(marks) if trace else []}


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, all threads) process `pid` has used so far (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(sorted_values: list[float], pct: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    rank = max(1, round(pct / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def table(rows: list[dict[str, Any]]) -> str:
    head = (f"{'bot':<15} {'load':<8} {'learners':>8} {'taps':>6} {'p50 ms':>8} {'p99 ms':>8} "
            f"{'max ms':>8} {'wall s':>7} {'taps/s':>7} {'calls/tap':>9} {'cpu ms/tap':>10}")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['bot']:<15} {r['load']:<8} {r['learners']:>8} {r['taps']:>6} "
                     f"{r['p50']:>8.1f} {r['p99']:>8.1f} {r['max']:>8.1f} {r['wall']:>7.2f} "
                     f"{r['taps'] / r['wall']:>7.0f} {r['calls']:>9.2f} {r['cpu']:>10.2f}")
    return "\n".join(lines)


async def bench(sizes: list[int], pauses: list[tuple[float, float]], syncs: list[str],
                trace: bool = False) -> None:
    rows = []
    with tempfile.TemporaryDirectory(prefix="tg-bench-") as tmp:
        for pause in pauses:
            for learners in sizes:
                for kind, sync in [*(("quizbot", s) for s in syncs), ("bare", "full")]:
                    rows.append(await run(kind, learners, Path(tmp), pause, sync, trace))
                    print(table(rows[-1:]).splitlines()[-1], flush=True)
                    if rows[-1]["stages"]:
                        print("  p50/p99 ms:", telegram_trace.line(rows[-1]["stages"]),
                              flush=True)
                    for part, numbers in rows[-1]["engine"]:
                        print(f"  {part:<22} {numbers}", flush=True)
    print()
    print("Tap latency: getUpdates hands the update out -> the bot's answerCallbackQuery.")
    print("calls/tap: Bot API calls other than getUpdates (the /quiz that starts one included);")
    print("cpu ms/tap: the bot process's CPU (user + system, all threads) while learners played.")
    print(table(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--load", choices=("closed", "paced", "burst", "both", "all"),
                        default="all")
    parser.add_argument("--think", type=float, nargs=2, default=PACED, metavar=("MIN", "MAX"),
                        help="seconds a paced learner thinks before each tap")
    parser.add_argument("--synchronous", nargs="+", choices=("full", "normal"),
                        default=["full", "normal"], help="quizbot's storage.synchronous runs")
    parser.add_argument("--breakdown", action="store_true",
                        help="split each tap's latency into stages (bench/telegram_trace.py)")
    parser.add_argument("--serve", choices=("quizbot", "bare"), help=argparse.SUPPRESS)
    parser.add_argument("--config", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if os.environ.get("BENCH_PROFILE"):
        Path(os.environ["BENCH_PROFILE"]).mkdir(parents=True, exist_ok=True)
    if args.serve and os.environ.get(TRACE):
        telegram_trace.install(os.environ[TRACE], quizbot=args.serve == "quizbot")
    if args.serve == "quizbot":
        asyncio.run(serve_quizbot(args.config))
    elif args.serve == "bare":
        asyncio.run(serve_bare(args.base_url, TelegramConfig.concurrent_updates))
    else:
        paced = (args.think[0], args.think[1])
        pauses = {"closed": [(0.0, 0.0)], "paced": [paced], "burst": [BURST],
                  "both": [(0.0, 0.0), paced], "all": [BURST, (0.0, 0.0), paced]}[args.load]
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(bench(args.learners, pauses, args.synchronous, args.breakdown))


if __name__ == "__main__":
    main()
