"""`quizbot backup|restore|stats|export|check`: operations on a deployment, no bot started.

Each reads the same config as `quizbot run` and touches the database only through
`bot.store.ops` and `bot.store.report` (read-only, except restore). A refusal prints one line
naming what is wrong and returns 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from bot.app.config import DISCORD_TOKEN_ENV, TELEGRAM_TOKEN_ENV, Config
from bot.domain.errors import ConfigError, StoreRefused
from bot.domain.quiz import Quiz, load_all
from bot.store import ops, report
from bot.store.sqlite import path_from_url

EXIT_OK, EXIT_ERROR = 0, 1


def database(config: Config) -> Path:
    """The SQLite file the config points at (these commands know SQLite only)."""
    if not config.storage_url.startswith("sqlite:"):
        raise ConfigError("storage.url: backup, restore, stats, export and check work on "
                          "SQLite; for PostgreSQL use pg_dump / pg_restore")
    return path_from_url(config.storage_url)


def _quizzes(config: Config) -> dict[str, Quiz]:
    """The quiz files, for question order and text; problems there do not stop a report."""
    quizzes, _ = load_all([config.content_dir])
    return quizzes


def _fail(message: str) -> int:
    print(f"quizbot: {message}", file=sys.stderr)
    return EXIT_ERROR


def backup(config: Config, args: argparse.Namespace) -> int:
    """quizbot backup PATH."""
    try:
        done = ops.backup(database(config), args.path)
    except ops.OpsError as exc:
        return _fail(str(exc))
    print(f"backed up {database(config)} to {done.path}: schema version {done.version}, "
          f"{done.answers} answers, {done.bytes} bytes, integrity ok")
    return EXIT_OK


def restore(config: Config, args: argparse.Namespace) -> int:
    """quizbot restore PATH [--force]."""
    try:
        done = ops.restore(args.path, database(config), force=args.force)
    except (ops.OpsError, StoreRefused) as exc:
        return _fail(str(exc))
    print(f"restored {args.path} into {database(config)}: schema version {done.version}, "
          f"{done.answers} answers" + (" (newer activity discarded)" if done.replaced_newer
                                       else ""))
    return EXIT_OK


def stats(config: Config, args: argparse.Namespace) -> int:
    """quizbot stats."""
    try:
        with ops.reading(database(config)) as conn:
            view = report.overview(conn, _quizzes(config))
    except ops.OpsError as exc:
        return _fail(str(exc))
    print(report.format_overview(view))
    return EXIT_OK


def export(config: Config, args: argparse.Namespace) -> int:
    """quizbot export --format csv|json [--chat ID] [--output PATH]."""
    scope = report.Scope.parse(args.chat)
    quizzes = _quizzes(config)
    try:
        with ops.reading(database(config)) as conn:
            learners = report.learners(conn, scope, quizzes)
            questions = report.question_rows(conn, scope, quizzes)
    except ops.OpsError as exc:
        return _fail(str(exc))
    if args.chat and not learners:
        return _fail(f"no sessions were started in chat {args.chat}")
    text = (report.export_csv(learners) if args.format == "csv"
            else report.export_json(learners, questions, scope))
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as exc:
            return _fail(f"{args.output}: cannot be written: {exc.strerror}")
        print(f"wrote {len(learners)} learner record(s) to {args.output}", file=sys.stderr)
    return EXIT_OK


def check(config: Config, args: argparse.Namespace) -> int:
    """quizbot check: every line ok or FAIL; exit 1 when any fails."""
    results: list[tuple[bool, str]] = [(True, f"config: {args.config or '<defaults>'}")]
    quizzes, problems = load_all([config.content_dir])
    if problems or not quizzes:
        results.append((False, f"content: {config.content_dir}: "
                        + ("; ".join(problems[:5]) if problems else "no quiz files")))
    elif config.default_quiz and config.default_quiz not in quizzes:
        results.append((False, f"quiz.default: no quiz {config.default_quiz!r} in "
                        f"{config.content_dir}"))
    else:
        results.append((True, f"content: {len(quizzes)} quiz(zes) in {config.content_dir}: "
                        + ", ".join(sorted(quizzes))))
    try:
        results.append((True, "database: " + ops.inspect(database(config))))
    except (ops.OpsError, ConfigError) as exc:
        results.append((False, f"database: {exc}"))
    tokens = []
    for name, enabled, token, env in (
            ("telegram", config.telegram.enabled, config.telegram_token, TELEGRAM_TOKEN_ENV),
            ("discord", config.discord.enabled, config.discord_token, DISCORD_TOKEN_ENV)):
        if not enabled:
            results.append((True, f"{name}: disabled in the config"))
        elif token:
            tokens.append(name)
            results.append((True, f"{name}: {env} is set"))
        else:
            results.append((True, f"{name}: {env} is not set (adapter will not start)"))
    if not tokens:
        results.append((False, f"tokens: none set; quizbot run would exit 2 (set "
                        f"{TELEGRAM_TOKEN_ENV} and/or {DISCORD_TOKEN_ENV})"))
    if config.metrics.port is not None:
        results.append((True, f"metrics: http://{config.metrics.listen}:"
                        f"{config.metrics.port}/metrics and /healthz"))
    for ok, line in results:
        print(f"{'ok  ' if ok else 'FAIL'} {line}")
    failed = sum(not ok for ok, _ in results)
    if failed:
        return _fail(f"check found {failed} problem(s)")
    return EXIT_OK


COMMANDS: dict[str, Callable[[Config, argparse.Namespace], int]] = {
    "backup": backup, "restore": restore, "stats": stats, "export": export, "check": check,
}
