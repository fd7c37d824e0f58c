"""Where a tap's latency goes, for `telegram_bench.py --breakdown`.

The bot process stamps each tap (keyed by its callback query id) as it passes PTB's public
hooks, wrapped from outside (the bench only; the adapter has no tracing of its own). One
clock, `time.perf_counter` (CLOCK_MONOTONIC: the same in every process), so the fake
server's two times in the bench process close the chain. Per tap:

- poll: from the fake handing the update out to `get_updates` returning it in the bot (the
  HTTP response and PTB's parsing of the whole batch);
- queue: from there to the update processor being handed it (PTB's update queue and task);
- wait: to the callback query handler starting (the processor's per-user turn and slots);
- engine: the handler's own work until `Engine.press` returns: for quizbot the engine's
  decision (the answer read and committed; split further by `engine_trace.Tracer`, as
  `engine_bench.py --breakdown` splits an answer); for the bare bot nothing;
- plan: from there to asking for the ack (quizbot's plan of the reply);
- send: from asking for the ack to PTB's request layer posting it (the bot method, the
  rate limiter);
- wire: from the post to the fake receiving it (HTTP both ways, the fake's own loop).
"""

from __future__ import annotations

import atexit
import contextvars
import functools
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

STAGES = ("poll", "queue", "wait", "engine", "plan", "send", "wire")
MARKS = ("polled", "dispatched", "handled", "decided", "asked", "posted")
_tap: contextvars.ContextVar[str | None] = contextvars.ContextVar("tap", default=None)


def install(path: str, quizbot: bool) -> None:
    """Wrap PTB's hooks in this (the bot's) process; the marks go to `path` at exit."""
    from telegram import CallbackQuery, Update
    from telegram.ext import BaseUpdateProcessor, CallbackQueryHandler, ExtBot
    from telegram.request import BaseRequest

    marks: dict[str, dict[str, float]] = {}
    engine: list[Any] = []  # quizbot: the store's part of the engine stage (engine_trace)
    atexit.register(lambda: Path(path).write_text(
        json.dumps({"marks": marks, "engine": engine[0].table() if engine else []}),
        encoding="utf-8"))

    def mark(query_id: str | None, name: str) -> None:
        if query_id is not None:
            marks.setdefault(query_id, {}).setdefault(name, time.perf_counter())

    def query_of(update: object) -> str | None:
        query = update.callback_query if isinstance(update, Update) else None
        return query.id if query is not None else None

    def wrap(owner: type, name: str, before: Callable[..., None] | None = None,
             after: Callable[[Any], None] | None = None) -> None:
        inner = getattr(owner, name)

        @functools.wraps(inner)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            if before is not None:
                before(*args, **kwargs)
            result = await inner(*args, **kwargs)
            if after is not None:
                after(result)
            return result

        setattr(owner, name, wrapper)

    def polled(updates: Any) -> None:
        for update in updates:
            mark(query_of(update), "polled")

    def dispatched(processor: Any, update: object, coroutine: Any) -> None:
        mark(query_of(update), "dispatched")

    def handled(handler: Any, update: object, *args: Any) -> None:
        _tap.set(query_of(update))  # the handler's task: its engine call finds the tap here
        mark(query_of(update), "handled")

    def decided(outcome: Any) -> None:
        mark(_tap.get(), "decided")

    def asked(query: Any, *args: Any, **kwargs: Any) -> None:
        mark(query.id, "decided")  # the bare bot decides nothing: no engine time
        mark(query.id, "asked")

    def posted(request: Any, url: str, request_data: Any = None, *args: Any, **kwargs: Any
               ) -> None:
        data = request_data
        if url.endswith("/answerCallbackQuery") and data is not None:
            mark(str(data.parameters.get("callback_query_id")), "posted")

    wrap(ExtBot, "get_updates", after=polled)
    wrap(BaseUpdateProcessor, "process_update", before=dispatched)
    wrap(CallbackQueryHandler, "handle_update", before=handled)
    wrap(CallbackQuery, "answer", before=asked)
    if quizbot:  # the engine stage split as engine_bench --breakdown splits an answer
        from bench.engine_trace import Tracer
        from bot.features.engine import Engine

        tracer = Tracer()
        active = tracer.active()  # kept: a collected context manager would undo its wrappers
        active.__enter__()  # for the life of the process
        engine.extend((tracer, active))
        press = Engine.press

        async def traced_press(self: Any, *args: Any, **kwargs: Any) -> Any:
            with tracer.answer():
                outcome = await press(self, *args, **kwargs)
            decided(outcome)
            return outcome

        Engine.press = traced_press  # type: ignore[method-assign]
    wrap(BaseRequest, "post", before=posted)


def engine_parts(path: Path) -> list[tuple[str, str]]:
    """Quizbot's engine stage by part (store queues, runs, COMMIT, wakes), as engine_bench
    --breakdown prints them; empty for the bare bot."""
    return [tuple(row) for row in json.loads(path.read_text(encoding="utf-8"))["engine"]]


def breakdown(path: Path, handed: dict[str, float], answered: dict[str, float]
              ) -> dict[str, tuple[float, float]]:
    """Per stage, (p50, p99) in ms over the taps the bot marked completely."""
    marks: dict[str, dict[str, float]] = json.loads(path.read_text(encoding="utf-8"))["marks"]
    spans: dict[str, list[float]] = {stage: [] for stage in STAGES}
    for query_id, got in marks.items():
        if query_id not in handed or query_id not in answered or any(
                m not in got for m in MARKS):
            continue
        times = [handed[query_id], *(got[m] for m in MARKS), answered[query_id]]
        for stage, start, end in zip(STAGES, times, times[1:], strict=False):
            spans[stage].append((end - start) * 1000)
    return {stage: (statistics.median(v), sorted(v)[max(0, round(len(v) * 0.99) - 1)])
            for stage, v in spans.items() if v}


def line(parts: dict[str, tuple[float, float]]) -> str:
    """`stage p50/p99` for each stage, in ms."""
    return "  ".join(f"{stage} {p50:.1f}/{p99:.1f}" for stage, (p50, p99) in parts.items())
