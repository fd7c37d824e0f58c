"""KeyedLocks: one key at a time, in arrival order; nothing kept for idle keys."""

from __future__ import annotations

import asyncio

from adapters.telegram.locks import KeyedLocks


async def test_same_key_runs_in_order_other_keys_in_parallel():
    locks = KeyedLocks()
    events: list[str] = []
    release = asyncio.Event()

    async def work(key: str, name: str, wait: bool) -> None:
        async with locks.hold(key):
            events.append(f"start {name}")
            if wait:
                await release.wait()
            events.append(f"end {name}")

    first = asyncio.create_task(work("a", "a1", wait=True))
    second = asyncio.create_task(work("a", "a2", wait=False))
    other = asyncio.create_task(work("b", "b1", wait=False))
    await other  # "b" is not blocked by "a"
    assert events == ["start a1", "start b1", "end b1"] and len(locks) == 1
    release.set()
    await asyncio.gather(first, second)
    assert events[3:] == ["end a1", "start a2", "end a2"]
    assert len(locks) == 0


async def test_cancelled_waiter_leaves_nothing_behind():
    locks = KeyedLocks()
    async with locks.hold("k"):
        waiter = asyncio.create_task(locks.hold("k").__aenter__())
        await asyncio.sleep(0)
        waiter.cancel()
        await asyncio.gather(waiter, return_exceptions=True)
    assert len(locks) == 0
