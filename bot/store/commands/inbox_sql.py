"""The webhook inbox: updates stored once by id before the 200, processed from there.

A row is put by the worker that received it, already claimed by that worker (`lease_until`),
so it goes on at once without a second round trip. A worker that dies before marking it done
leaves a lease that runs out; any worker then claims it again with a conditional UPDATE
(like jobs). A second delivery of the same update id finds the row and changes nothing.
An update is marked done just before its reply goes out, so "replied" and "done" are one
mark: a worker killed after replying leaves nothing to take over. When a lease next runs out
is read with the scheduler's other due times (`inbox_next`), so an idle worker only reads.

A claim picks rows in a MATERIALIZED CTE that PostgreSQL runs `FOR UPDATE SKIP LOCKED` (an
update another worker is claiming right now is skipped, not waited for; a LIMIT inside
`IN (...)` may be planned to run again and then claims more than asked); the UPDATE
re-checks the lease on the row as locked. SQLite's writer lock gives the same without the
clause.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.store.command import Command, one, q
from bot.store.rows import InboxRow, from_row


def inbox_put(platform: str, update_id: int, body: str, now: float, lease_until: float
              ) -> Command[bool]:
    """Store the update once, claimed until `lease_until`; False for a repeat."""
    rows = yield q("INSERT INTO inbox (platform, update_id, body, received_at, lease_until, "
                   "attempts) VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT (platform, update_id) "
                   "DO NOTHING RETURNING update_id",
                   platform, update_id, body, now, lease_until)
    return bool(rows)


def inbox_next(platform: str) -> Command[float | None]:
    """When an undone update's lease next runs out (None: nothing undone), by a read: a
    worker asks this before it claims, so an idle one writes nothing."""
    row = one((yield q("SELECT MIN(COALESCE(lease_until, 0)) AS t FROM inbox "
                       "WHERE platform = ? AND done_at IS NULL", platform)))
    return None if row is None or row["t"] is None else float(row["t"])


def inbox_claim(platform: str, now: float, lease_until: float, limit: int
                ) -> Command[list[InboxRow]]:
    """Claim up to `limit` undone updates whose lease ran out, oldest first."""
    rows = yield q(
        "WITH picked AS MATERIALIZED (SELECT update_id FROM inbox "
        "WHERE platform = ?1 AND done_at IS NULL AND (lease_until IS NULL OR lease_until < ?2) "
        "ORDER BY received_at, update_id LIMIT ?3 FOR UPDATE SKIP LOCKED) "
        "UPDATE inbox SET lease_until = ?4, attempts = attempts + 1 FROM picked "
        "WHERE inbox.platform = ?1 AND inbox.update_id = picked.update_id "
        "AND inbox.done_at IS NULL AND (inbox.lease_until IS NULL OR inbox.lease_until < ?2) "
        "RETURNING inbox.update_id, inbox.body, inbox.attempts",
        platform, now, limit, lease_until)
    return sorted((from_row(InboxRow, r) for r in rows), key=lambda r: r.update_id)


def inbox_renew(platform: str, update_ids: Sequence[int], lease_until: float
                ) -> Command[None]:
    """Extend the lease of updates still being processed."""
    ids = list(update_ids)
    if ids:
        marks = ", ".join("?" * len(ids))  # one placeholder per id: values stay parameters
        yield q(f"UPDATE inbox SET lease_until = ? WHERE platform = ? "
                f"AND update_id IN ({marks}) AND done_at IS NULL", lease_until, platform, *ids)


def inbox_done(platform: str, update_id: int, now: float) -> Command[bool]:
    """Mark the update processed; False when it already was (the row count decides)."""
    rows = yield q("UPDATE inbox SET done_at = ?, lease_until = NULL WHERE platform = ? "
                   "AND update_id = ? AND done_at IS NULL RETURNING update_id",
                   now, platform, update_id)
    return bool(rows)


def inbox_prune(done_before: float) -> Command[int]:
    """Delete updates (of every platform) processed before `done_before`; how many."""
    rows = yield q("DELETE FROM inbox WHERE done_at < ? RETURNING update_id", done_before)
    return len(rows)
