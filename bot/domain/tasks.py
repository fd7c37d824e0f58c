"""Background tasks with an owner: failures are logged, never silently dropped."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


def spawn(coro: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]:
    """Start `coro` as a task that logs its exception if it fails.

    The caller owns the returned task: it keeps the reference and cancels it on shutdown.
    """
    task = asyncio.get_running_loop().create_task(coro, name=name)
    task.add_done_callback(_log_failure)
    return task


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.error("background task %s failed", task.get_name(), exc_info=exc)
