"""The `quizbot` command: play (terminal), run (chat platforms), validate (content)."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import importlib
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from bot import __version__
from bot.app import Adapter, App, open_app
from bot.config import DISCORD_TOKEN_ENV, TELEGRAM_TOKEN_ENV, Config, load_config
from bot.errors import (
    ConfigError,
    ContentError,
    StartupFailed,
    StoreRefused,
    StoreUnavailable,
)
from bot.logs import setup_logging
from bot.quiz import default_content_dir, load_all

log = logging.getLogger("quizbot")

EXIT_OK, EXIT_ERROR, EXIT_NO_TOKEN = 0, 1, 2
ADAPTERS = {  # platform -> "module:Class", imported only when enabled
    "telegram": "adapters.telegram:TelegramAdapter",
    "discord": "adapters.discord:DiscordAdapter",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(
        prog="quizbot", description="A hard quiz on model and pipeline parallelism.")
    parser.add_argument("--version", action="version", version=f"quizbot {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="take the quiz in this terminal (no token needed)")
    play.add_argument("--quiz", metavar="ID", help="quiz id (default: the first quiz)")
    play.add_argument("--lang", choices=("en", "ur"), help="language (remembered per user)")
    play.add_argument("--user", metavar="NAME", help="whose progress to use (default: you)")
    play.add_argument("--config", metavar="PATH", type=Path, help="config file (optional)")

    run = sub.add_parser("run", help="run the Telegram and/or Discord bot")
    run.add_argument("--config", metavar="PATH", type=Path, required=True)

    validate = sub.add_parser("validate", help="check quiz files and list every error")
    validate.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                          help="files or folders (default: the shipped content/)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "validate":
            return validate(args.paths or [default_content_dir()])
        config = load_config(args.config)
        setup_logging(config)
        if args.command == "play":
            from adapters.terminal import play

            return play(config, quiz_id=args.quiz, lang=args.lang,
                        user=args.user or getpass.getuser())
        return asyncio.run(run(config))
    except (ConfigError, ContentError, StoreRefused, StoreUnavailable, StartupFailed) as exc:
        print(f"quizbot: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except Exception:
        # Through logging, not Python's default hook: the log handler redacts tokens.
        log.exception("quizbot stopped on an unexpected error")
        return EXIT_ERROR


def validate(paths: Sequence[Path]) -> int:
    """Print every problem in the quiz files and return 1, or a summary per quiz and 0."""
    quizzes, problems = load_all(paths)
    for quiz in quizzes.values():
        print(f"ok  {quiz.source}: {quiz.id} ({quiz.difficulty}), {len(quiz.questions)} "
              f"questions, languages {', '.join(quiz.languages)}")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s) found.", file=sys.stderr)
    return EXIT_ERROR if problems else EXIT_OK


def wanted_adapters(config: Config) -> list[str]:
    """Platforms that are enabled and have a token in the environment."""
    wanted = []
    if config.telegram.enabled and config.telegram_token:
        wanted.append("telegram")
    if config.discord.enabled and config.discord_token:
        wanted.append("discord")
    return wanted


def _make_adapter(platform: str, app: App) -> Adapter:
    module, cls = ADAPTERS[platform].split(":")
    factory = getattr(importlib.import_module(module), cls)
    adapter: Adapter = factory(app)
    return adapter


async def run(config: Config) -> int:
    """Start every enabled adapter with a token; stop them all on SIGINT/SIGTERM."""
    platforms = wanted_adapters(config)
    if not platforms:
        print(
            f"quizbot: no bot token set. Set {TELEGRAM_TOKEN_ENV} and/or {DISCORD_TOKEN_ENV} "
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
        try:
            for platform in platforms:
                adapter = _make_adapter(platform, app)
                await adapter.start()
                started.append(adapter)
                log.info("%s adapter started", platform)
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
            for adapter in reversed(started):
                try:
                    await adapter.stop()
                except Exception:
                    log.exception("%s adapter failed to stop cleanly", adapter.name)
    return code


if __name__ == "__main__":
    sys.exit(main())
