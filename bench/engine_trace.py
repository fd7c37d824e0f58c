"""Where an engine answer's time goes, for `engine_bench.py --breakdown` and `--profile`.

Wraps the SQLite store's two batchers from outside (the bench only; the store has no
tracing of its own): every read and every write of an answer carries its answer's trace,
and the batch functions that run on the connections' threads stamp their times into it.
One clock (`time.perf_counter`, the same on every thread), so per answer:

- read queue: from asking to its batch starting on the reader thread, read run: the
  batch, read wake: from the batch's end to the caller running again;
- write queue: from asking to its group commit's BEGIN (waiting for the previous COMMIT),
  write run: BEGIN to COMMIT (every unit of the batch), commit: the COMMIT (the fsync
  under synchronous=FULL), write wake: from the COMMIT to the caller running again;
- engine: the rest (the event loop's own work on the answer, and waiting for the loop).
"""

from __future__ import annotations

import contextvars
import cProfile
import sqlite3
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from bot.store import group_commit, sqlite_thread
from bot.store.group_commit import GroupCommit
from bot.store.sqlite_thread import ReadBatch

PARTS = ("read queue", "read run", "read wake", "write queue", "write run", "commit",
         "write wake", "engine")
current: contextvars.ContextVar[dict[str, float] | None] = contextvars.ContextVar(
    "trace", default=None)


class _Params(tuple):  # type: ignore[type-arg]
    """A read's parameters, carrying its answer's trace to the reader thread."""

    trace: dict[str, float]


class _Unit:
    """A write's unit, carrying its answer's trace to the writer thread."""

    def __init__(self, unit: Callable[[sqlite3.Connection], Any], trace: dict[str, float]):
        self.unit, self.trace = unit, trace

    def __call__(self, db: sqlite3.Connection) -> Any:
        return self.unit(db)


class Tracer:
    """Installs the wrappers while active; `profiles` holds the threads' cProfile runs."""

    def __init__(self, profile: bool = False) -> None:
        self.traces: list[tuple[float, dict[str, float]]] = []
        self.writer_cpu = 0.0  # thread CPU seconds inside group-commit batches
        self.reader_cpu = 0.0
        self.commit_wall = 0.0
        self.batches = 0
        self.profiles = {"writer": cProfile.Profile(time.thread_time),
                         "reader": cProfile.Profile(time.thread_time)} if profile else {}

    @contextmanager
    def profiled(self, thread: str) -> Iterator[None]:
        """cProfile the block into this thread's profile, when profiling."""
        prof = self.profiles.get(thread)
        if prof:
            prof.enable()
        try:
            yield
        finally:
            if prof:
                prof.disable()

    @contextmanager
    def active(self) -> Iterator[Tracer]:
        saved = (group_commit._run_all, sqlite_thread._fetch_each, GroupCommit.run, ReadBatch.all)
        _, run_reads, write, read = saved
        tracer = self

        def traced_run_all(db: sqlite3.Connection, units: list[Any]) -> list[Any]:
            cpu, begin = time.thread_time(), time.perf_counter()
            with tracer.profiled("writer"):
                db.execute("BEGIN IMMEDIATE")
                try:
                    results = [unit(db) for unit in units]
                    committing = time.perf_counter()
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
            end = time.perf_counter()
            tracer.writer_cpu += time.thread_time() - cpu
            tracer.commit_wall += end - committing
            tracer.batches += 1
            for unit in units:
                if isinstance(unit, _Unit):
                    unit.trace.update(w_begin=begin, w_commit=committing, w_end=end)
            return results

        def traced_reads(db: sqlite3.Connection, queries: list[Any]) -> list[Any]:
            cpu, begin = time.thread_time(), time.perf_counter()
            with tracer.profiled("reader"):
                out = run_reads(db, queries)
            end = time.perf_counter()
            tracer.reader_cpu += time.thread_time() - cpu
            for _, params in queries:
                if isinstance(params, _Params):
                    params.trace["r_begin"] = params.trace.get("r_begin", 0.0) + begin
                    params.trace["r_end"] = params.trace.get("r_end", 0.0) + end
            return out

        async def traced_write(self: GroupCommit, unit: Callable[[sqlite3.Connection], Any]
                               ) -> Any:
            trace = current.get()
            if trace is None:
                return await write(self, unit)
            asked = time.perf_counter()
            result = await write(self, _Unit(unit, trace))
            back = time.perf_counter()
            for part, (a, b) in {"write queue": (asked, trace["w_begin"]),
                                 "write run": (trace["w_begin"], trace["w_commit"]),
                                 "commit": (trace["w_commit"], trace["w_end"]),
                                 "write wake": (trace["w_end"], back)}.items():
                trace[part] = trace.get(part, 0.0) + b - a
            return result

        async def traced_read(self: ReadBatch, sql: str, params: Any = ()) -> list[Any]:
            trace = current.get()
            if trace is None:
                return await read(self, sql, params)
            carried = _Params(params)
            carried.trace = {}
            asked = time.perf_counter()
            rows = await read(self, sql, carried)
            back = time.perf_counter()
            t = carried.trace
            for part, value in {"read queue": t["r_begin"] - asked,
                                "read run": t["r_end"] - t["r_begin"],
                                "read wake": back - t["r_end"]}.items():
                trace[part] = trace.get(part, 0.0) + value
            return rows

        group_commit._run_all = traced_run_all  # type: ignore[assignment]
        sqlite_thread._fetch_each = traced_reads  # type: ignore[assignment]
        GroupCommit.run = traced_write  # type: ignore[assignment, method-assign]
        ReadBatch.all = traced_read  # type: ignore[assignment, method-assign]
        try:
            yield self
        finally:
            (group_commit._run_all, sqlite_thread._fetch_each, GroupCommit.run,  # type: ignore[method-assign]
             ReadBatch.all) = saved

    @contextmanager
    def answer(self) -> Iterator[None]:
        """Trace the answer awaited inside (one per learner task at a time)."""
        trace: dict[str, float] = {}
        token = current.set(trace)
        t0 = time.perf_counter()
        try:
            yield
        finally:
            current.reset(token)
            total = time.perf_counter() - t0
            trace["engine"] = total - sum(trace.get(p, 0.0) for p in PARTS[:-1])
            self.traces.append((total, trace))

    def table(self) -> list[tuple[str, str]]:
        """Mean ms per part over every answer, and over the slowest 1% (the p99 tail)."""
        if not self.traces:
            return []
        ordered = sorted(self.traces, key=lambda t: t[0])
        tail = ordered[int(len(ordered) * 0.99):]

        def mean(rows: list[tuple[float, dict[str, float]]], part: str) -> float:
            return statistics.fmean(t.get(part, 0.0) for _, t in rows) * 1000

        rows = [(f"  {part}", f"mean {mean(ordered, part):7.2f} ms, slowest 1% "
                              f"{mean(tail, part):8.2f} ms") for part in PARTS]
        rows.append(("  batches / mean COMMIT", f"{self.batches} / "
                     f"{self.commit_wall / max(self.batches, 1) * 1000:.2f} ms"))
        return rows
