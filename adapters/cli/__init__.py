"""The `quizbot` command line."""

from adapters.cli.main import main

__all__ = ["main"]
