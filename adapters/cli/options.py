"""The `--config PATH` option, given to every `quizbot` subcommand by one helper.

docs/deploy.md's `qb` appends `--config /etc/quizbot/config.yaml` to every command it runs,
as the service runs: a subcommand without the option refused the whole line ('unrecognized
arguments'). Each command says in its help what it reads from the config (or that it reads
nothing from it); tests/adapters/cli/test_config_everywhere.py walks the parser for one
that lacks it."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_config(parser: argparse.ArgumentParser, means: str, *, required: bool = False) -> None:
    """Give `parser` the --config PATH option; `means` says what the command reads from it."""
    parser.add_argument("--config", metavar="PATH", type=Path, required=required, help=means)
