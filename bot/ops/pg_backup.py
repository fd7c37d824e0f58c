"""Backup and restore of a PostgreSQL store through `pg_dump` / `pg_restore`.

PostgreSQL's own tools make the only consistent copy of a live database (one snapshot,
the bot never waits), in the custom format (`--format=custom`: compressed, and read back
by `pg_restore`, which can list an archive's contents before restoring any of it). The
tools are found on PATH, else in the newest `/usr/lib/postgresql/*/bin`. The password goes
to them in the environment (`PGPASSWORD`), never on a command line other users can read.

A backup is made of quizbot's database only, and a restore goes into an empty database or
quizbot's own, never beside another application's tables. A restore first lists the archive
and accepts it only when every entry is one of quizbot's
tables, sequences, indexes and constraints: a crafted archive carrying a trigger, function,
view or any other object is refused before anything is written. It then runs in one
transaction (`--single-transaction --exit-on-error`), so the database is either the backup
or unchanged.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bot.domain.errors import OpsError
from bot.ops.files import PlaceError, new_file
from bot.ops.reader import BACKUP_REFUSED, connected, on_postgres
from bot.store.commands.report_sql import last_activity
from bot.store.migrate import TABLES, migrations, newer, postgres_version
from bot.store.urls import redact, split_password

PG_BIN_GLOB = "/usr/lib/postgresql/*/bin"
TIMEOUT = 3600.0
# What a quizbot archive may hold (pg_restore --list's "desc" column).
ALLOWED_KINDS = frozenset({
    "TABLE", "TABLE DATA", "SEQUENCE", "SEQUENCE SET", "SEQUENCE OWNED BY", "DEFAULT",
    "CONSTRAINT", "FK CONSTRAINT", "INDEX", "ENCODING", "STDSTRINGS", "SEARCHPATH",
    "DATABASE PROPERTIES",
})
QUIZBOT_TABLES = frozenset({*TABLES, "schema_migrations"})  # the same names on both dialects
_TOC_LINE = re.compile(r"^\d+;\s+\d+\s+\d+\s+(?P<rest>.+)$")


def find_tool(name: str) -> str:
    """The path of a PostgreSQL client tool; OpsError naming how to get it."""
    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(Path("/").glob(PG_BIN_GLOB.lstrip("/")), key=_version_key,
                         reverse=True):
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise OpsError(f"{name} was not found on PATH or in {PG_BIN_GLOB}; install the "
                     "PostgreSQL client tools (e.g. apt-get install postgresql-client)")


def _version_key(folder: Path) -> tuple[int, ...]:
    digits = re.findall(r"\d+", folder.parent.name)
    return tuple(int(d) for d in digits) or (0,)


def _run(args: list[str], password: str, what: str) -> str:
    # TZ=UTC: listings print the archive's creation time the same way everywhere.
    env = {**os.environ, "TZ": "UTC", **({"PGPASSWORD": password} if password else {})}
    env.setdefault("PGCONNECT_TIMEOUT", "10")
    try:
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=TIMEOUT,
                              check=False)
    except subprocess.TimeoutExpired:
        raise OpsError(f"{what} did not finish within {TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
        detail = lines[-1] if lines else f"exit code {done.returncode}"
        raise OpsError(f"{what} failed: {_scrub(detail, password)}")
    return done.stdout


def _scrub(text: str, password: str) -> str:
    return text.replace(password, "***") if password else text


@dataclass(frozen=True)
class Archive:
    """What `pg_restore --list` tells of an archive."""

    created: str  # "Archive created at ..." as the tool prints it
    entries: tuple[tuple[str, str], ...]  # (kind, name)
    versions: tuple[int, ...]  # schema_migrations versions recorded in it


def read_archive(path: Path) -> Archive:
    """List a custom-format archive and read its schema versions; OpsError if unreadable."""
    if not path.is_file() or path.is_symlink():
        raise OpsError(f"{path}: no such backup file; {BACKUP_REFUSED}")
    tool = find_tool("pg_restore")
    try:
        listing = _run([tool, "--list", str(path)], "", f"reading {path}")
    except OpsError as exc:  # not an archive pg_dump wrote: a SQLite file, a text dump
        raise OpsError(f"{exc}; {BACKUP_REFUSED}") from None
    created, entries = "", []
    for line in listing.splitlines():
        if line.startswith(";") and "Archive created at" in line:
            created = line.split("Archive created at", 1)[1].strip()
        match = _TOC_LINE.match(line)
        if match:
            entries.append(_entry(match["rest"]))
    versions = (int(row["version"]) for _, row in _copy_rows(path, ["schema_migrations"]))
    return Archive(created, tuple(entries), tuple(versions))


def _entry(rest: str) -> tuple[str, str]:
    """(kind, object name) from the part of a TOC line after its ids."""
    words = rest.split()
    for size in (3, 2, 1):  # the longest kind first: "SEQUENCE OWNED BY", "TABLE DATA"
        kind = " ".join(words[:size])
        if kind in ALLOWED_KINDS:
            tail = words[size:]
            # "<schema> <name> <owner>" for most kinds; "-" for a missing schema
            name = tail[1] if len(tail) >= 2 else (tail[0] if tail else "")
            return kind, name
    return " ".join(words[:2]), " ".join(words[2:4])


def archive_problem(archive: Archive) -> str | None:
    """Why this archive is not a quizbot backup this quizbot can restore (None if it is)."""
    if not archive.versions:
        return "it holds no schema_migrations rows: it is not a quizbot backup"
    if why := newer(max(archive.versions), migrations("postgres")[-1][0]):
        return why
    strange = sorted({f"{kind} {name}" for kind, name in archive.entries
                      if kind not in ALLOWED_KINDS})
    if strange:
        return f"it carries {', '.join(strange[:3])}, which quizbot never creates"
    foreign = sorted({name for kind, name in archive.entries
                      if kind in ("TABLE", "TABLE DATA") and name not in QUIZBOT_TABLES})
    if foreign:
        return f"it has table(s) {', '.join(foreign[:3])} that quizbot did not create"
    return None


def dump(url: str, password: str, target: Path, *, force: bool = False) -> Archive:
    """`pg_dump --format=custom` of the database at `url` into the new file `target`."""
    bare, embedded = split_password(url)
    password = password or embedded
    tool = find_tool("pg_dump")
    try:
        with new_file(target, force=force) as tmp:
            _run([tool, "--format=custom", "--no-owner", "--no-privileges", f"--file={tmp}",
                  f"--dbname={bare}"], password, "pg_dump")
            archive = read_archive(tmp)
    except PlaceError as exc:
        raise OpsError(str(exc)) from None
    return archive


def restore(url: str, password: str, source: Path) -> None:
    """`pg_restore --clean` of `source` into the database at `url`, in one transaction."""
    bare, embedded = split_password(url)
    password = password or embedded
    _run([find_tool("pg_restore"), "--clean", "--if-exists", "--single-transaction",
          "--exit-on-error", "--no-owner", "--no-privileges", f"--dbname={bare}",
          str(source)], password, "pg_restore")


async def guard_restore(url: str, password: str, path: Path, *, force: bool) -> bool:
    """Refuse while another connection uses the database, or (unless `force`) when it holds
    activity newer than the archive; return whether newer activity will be discarded."""
    async with connected(url, password) as conn:
        others = await conn.fetchval(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()")
        if others:
            raise OpsError(f"{others} other connection(s) use the database (a quizbot "
                             "process?); stop the bot first")
        reader = on_postgres(conn)
        # Into an empty database or quizbot's own only: another application's tables are
        # refused (StoreRefused, naming them) before pg_restore writes anything beside them.
        version = await reader.read(postgres_version, redact(url), migrations("postgres")[-1][0])
        last = await reader.read(last_activity) if version else 0.0
    newer = last > archive_activity(path)
    if newer and not force:
        raise OpsError("the database holds activity newer than the backup; restoring would "
                         "lose it. Back it up first (quizbot backup PATH), then repeat with "
                         "--force")
    return newer


# The timestamps `last_activity` compares (`bot.store.commands.report_sql.last_activity`).
ACTIVITY_COLUMNS = {"users": ("created_at",), "sessions": ("started_at", "finished_at"),
                    "answers": ("answered_at",)}


def archive_activity(path: Path) -> float:
    """The newest user, session or answer timestamp in the archive's data (0 if none)."""
    return max((float(row[c]) for table, row in _copy_rows(path, list(ACTIVITY_COLUMNS))
                for c in ACTIVITY_COLUMNS[table] if row.get(c, "\\N") != "\\N"), default=0.0)


def _copy_rows(path: Path, tables: list[str]) -> Iterator[tuple[str, dict[str, str]]]:
    """(table, {column: text}) for each row of these tables in the archive, read as a stream
    of `pg_restore --data-only` COPY lines, never held in memory whole."""
    args = [find_tool("pg_restore"), "--data-only", "--file=-",
            *(f"--table={table}" for table in tables), str(path)]
    table, columns = "", None
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          env={**os.environ, "TZ": "UTC"}) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip("\n")
            if line.startswith("COPY "):  # COPY public.<table> (a, b, ...) FROM stdin;
                head, _, rest = line[5:].partition(" (")
                table = head.rsplit(".", 1)[-1].strip('"')
                columns = [c.strip().strip('"') for c in rest.split(")", 1)[0].split(",")]
            elif line == "\\.":
                columns = None
            elif columns:
                yield table, dict(zip(columns, line.split("\t"), strict=False))
    if proc.returncode != 0:
        raise OpsError(f"reading {path} failed (pg_restore exit code {proc.returncode})")
