"""The webhook inbox port: updates stored once by id before the 200, processed from there.

A row is put by the worker that received it, already claimed by that worker (`lease_until`),
so it goes on at once without a second round trip. A worker that dies before marking it done
leaves a lease that runs out; any worker then claims it again with a conditional UPDATE
(like jobs). A second delivery of the same update id finds the row and changes nothing.
An update is marked done just before its reply goes out, so "replied" and "done" are one
mark: a worker killed after replying leaves nothing to take over (the state the update
changed was committed before, and is idempotent anyway).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class InboxRow:
    update_id: int
    body: str  # the update as received (JSON text)
    attempts: int  # claims so far, this one included


class InboxStore(Protocol):
    """The inbox commands; SQLite and PostgreSQL implement them."""

    async def inbox_put(self, platform: str, update_id: int, body: str, now: float,
                        lease_until: float) -> bool:
        """Store the update once, claimed by the caller until `lease_until`; False when
        this update id was stored before (a repeat delivery: nothing to do)."""

    async def inbox_claim(self, platform: str, now: float, lease_until: float, limit: int
                          ) -> list[InboxRow]:
        """Claim up to `limit` undone updates nobody holds (lease run out), oldest first."""

    async def inbox_renew(self, platform: str, update_ids: Sequence[int], lease_until: float
                          ) -> None:
        """Extend the lease of updates still being processed."""

    async def inbox_done(self, platform: str, update_id: int, now: float) -> bool:
        """Mark the update processed; it is never claimed again. False when it already
        was: its reply went out from another worker (see `Inbox.may_reply`)."""

    async def inbox_prune(self, platform: str, done_before: float) -> int:
        """Delete updates processed before `done_before`; how many."""
