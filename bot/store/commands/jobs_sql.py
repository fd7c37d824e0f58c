"""Due jobs, claimed so that of any number of processes exactly one runs each.

A claim is one conditional `UPDATE ... RETURNING` over a subselect that PostgreSQL runs
`FOR UPDATE SKIP LOCKED` (a job another worker is claiming right now is skipped, not
waited for, and not claimed twice; the outer WHERE re-checks the claim against the row as
it stands when locked); SQLite's writer lock gives the same without the clause.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from bot.store.command import Command, one, q
from bot.store.rows import JobRow, NewJob, columns, from_row


def schedule(job: NewJob) -> Command[None]:
    """Insert the job, or replace the live job with the same key (unclaimed again)."""
    yield q("INSERT INTO jobs (kind, key, due_at, payload) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, due_at = excluded.due_at, "
            "payload = excluded.payload, claimed_at = NULL, claimed_by = NULL, attempts = 0, "
            "done_at = NULL", job.kind, job.key, job.due_at, json.dumps(job.payload))


def cancel_job(key: str) -> Command[bool]:
    """Delete the job with this key; True if there was one."""
    return bool((yield q("DELETE FROM jobs WHERE key = ? RETURNING id", key)))


def next_job_due(kinds: Sequence[str], lease: float) -> Command[float | None]:
    """When the earliest job of `kinds` can next be claimed (its due time, or for a claimed
    one the end of its lease), by a read: a loop asks this before it claims, so a process
    with nothing due writes nothing."""
    if not kinds:
        return None
    row = one((yield q(
        "SELECT MIN(CASE WHEN claimed_at IS NULL OR claimed_at + ? < due_at THEN due_at "
        "ELSE claimed_at + ? END) AS t FROM jobs WHERE done_at IS NULL "
        f"AND kind IN ({', '.join('?' * len(kinds))})", lease, lease, *kinds)))
    return None if row is None or row["t"] is None else float(row["t"])


def claim_due(now: float, limit: int, worker: str, lease: float,
              kinds: Sequence[str] | None = None) -> Command[list[JobRow]]:
    """Claim up to `limit` due jobs (of `kinds`, if given), oldest first: unclaimed ones and
    ones whose claim is older than `lease` seconds (their runner died), by one conditional
    UPDATE ... RETURNING, so of any number of processes exactly one runs each."""
    wanted = [] if kinds is None else list(kinds)
    if kinds is not None and not wanted:
        return []
    # One placeholder per kind: the values still travel as parameters.
    of_kind = f"AND kind IN ({', '.join('?' * len(wanted))}) " if wanted else ""
    # The pick is a MATERIALIZED CTE: PostgreSQL may run a `LIMIT ... FOR UPDATE SKIP
    # LOCKED` subquery inside `IN (...)` more than once and so claim more than `limit` rows.
    rows = yield q(
        "WITH picked AS MATERIALIZED (SELECT id FROM jobs WHERE done_at IS NULL "
        f"AND due_at <= ? AND (claimed_at IS NULL OR claimed_at < ?) {of_kind}"
        "ORDER BY due_at, id LIMIT ? FOR UPDATE SKIP LOCKED) "
        "UPDATE jobs SET claimed_at = ?, claimed_by = ?, attempts = attempts + 1 "
        "WHERE id IN (SELECT id FROM picked) "
        "AND done_at IS NULL AND (claimed_at IS NULL OR claimed_at < ?) "
        f"RETURNING {columns(JobRow)}",
        now, now - lease, *wanted, limit, now, worker, now - lease)
    return sorted((from_row(JobRow, r) for r in rows), key=lambda j: (j.due_at, j.id))


def retry_job(job: JobRow, due_at: float) -> Command[bool]:
    """Its handler failed: unclaimed again at `due_at`, its attempts kept (the backoff
    counts them), while the claim is still ours."""
    return bool((yield q("UPDATE jobs SET due_at = ?, claimed_at = NULL, claimed_by = NULL "
                         "WHERE id = ? AND claimed_by = ? AND claimed_at = ? RETURNING id",
                         due_at, job.id, job.claimed_by, job.claimed_at)))


def finish_job(job: JobRow, next_due_at: float | None) -> Command[bool]:
    """Delete the job or move it to `next_due_at`, while it is still our claim."""
    if next_due_at is None:
        done = yield q("DELETE FROM jobs WHERE id = ? AND claimed_by = ? AND claimed_at = ? "
                       "RETURNING id", job.id, job.claimed_by, job.claimed_at)
    else:
        done = yield q("UPDATE jobs SET due_at = ?, claimed_at = NULL, claimed_by = NULL, "
                       "attempts = 0 WHERE id = ? AND claimed_by = ? AND claimed_at = ? "
                       "RETURNING id", next_due_at, job.id, job.claimed_by, job.claimed_at)
    return bool(done)


def job_live(key: str) -> Command[bool]:
    """True while the job keyed `key` is not done."""
    return bool((yield q("SELECT 1 FROM jobs WHERE key = ? AND done_at IS NULL", key)))


def claimers(kind: str) -> Command[list[str]]:
    """Who holds claims on unfinished jobs of `kind`."""
    rows = yield q("SELECT DISTINCT claimed_by FROM jobs WHERE kind = ? AND done_at IS NULL "
                   "AND claimed_by IS NOT NULL", kind)
    return sorted(str(r["claimed_by"]) for r in rows)


def release_claims(worker: str, kind: str) -> Command[int]:
    """Unclaim the unfinished jobs of `kind` that `worker` holds."""
    rows = yield q("UPDATE jobs SET claimed_at = NULL, claimed_by = NULL WHERE kind = ? "
                   "AND claimed_by = ? AND done_at IS NULL RETURNING id", kind, worker)
    return len(rows)
