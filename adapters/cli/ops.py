"""`quizbot backup|restore|stats|export|check`: operations on a deployment, no bot started.

Each reads the same config as `quizbot run` and works on either store: SQLite through
`bot.ops.sqlite_backup` (the stdlib's backup API), PostgreSQL through `bot.ops.pg_backup`
(`pg_dump`/`pg_restore`); stats, export and check run the store's read commands through
`bot.ops.reader`, which never migrates or writes, and `bot.present.reporting` formats
what they read. A refusal prints one line naming what is wrong and returns 1.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from bot.app.config import Config
from bot.domain.errors import ConfigError, EmptyDatabase, StoreRefused
from bot.domain.platforms import chat_apps, token_envs
from bot.domain.quiz import Quiz, load_all
from bot.features.installed import load_installed
from bot.ops import pg_backup, sqlite_backup
from bot.ops.files import PlaceError, refuse_database, refuse_existing, write_new
from bot.ops.reader import inspect, open_reader
from bot.present import reporting
from bot.present.limits import check_rendered_sizes
from bot.store.command import Command
from bot.store.commands.quizzes_sql import installed_quizzes
from bot.store.commands.report_sql import Scope, export_rows, overview, summary
from bot.store.migrate import migrations
from bot.store.sqlite import path_from_url
from bot.store.urls import redact, scheme_of

EXIT_OK, EXIT_ERROR = 0, 1
T = TypeVar("T")
Refusal = (StoreRefused, PlaceError, ConfigError)  # OpsError is a StoreRefused
INSTALLED_SINCE = 11  # the schema version (migration 0011) that has installed_quizzes


def _postgres(config: Config) -> bool:
    return scheme_of(config.storage_url) == "postgresql"


def _password(config: Config) -> str:
    return config.storage_password.reveal()


def _where(config: Config) -> str:
    return redact(config.storage_url) if _postgres(config) else str(path_from_url(
        config.storage_url))


def _quizzes(config: Config) -> dict[str, Quiz]:
    """The quiz files and the quizzes installed in the database (an upload's questions are
    named and ordered as a file's), for question order and text; problems there do not stop
    a report. Read through the passes earlier starts kept, as `play` does: a file they
    passed is not sampled again (a second of CPU for the computed quiz)."""
    from adapters.cli.verdicts import user_passes

    quizzes, _ = load_all([config.content_dir], passes=user_passes())
    try:
        rows = _read(config, installed_quizzes)
    except Refusal:  # a database older than installed quizzes: the files alone
        return quizzes
    with tempfile.TemporaryDirectory(prefix="quizbot-report-") as root:
        return {**quizzes, **load_installed(rows, Path(root))}


def _fail(message: str) -> int:
    print(f"quizbot: {message}", file=sys.stderr)
    return EXIT_ERROR


def _start(config: Config, service: str = "start") -> str:
    """The command that makes (and migrates) this config's database: the bot run with the
    same --config, or without one a first `quizbot play` (the learner's data folder)."""
    if config.file is None:
        return "quizbot play"
    return f"quizbot run --config {shlex.quote(str(config.file))}, or {service} its service"


def _made(config: Config) -> None:
    """StoreRefused for a SQLite database not made yet (nothing to read), saying what makes
    it: the ops commands never create one."""
    if not _postgres(config) and not path_from_url(config.storage_url).exists():
        first = ("a first quizbot play" if config.file is None
                 else f"start the bot once: {_start(config)}")
        raise StoreRefused(
            f"{_where(config)}: no database yet; quizbot makes it when it first starts "
            f"({first}), and until then there is nothing to read")


def backup(config: Config, args: argparse.Namespace) -> int:
    """quizbot backup PATH [--force]."""
    try:
        _made(config)
        if _postgres(config):
            _read(config, summary)  # quizbot's database, as on SQLite, or StoreRefused
            archive = pg_backup.dump(config.storage_url, _password(config), args.path,
                                  force=args.force)
            print(f"backed up {_where(config)} to {args.path} (pg_dump custom format): schema "
                  f"version {max(archive.versions, default=0)}, {len(archive.entries)} "
                  f"entries, {args.path.stat().st_size} bytes")
            return EXIT_OK
        done = sqlite_backup.backup(path_from_url(config.storage_url), args.path, force=args.force)
    except Refusal as exc:
        return _fail(str(exc))
    print(f"backed up {_where(config)} to {done.path}: schema version {done.version}, "
          f"{_count(done.answers, 'answer')}, {done.bytes} bytes, integrity ok")
    return EXIT_OK


def _other_kind(path: Path, postgres: bool) -> str | None:
    """Why `path` is a backup of the other kind of store (None when it is not): the two
    tools' own errors ("not a valid archive", "not a SQLite database") do not say so."""
    try:
        with path.open("rb") as file:
            head = file.read(16)
    except OSError:
        return None  # the restore itself says what is wrong with the file
    if postgres and head == b"SQLite format 3\0":
        return (f"{path}: is a SQLite backup and storage.url is PostgreSQL: restore it with "
                "a sqlite:/// storage.url, then move it with quizbot copy-db")
    if not postgres and head.startswith(b"PGDMP"):
        return (f"{path}: is a PostgreSQL backup (pg_dump) and storage.url is SQLite: restore "
                "it with a postgresql:// storage.url, then move it with quizbot copy-db")
    return None


def restore(config: Config, args: argparse.Namespace) -> int:
    """quizbot restore PATH [--force]."""
    if other := _other_kind(args.path, _postgres(config)):
        return _fail(other)
    try:
        if _postgres(config):
            return _restore_postgres(config, args)
        done = sqlite_backup.restore(args.path, path_from_url(config.storage_url), force=args.force)
    except Refusal as exc:
        return _fail(str(exc))
    discarded = " (newer activity discarded)" if done.replaced_newer else ""
    print(f"restored {args.path} into {_where(config)}: schema version {done.version}, "
          f"{_count(done.answers, 'answer')}{discarded}")
    return EXIT_OK


def _restore_postgres(config: Config, args: argparse.Namespace) -> int:
    archive = pg_backup.read_archive(args.path)
    problem = pg_backup.archive_problem(archive)
    if problem:
        return _fail(f"{args.path}: refused: {problem}")
    newer = asyncio.run(pg_backup.guard_restore(config.storage_url, _password(config), args.path,
                                             force=args.force))
    pg_backup.restore(config.storage_url, _password(config), args.path)
    print(f"restored {args.path} into {_where(config)}: schema version "
          f"{max(archive.versions)}" + (" (newer activity discarded)" if newer else ""))
    return EXIT_OK


def _read(config: Config, fn: Callable[..., Command[T]], *args: Any) -> T:
    """Run one read command on a read-only connection to the configured database; a
    database an older quizbot wrote that lacks what the command reads is StoreRefused
    saying to start the bot once (it migrates at start; these commands never do)."""
    _made(config)

    async def read(command: Callable[..., Command[Any]], *given: Any) -> Any:
        async with open_reader(config.storage_url, _password(config)) as reader:
            return await reader.read(command, *given)

    try:
        result: T = asyncio.run(read(fn, *args))
    except Exception as exc:
        if not _missing_schema(exc):
            raise
        version = asyncio.run(read(summary))[0]
        latest = migrations("postgres" if _postgres(config) else "sqlite")[-1][0]
        if version >= latest:
            raise
        raise StoreRefused(
            f"{_where(config)}: written by an older quizbot (schema version {version}; this "
            f"one reads {latest}): start the bot once with this version ("
            f"{_start(config, 'restart')}) to upgrade it, then run "
            "this command again"
        ) from None
    return result


def _missing_schema(exc: BaseException) -> bool:
    """Whether `exc` is a read of a table or column the database does not have."""
    if isinstance(exc, sqlite3.OperationalError):
        return str(exc).startswith(("no such table", "no such column"))
    return type(exc).__name__ in ("UndefinedTableError", "UndefinedColumnError")


def stats(config: Config, args: argparse.Namespace) -> int:
    """quizbot stats."""
    try:
        view = _read(config, overview)
    except Refusal as exc:
        return _fail(str(exc))
    play = "quizbot play" + ("" if config.file is None
                             else f" --config {shlex.quote(str(config.file))}")
    print(reporting.format_overview(view, _quizzes(config), play))
    return EXIT_OK


def export(config: Config, args: argparse.Namespace) -> int:
    """quizbot export --format csv|json [--chat ID] [--output PATH [--force]]."""
    try:
        if args.output is not None:  # refuse a bad target before reading anything
            if not _postgres(config):
                refuse_database(args.output, path_from_url(config.storage_url))
            refuse_existing(args.output, force=args.force)
        rows = _read(config, export_rows, Scope.parse(args.chat))
    except Refusal as exc:
        return _fail(str(exc))
    if args.chat and not rows.learners:
        return _fail(f"no sessions were started in chat {args.chat}; check the id: quizbot "
                     "stats lists the groups with learners and the id --chat takes")
    write = reporting.export_csv if args.format == "csv" else reporting.export_json
    text = write(rows, _quizzes(config))
    if args.output is None:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        write_new(args.output, text.encode("utf-8"), force=args.force)
    except PlaceError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{args.output}: cannot be written: {exc.strerror}")
    print(f"wrote {_count(len(rows.learners), 'learner record')} to {args.output}",
          file=sys.stderr)
    return EXIT_OK


def _database_line(config: Config) -> tuple[str, int]:
    """What `check` says of the database, and its schema version (0: no tables yet)."""
    where, postgres = _where(config), _postgres(config)
    try:
        found = _read(config, summary) if postgres else inspect(path_from_url(
            config.storage_url))
    except EmptyDatabase:  # as `createdb` or a failed first start left it: `run` migrates it
        return f"{where}: empty (quizbot creates its tables on first start)", 0
    if found is None:
        return f"{where}: not created yet (it will be on first start)", 0
    (version, users, sessions, answers) = found
    latest = migrations("postgres" if postgres else "sqlite")[-1][0]
    pending = f", {latest - version} migration(s) to apply at start" if version < latest else ""
    return (f"{where}: schema version {version}{pending}; {_count(users, 'user')}, "
            f"{_count(sessions, 'session')}, {_count(answers, 'answer')}"), version


def _count(n: int, one: str, many: str = "") -> str:
    """'1 user', '2 users'."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def _default_quiz_line(config: Config, quizzes: dict[str, Quiz], version: int) -> str | None:
    """quiz.default names a quiz of content.dir, one installed in the database, or none:
    then newcomers start with the easiest quiz (a typo the bot only logs)."""
    wanted = config.default_quiz
    if not wanted or wanted in quizzes:
        return None
    installed = ({row.quiz_id for row in _read(config, installed_quizzes)}
                 if version >= INSTALLED_SINCE else set())
    if wanted in installed:
        return f"quiz.default: {wanted!r} is installed in the database"
    return (f"quiz.default: no quiz {wanted!r} in {config.content_dir} or installed in the "
            "database, so newcomers start with the easiest quiz until one is (quizbot quizzes "
            "add); check the id against quizbot list")


def _dashboard_line(config: Config) -> str | None:
    """The dashboard needs web.port (a process serves the page) and web.public_url (the chats
    link to it); with only one of them, say what the other changes."""
    port, url = config.web.port, config.web.public_url
    if port is None and not url:
        return None
    if port is not None and url:
        return f"dashboard: {url}/app, served on http://{config.web.listen}:{port}"
    if port is not None:
        return (f"dashboard: served on http://{config.web.listen}:{port}, but /dashboard in "
                "the chats answers that it is not set up until web.public_url is set")
    return (f"dashboard: the chats link to {url}/app, but this process serves no page "
            "(web.port is off): another process must, or set web.port")


def check(config: Config, args: argparse.Namespace) -> int:
    """quizbot check: every line ok or FAIL; exit 1 when any fails."""
    results: list[tuple[bool, str]] = [(True, f"config: {args.config or '<defaults>'}")]
    quizzes, problems = load_all([config.content_dir], check=check_rendered_sizes)
    if problems or not quizzes:
        results.append((False, "content: " + ("; ".join(problems[:5]) if problems else
                                              f"{config.content_dir}: no quiz files")))
    else:
        counted = _count(len(quizzes), "quiz", "quizzes")
        results.append((True, f"content: {counted} in {config.content_dir}: "
                        + ", ".join(sorted(quizzes))))
    try:
        said, version = _database_line(config)
        results.append((True, "database: " + said))
        if quizzes and (default := _default_quiz_line(config, quizzes, version)):
            results.insert(2, (True, default))  # under the content line
    except Refusal as exc:
        results.append((False, f"database: {exc}"))
    tokens = []
    for platform in chat_apps():
        name, env, token = platform.name, platform.token_env, config.token(platform.name)
        if not config.enabled(name):
            results.append((True, f"{name}: disabled in the config"))
        elif token:
            tokens.append(name)
            results.append((True, f"{name}: {env} is set"))
        else:
            results.append((True, f"{name}: {env} is not set (adapter will not start)"))
    if not tokens:
        from adapters.base.registry import idle_tokens

        results.append((False, f"tokens: none set; quizbot run would exit 2 (set "
                        f"{token_envs()})" if (idle := idle_tokens(config)) is None else
                        f"tokens: no enabled platform has one; quizbot run would exit 2 "
                        f"({idle})"))
    if config.metrics.port is not None:
        results.append((True, f"metrics: http://{config.metrics.listen}:"
                        f"{config.metrics.port}/metrics and /healthz"))
    if line := _dashboard_line(config):
        results.append((True, line))
    for ok, line in results:
        print(f"{'ok  ' if ok else 'FAIL'} {line}")
    failed = sum(not ok for ok, _ in results)
    if failed:
        return _fail(f"check found {failed} problem(s)")
    return EXIT_OK


COMMANDS: dict[str, Callable[[Config, argparse.Namespace], int]] = {
    "backup": backup, "restore": restore, "stats": stats, "export": export, "check": check,
}
