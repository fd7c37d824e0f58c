"""Discord burst benchmark: N members press a round question's buttons within a window.

    python bench/discord_burst.py [--members 300] [--window 2.0 0.2] [--profile OUT]
    python bench/discord_burst.py --inprocess --profile /tmp/burst.prof   # cProfile the bot

A round starts in the fake Discord's channel (tests/adapters/discord/fake_discord.py, REST
and gateway on 127.0.0.1, the real discord.py on the bot's side); when its first question is
posted, `--members` members press an answer, evenly spread over `--window` seconds (the
moment a question appears). Measured on the fake server: each press's ack latency, from the
fake sending INTERACTION_CREATE to the bot's interaction callback arriving (Discord wants it
within 3 s): p50, p99, max and the count over 3 s. The bot runs as `quizbot run` in its own
process (its own CPU, as in production) unless `--inprocess`, where it shares this loop with
the fake (and `--profile` writes a cProfile of everything). Numbers, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from tests.adapters.discord.fake_discord import TOKEN, FakeDiscord, Message, user  # noqa: E402

GUILD, CHANNEL = 1_400_000_000_000_000_001, 1_400_000_000_000_000_002
ALICE = user(1_500_000_000_000_000_001, "alice")
LIMIT = 3.0


def config(tmp: Path, fake: FakeDiscord, synchronous: str) -> Path:
    path = tmp / "config.yaml"
    path.write_text(yaml.safe_dump({
        "storage": {"url": f"sqlite:///{tmp / 'quiz.db'}", "synchronous": synchronous},
        "telegram": {"enabled": False},
        "discord": {"api_base_url": fake.api_base_url, "guild_ids": [GUILD]},
        "log_level": "WARNING",
    }))
    return path


async def question(fake: FakeDiscord, number: int, after: int) -> Message:
    """The round's question `number`, among the channel's messages from index `after` on."""
    def posted() -> Message | None:
        found = [m for m in fake.channel_messages[after:] if m.channel_id == CHANNEL
                 and m.embeds
                 and m.embeds[0].get("title", "").startswith(f"Round · Question {number}/")]
        return found[-1] if found else None
    return await fake.wait_for(posted, timeout=60, what=f"round question {number}")


async def burst(fake: FakeDiscord, members: int, window: float, base: int) -> list[float]:
    """Start a round, press its first question `members` times over `window` seconds."""
    before = len(fake.channel_messages)
    start = await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                             options={"seconds": 120, "questions": 1})
    await fake.wait_for(lambda: start.callback is not None, timeout=60, what="/round start")
    first = await question(fake, 1, before)
    ids = [b["custom_id"] for b in first.buttons]
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    pressed = []
    for i in range(members):
        at = t0 + window * i / members
        if (wait := at - loop.time()) > 0:
            await asyncio.sleep(wait)
        who = user(base + i, f"member{i:04d}")
        pressed.append(await fake.press(who, first, ids[i % len(ids)]))
    await fake.wait_for(lambda: all(ix.callback is not None for ix in pressed), timeout=120,
                        what="every ack")
    # and every press said what it did (after a deferred ack, in its follow-up)
    await fake.wait_for(lambda: all(ix.callback is not None and (
        ix.callback.type != 6 or ix.followups) for ix in pressed), timeout=120,
        what="every answer")
    latencies = [ix.callback.elapsed for ix in pressed if ix.callback is not None]
    kinds: dict[int, int] = {}
    for ix in pressed:
        if ix.callback is not None:
            kinds[ix.callback.type] = kinds.get(ix.callback.type, 0) + 1
    print(f"callback types {kinds}", end="; ")
    said = {str(ix.callback.data.get("content"))[:60] for ix in pressed
            if ix.callback is not None and ix.callback.type == 4}
    if said:
        print(f"said {said}", end="; ")
    stop = await fake.slash(ALICE, "round", guild=GUILD, subcommand="stop")
    await fake.wait_for(lambda: stop.callback is not None, timeout=60, what="/round stop")
    return latencies


def report(window: float, latencies: list[float], cpu: str) -> None:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    late = sum(1 for x in ordered if x > LIMIT)
    print(f"{len(ordered)} presses in {window:g} s: ack p50 {statistics.median(ordered):.3f} s, "
          f"p99 {p99:.3f} s, max {ordered[-1]:.3f} s, over {LIMIT:g} s: {late}{cpu}",
          flush=True)


def cpu_of(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def main(args: argparse.Namespace) -> None:
    fake = FakeDiscord(guilds={GUILD: CHANNEL})
    await fake.start()
    with tempfile.TemporaryDirectory() as tmpdir:
        path = config(Path(tmpdir), fake, args.synchronous)
        proc: asyncio.subprocess.Process | None = None
        adapter: Any = None
        if args.inprocess:
            from adapters.discord import DiscordAdapter
            from bot.app.compose import open_app
            from bot.app.config import load_config
            cfg = load_config(path, env={"DISCORD_BOT_TOKEN": TOKEN})
            app_cm = open_app(cfg)
            app = await app_cm.__aenter__()
            adapter = DiscordAdapter(app, ready_timeout=30.0)
            await adapter.start()
        else:
            env = {**os.environ, "DISCORD_BOT_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "adapters.cli", "run", "--config", str(path),
                cwd=tmpdir, env=env, stdin=asyncio.subprocess.DEVNULL)
            await fake.wait_for(lambda: fake.connected >= 1, timeout=60, what="the bot")
            await asyncio.sleep(1.0)  # command sync and the rest of start-up settle
        profile = cProfile.Profile() if args.profile else None
        try:
            for n, window in enumerate(args.window):
                for run in range(args.runs):
                    mine0 = time.process_time()
                    bot0 = cpu_of(proc.pid) if proc else 0.0
                    wall0 = time.perf_counter()
                    if profile:
                        profile.enable()
                    latencies = await burst(fake, args.members, window,
                                            1_600_000_000_000_000_000 + (n * 10 + run) * 10_000)
                    if profile:
                        profile.disable()
                    wall = time.perf_counter() - wall0
                    mine = time.process_time() - mine0
                    cpu = (f"; wall {wall:.2f} s, CPU: bot {cpu_of(proc.pid) - bot0:.2f} s, "
                           f"fake {mine:.2f} s" if proc else
                           f"; wall {wall:.2f} s, CPU bot+fake {mine:.2f} s")
                    report(window, latencies, cpu)
        finally:
            if profile:
                profile.dump_stats(args.profile)
            if adapter is not None:
                await adapter.stop()
                await app_cm.__aexit__(None, None, None)
            if proc is not None:
                proc.terminate()
                await proc.wait()
            await fake.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=300)
    parser.add_argument("--window", type=float, nargs="+", default=[2.0, 0.2])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--synchronous", default="full", choices=["full", "normal"])
    parser.add_argument("--inprocess", action="store_true")
    parser.add_argument("--profile", help="cProfile output (with --inprocess: bot and fake)")
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    asyncio.run(main(parser.parse_args()))
