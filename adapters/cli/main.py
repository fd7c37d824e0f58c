"""The `quizbot` command: play (terminal), run (chat platforms), validate (content), and
the operations a deployment needs: backup, restore, stats, export, check."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import logging
import os
import signal
import sys
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from adapters.cli import datadir, quizfiles
from adapters.cli.options import add_config
from bot import __version__
from bot.app.config import Config, load_config
from bot.app.logs import setup_logging
from bot.domain.errors import (
    ConfigError,
    ContentError,
    StartupFailed,
    StoreRefused,
    StoreUnavailable,
)
from bot.domain.quiz import default_content_dir

# Each command imports what it runs inside its branch: `play` and `list` start a learner's
# terminal quiz and need neither the chat platforms nor the content linter.
if TYPE_CHECKING:
    from bot.app.compose import Adapter, App
    from bot.features.reminders import Sender

log = logging.getLogger("quizbot")

EXIT_OK, EXIT_ERROR, EXIT_NO_TOKEN = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C
# After SIGTERM each adapter gets this long to stop taking updates and finish the ones in
# flight; then the store flushes and closes. Under Docker's default 10 s stop grace period.
STOP_BOUND = 8.0
OPS = ("backup", "restore", "stats", "export", "check")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(
        prog="quizbot", description="Quizzes on model and pipeline parallelism, from first "
                                    "steps to expert.",
        epilog="To take the quiz in this terminal: quizbot play (every quiz: quizbot list).")
    parser.add_argument("--version", action="version", version=f"quizbot {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="take the quiz in this terminal (no token needed)")
    play.add_argument("--quiz", metavar="ID", help="quiz id, as quizbot list shows it "
                                                   "(default: the config's quiz.default, "
                                                   "else the easiest quiz)")
    play.add_argument("--lang", choices=("en", "ur"), help="language (remembered per user)")
    play.add_argument("--user", metavar="NAME", help="whose progress to use (default: you)")
    add_config(play, "config file (optional): its database, content.dir and defaults")
    bidi = {"choices": ("logical", "visual"), "default": "logical",
            "help": "visual: lay Urdu out here, for terminals without bidi (xterm, tmux, "
                    "kitty, alacritty, Windows Terminal); logical (default) for GNOME "
                    "Terminal, Konsole, mlterm"}
    play.add_argument("--bidi", **bidi)  # type: ignore[arg-type]
    play.add_argument("--review", action="store_true",
                      help="review the questions due for you now, across every quiz; with "
                           "--quiz ID, the ones you missed in your last attempt of it")

    listing = sub.add_parser("list", help="the quizzes, one line each (id, title, questions, "
                                          "level, your best score)")
    listing.add_argument("--lang", choices=("en", "ur"), help="language (remembered per user)")
    listing.add_argument("--user", metavar="NAME", help="whose best scores (default: you)")
    add_config(listing, "config file (optional): its database and content.dir")
    listing.add_argument("--bidi", **bidi)  # type: ignore[arg-type]

    run = sub.add_parser("run", help="run the Telegram and/or Discord bot")
    add_config(run, "config file (start from deploy/config.example.yaml; tokens come from "
                    "TELEGRAM_BOT_TOKEN and DISCORD_BOT_TOKEN)", required=True)

    copy = sub.add_parser("copy-db", help="copy all data between stores (target must be empty)")
    copy.add_argument("--from", dest="source", metavar="URL",
                      help="storage URL to read, e.g. sqlite:///data/quizbot.db")
    copy.add_argument("--to", dest="target", metavar="URL",
                      help="empty storage URL to fill, e.g. postgresql://user@host:5432/quizbot")
    add_config(copy, "its storage.url stands for --from or --to, whichever is left out")

    telegram = sub.add_parser("telegram", help="Telegram operations")
    # metavar: a missing command is named as usage shows it, not by its dest
    telegram_sub = telegram.add_subparsers(dest="telegram_command", required=True,
                                           metavar="{set-webhook}")
    hook = telegram_sub.add_parser("set-webhook", help="register the configured webhook once")
    add_config(hook, "config file: telegram.webhook's public_url and secret", required=True)

    validate = sub.add_parser("validate", help="check quiz files and list every error")
    validate.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                          help="files or folders (default: the --config file's content.dir, "
                               "else the shipped content/)")
    add_config(validate, "config whose content.dir is checked when no PATH is given")

    quizfiles.add_parsers(sub)

    config_help = "config file (default: the built-in defaults and, as for play, the " \
                  "database in your data folder)"
    backup = sub.add_parser("backup", help="consistent copy of the database, safe while the "
                                           "bot runs")
    backup.add_argument("path", type=Path, metavar="PATH", help="new file to write")
    backup.add_argument("--force", action="store_true", help="replace an existing PATH")
    restore = sub.add_parser("restore", help="replace the database with a backup (bot stopped)")
    restore.add_argument("path", type=Path, metavar="PATH", help="backup file to restore")
    restore.add_argument("--force", action="store_true",
                         help="restore even though the database has newer activity")
    sub.add_parser("stats", help="users, sessions, answers and per-question accuracy")
    export = sub.add_parser("export", help="results per learner and question, for a teacher")
    export.add_argument("--format", choices=("csv", "json"), required=True,
                        help="csv: a row per learner and question, for a spreadsheet; json: "
                             "learners and per-question accuracy, for a script")
    export.add_argument("--chat", metavar="ID",
                        help="only sessions started in this chat (ID or platform:ID)")
    export.add_argument("--output", "-o", metavar="PATH", type=Path,
                        help="write here instead of standard output (a new file)")
    export.add_argument("--force", action="store_true", help="replace an existing --output")
    sub.add_parser("check", help="check config, content, database and tokens; start nothing")
    for name in OPS:
        add_config(sub.choices[name], config_help)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else argv):  # bare `quizbot`: what it can do
        parser.print_help()
        return 2
    args = parser.parse_args(argv)
    try:
        if args.command == "validate":  # a deployment's own folder: as `run` reads it
            folder = (load_config(args.config).content_dir if args.config is not None
                      else default_content_dir())
            return validate(args.paths or [folder])
        if args.command == "import":
            return quizfiles.import_file(args)
        if args.command == "export-quiz":
            return quizfiles.export_file(args)
        if args.command == "quizzes":
            return quizfiles.installed_command(args)
        if args.command == "copy-db":
            return copy_db(args)
        progress = args.command in ("play", "list", *OPS)  # the learner's database
        config = datadir.load(args.config) if progress else load_config(args.config)
        setup_logging(config, quiet=args.command in ("play", "list"))
        if args.command in ("play", "list"):
            return terminal(args, config, argv)
        if args.command in OPS:
            from adapters.cli import ops as ops_cli

            return ops_cli.COMMANDS[args.command](config, args)
        if args.command == "telegram":
            return set_webhook(config)
        return asyncio.run(run(config))
    except (ConfigError, ContentError, StoreRefused, StoreUnavailable, StartupFailed) as exc:
        print(f"quizbot: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        # Ctrl-C before a command had anything to save (`quizbot play` still opening the
        # store, `quizbot list`): stop as other tools do, the shell's 130, no traceback.
        print(file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`quizbot play | head`): stop quietly, as other tools do. Point
        # stdout at /dev/null so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except Exception:
        # Through logging, not Python's default hook: the log handler redacts tokens.
        log.exception("quizbot stopped on an unexpected error")
        return EXIT_ERROR


def terminal(args: argparse.Namespace, config: Config, argv: Sequence[str] | None) -> int:
    """`quizbot play` and `quizbot list`, reusing the content check's passes of earlier
    starts (`adapters.cli.verdicts`)."""
    from adapters.cli.verdicts import user_passes
    from adapters.terminal.play import list_quizzes, play

    user, passes = args.user or getpass.getuser(), user_passes()
    if args.command == "list":
        return list_quizzes(config, lang=args.lang, user=user, bidi=args.bidi,
                            passes=passes)
    again = ["quizbot", *(sys.argv[1:] if argv is None else argv)]
    return play(config, quiz_id=args.quiz, lang=args.lang, user=user, review=args.review,
                again=again, bidi=args.bidi, passes=passes)


def validate(paths: Sequence[Path]) -> int:
    """Print every problem in the quiz files and return 1, or a summary per quiz and 0.

    Quality warnings (the right option is usually the longest...) are printed too but do
    not fail the check."""
    from bot.domain.quiz.formats import SUFFIXES
    from bot.features.content_check import Checked, check_paths

    # a teacher's GIFT, Moodle XML, Aiken or CSV file is checked by import, which reads it
    # (here it was 'week3.csv:1: must be a mapping, got a string')
    other = [p for p in paths if p.suffix.lower() in SUFFIXES and not p.is_dir()]
    checked = (check_paths([p for p in paths if p not in other])
               if len(other) < len(paths) else Checked())
    checked.problems[:0] = [f"{p}: is not a quiz file (YAML) but a file to import; "
                            f"`quizbot import {p}` converts it and checks it as validate "
                            "does" for p in other]
    for summary in checked.summaries:
        print(f"ok  {summary}")
    for warning in checked.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for problem in checked.problems:
        print(problem, file=sys.stderr)
    if checked.problems:
        print(f"{len(checked.problems)} problem(s) found.", file=sys.stderr)
    return EXIT_ERROR if checked.problems else EXIT_OK


def copy_db(args: argparse.Namespace) -> int:
    """Copy every row from --from to the empty --to (one of them may be the --config file's
    storage.url, as `qb copy-db` in docs/deploy.md passes it); print what was copied."""
    from bot.domain.secret import Secret
    from bot.ops.copy_db import copy_db as copy_all
    from bot.store.urls import redact, split_password

    source, target = args.source, args.target
    if (source is None and target is None) or (
            (source is None or target is None) and args.config is None):
        print("quizbot copy-db: give --from URL and --to URL, or one of them with --config "
              "PATH: its storage.url is the other", file=sys.stderr)
        return 2
    (src, src_pw), (dst, dst_pw) = split_password(source or ""), split_password(target or "")
    named = ["--from", "--to"]  # what gave each side, as a refusal names it
    if args.config is not None and (source is None or target is None):
        config = load_config(args.config)
        mine = (config.storage_url, config.storage_password.reveal())
        side = 0 if source is None else 1
        named[side] = f"storage.url in {args.config}"
        if source is None:
            (src, src_pw), source = mine, config.storage_url
        else:
            (dst, dst_pw), target = mine, config.storage_url
    copied = asyncio.run(copy_all(src, dst, source_password=Secret(src_pw),
                                  target_password=Secret(dst_pw),
                                  named=(named[0], named[1])))
    rows = ", ".join(f"{n} {table}" for table, n in copied.rows.items())
    print(f"copied {rows} from {redact(source)} to {redact(target)}; counts verified")
    return EXIT_OK


def set_webhook(config: Config) -> int:
    """`quizbot telegram set-webhook`: one setWebhook for every worker behind the proxy."""
    from adapters.telegram.webhook import set_webhook as register

    url = asyncio.run(register(config))
    print(f"webhook registered: {url}")
    return EXIT_OK


def wanted_adapters(config: Config) -> list[str]:
    """Platforms that are enabled and have a token in the environment."""
    from adapters.base import registry

    return registry.wanted(config)


def reminder_senders(adapters: Sequence[Adapter]) -> dict[str, Sender]:
    """How each adapter that has one sends reminders, by platform."""
    senders: dict[str, Sender] = {}
    for adapter in adapters:
        make = getattr(adapter, "reminder_sender", None)
        if make is not None:
            senders[adapter.name] = make()
    return senders


def _make_adapter(platform: str, app: App) -> Adapter:
    from adapters.base import registry

    return registry.ADAPTERS[platform].load()(app)


async def _unless_stopped(work: Coroutine[object, object, None], stop: asyncio.Event) -> bool:
    """Run `work` to its end (True), or cancel it when `stop` is set first (False): a
    signal during start-up (retries against a platform that is down) stops at once, not
    after startup_timeout. An adapter cancelled mid-start closes what it opened."""
    task = asyncio.ensure_future(work)
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait((task, stopped), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
    if not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return False
    task.result()  # its error, if any
    return True


async def run(config: Config) -> int:
    """Start every enabled adapter with a token; stop them all on SIGINT/SIGTERM."""
    from adapters.base import registry
    from bot.app import runtime
    from bot.app.compose import open_app, serve_jobs
    from bot.app.metrics import Health, mount
    from bot.domain.platforms import token_envs
    from bot.store.commands import sessions_sql

    platforms = wanted_adapters(config)
    if not platforms and (idle := registry.idle_tokens(config)):
        print(f"quizbot: no platform to run: {idle}", file=sys.stderr)
        return EXIT_NO_TOKEN
    if not platforms:
        print(
            f"quizbot: no bot token set. Set {token_envs()} "
            "(and enable the platform in the config), or try the quiz with no token: "
            "quizbot play", file=sys.stderr)
        return EXIT_NO_TOKEN
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    code = EXIT_OK
    async with open_app(config) as app:
        started: list[Adapter] = []
        if config.metrics.port is not None:
            health = Health(lambda: app.store.read(sessions_sql.get_session, 0), platforms, started)
            mount(app.web.server(config.metrics.listen, config.metrics.port,
                                 key="metrics.port"), app.metrics, health)
        try:
            # Built first, so every route is on its server before the servers start.
            adapters = [_make_adapter(platform, app) for platform in platforms]

            async def start_all() -> None:
                await app.web.start()
                for adapter in adapters:
                    await adapter.start()
                    started.append(adapter)
                    log.info("%s adapter started", adapter.name)

            if not await _unless_stopped(start_all(), stop):
                log.info("stopped during start-up")
                return code
            await serve_jobs(app, reminder_senders(started))
            runtime.settle()  # the collector and the GIL tuned for serving
            waiters = [asyncio.ensure_future(stop.wait())] + [
                asyncio.ensure_future(a.wait_stopped()) for a in started]
            _, pending = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            for waiter in pending:
                waiter.cancel()
            if not stop.is_set():
                log.error("an adapter stopped on its own; shutting down")
                code = EXIT_ERROR
            log.info("shutting down")
        finally:
            await app.scheduler.stop()
            for adapter in reversed(started):
                try:
                    await asyncio.wait_for(adapter.stop(), STOP_BOUND)
                except TimeoutError:
                    log.error("%s adapter did not stop within %.0f s", adapter.name, STOP_BOUND)
                    code = EXIT_ERROR
                except Exception:
                    log.exception("%s adapter failed to stop cleanly", adapter.name)
    log.info("stopped")
    return code


if __name__ == "__main__":
    sys.exit(main())
