"""`quizbot run` worker processes for the multi-process tests and the scale benchmark."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


class Worker:
    """One `python -m adapters.cli run` process; its stderr is kept and watched."""

    def __init__(self, name: str, config: Path, env: dict[str, str]) -> None:
        self.name, self.config, self.env = name, config, env
        self.proc: asyncio.subprocess.Process | None = None
        self.lines: list[str] = []
        self._seen = asyncio.Condition()
        self._reader: asyncio.Task[None] | None = None

    async def start(self, ready: str, timeout: float = 60.0) -> None:  # noqa: ASYNC109
        """Start the process; return once a stderr line contains `ready`."""
        env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **self.env}
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "adapters.cli", "run", "--config", str(self.config),
            cwd=str(self.config.parent), env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        self._reader = asyncio.create_task(self._read())
        await self.wait_line(ready, timeout)

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while line := await self.proc.stderr.readline():
            async with self._seen:
                self.lines.append(line.decode("utf-8", "replace").rstrip())
                self._seen.notify_all()
        async with self._seen:
            self._seen.notify_all()

    async def wait_line(self, text: str, timeout: float = 30.0) -> str:  # noqa: ASYNC109
        """The first stderr line containing `text`; fails if the process ends first."""
        def found() -> str | None:
            return next((line for line in self.lines if text in line), None)

        async def check() -> str:
            async with self._seen:
                await self._seen.wait_for(lambda: found() is not None or self.exited)
            line = found()
            if line is None:
                raise AssertionError(f"{self.name} exited before {text!r}:\n" + self.tail())
            return line
        try:
            return await asyncio.wait_for(check(), timeout)
        except TimeoutError:
            raise AssertionError(f"{self.name}: no {text!r} in {timeout} s:\n"
                                 + self.tail()) from None

    @property
    def exited(self) -> bool:
        return self.proc is None or self.proc.returncode is not None or (
            self._reader is not None and self._reader.done())

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    def tail(self, n: int = 30) -> str:
        return "\n".join(self.lines[-n:])

    async def kill(self) -> None:
        """SIGKILL: no shutdown, no goodbye, connections just drop."""
        assert self.proc is not None
        self.proc.kill()
        await self.proc.wait()
        if self._reader is not None:
            await self._reader

    async def stop(self, timeout: float = 20.0) -> int:  # noqa: ASYNC109
        """SIGTERM and wait; the exit code."""
        assert self.proc is not None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(self.proc.wait(), timeout)
        if self._reader is not None:
            await self._reader
        return code


@contextlib.asynccontextmanager
async def workers(count: int, make_config: Any, env: dict[str, str], ready: str,
                  ) -> AsyncIterator[list[Worker]]:
    """`count` workers started at once (config i from `make_config(i)`); killed on exit."""
    started = [Worker(f"worker-{i}", make_config(i), env) for i in range(count)]
    try:
        await asyncio.gather(*(w.start(ready) for w in started))
        yield started
    finally:
        for w in started:
            if w.alive:
                assert w.proc is not None
                w.proc.kill()
                await w.proc.wait()


def write_yaml(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path
