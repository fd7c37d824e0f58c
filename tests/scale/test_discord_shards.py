"""Two `quizbot run` processes on one PostgreSQL, each holding one of two Discord shards:
guild events reach only the process of the guild's shard (guild_id >> 22 % 2). The process
of shard 1 is SIGKILLed mid-quiz; shard 0's learners carry on meanwhile, a replacement
takes shard 1 over, and its learners finish on the buttons they already had."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import asyncpg

from bot.store import open_url
from bot.store.commands import sessions_sql
from tests.adapters.discord.conftest import PLAY, answer, replied, right_id, wrong_id
from tests.adapters.discord.fake_discord import TOKEN, FakeDiscord, Message, user
from tests.scale.workers import Worker, workers, write_yaml

SHARD_UNIT = 1 << 22
GUILDS = {shard: (1_400_000_000_000_000_000 // (2 * SHARD_UNIT)) * 2 * SHARD_UNIT
          + shard * SHARD_UNIT for shard in (0, 1)}
READY = "connected to Discord as"


class Player:
    """Right on even question numbers, wrong on odd ones: 4/8."""

    def __init__(self, fake: FakeDiscord, who: dict[str, Any], guild: int | None) -> None:
        self.fake, self.who, self.guild = fake, who, guild
        self.question: Message | None = None
        self.answered = 0

    async def start(self) -> None:
        ix = await replied(self.fake, await self.fake.slash(self.who, "quiz", guild=self.guild,
                                                            options=PLAY))
        self.question = ix.original

    async def play(self, upto: int) -> None:
        while self.answered < upto:
            assert self.question is not None
            pick = wrong_id if self.answered % 2 else right_id
            ix = await answer(self.fake, self.who, self.question, pick(self.question))
            assert ix.callback is not None  # acknowledged: stored before this
            self.answered += 1
            self.question = ix.followups[0]


async def test_two_processes_two_shards_one_killed(tmp_path: Path, postgres_url: str,
                                                   process_content: Path) -> None:
    assert [(g >> 22) % 2 for g in GUILDS.values()] == [0, 1]
    fake = FakeDiscord(guilds={g: g + 7 for g in GUILDS.values()})
    await fake.start()

    def config(shard: int) -> Path:
        return write_yaml(tmp_path / f"shard{shard}.yaml", {
            "storage": {"url": postgres_url, "pool_size": 4},
            "telegram": {"enabled": False},
            "discord": {"api_base_url": fake.api_base_url, "gateway_url": fake.gateway_url,
                        "guild_ids": list(GUILDS.values()), "shards": 2,
                        "shard_ids": [shard]},
            "content": {"dir": str(process_content)}, "log_level": "INFO"})

    env = {"DISCORD_BOT_TOKEN": TOKEN}
    try:
        async with workers(2, config, env, ready=READY) as procs:
            await fake.wait_for(lambda: fake.connected == 2, timeout=20, what="both shards")
            assert sorted(tuple(i["shard"]) for i in fake.identifies) == [(0, 2), (1, 2)]
            players = {shard: [Player(fake, user(1_500_000_000_000_000_100 + 10 * shard + k,
                                                 f"p{shard}{k}"), GUILDS[shard])
                               for k in range(2)] for shard in (0, 1)}
            dm = Player(fake, user(1_500_000_000_000_000_900, "dm"), None)  # DMs: shard 0
            everyone = [*players[0], *players[1], dm]
            await asyncio.gather(*(p.start() for p in everyone))
            await asyncio.gather(*(p.play(3) for p in everyone))

            # shard 1's process dies while shard 0's learners are mid-tap
            carry_on = asyncio.gather(*(p.play(8) for p in [*players[0], dm]))
            await procs[1].kill()
            await fake.wait_for(lambda: fake.connected == 1, what="shard 1 gone")
            async with asyncio.timeout(60):
                await carry_on  # shard 0 never needed shard 1's process
            assert all("Finished" in (p.question.text if p.question else "")
                       for p in [*players[0], dm])

            replacement = Worker("shard-1-again", config(1), env)
            try:
                await replacement.start(READY)
                await fake.wait_for(lambda: fake.connected == 2, what="shard 1 back")
                async with asyncio.timeout(60):
                    await asyncio.gather(*(p.play(8) for p in players[1]))
                assert await replacement.stop() == 0
            finally:
                if replacement.alive:
                    await replacement.kill()
            assert await procs[0].stop() == 0
    finally:
        await fake.close()

    store = await open_url(postgres_url)
    conn = await asyncpg.connect(postgres_url)
    try:
        for p in everyone:
            uid = str(p.who["id"])
            assert await store.read(sessions_sql.attempts,
                                    "discord", uid, "parallelism") == (1, 4, 4)
            session = await store.read(sessions_sql.last_finished, "discord", uid, "parallelism")
            assert session is not None
            assert [a.correct for a in await store.read(sessions_sql.answers,
                                                        session.id)] == [True, False] * 4
        assert await conn.fetchval("SELECT COUNT(*) FROM answers") == 8 * len(everyone)
        assert await conn.fetchval("SELECT COUNT(*) FROM sessions") == len(everyone)
    finally:
        await conn.close()
        await store.close()
    assert not fake.unhandled, fake.unhandled
