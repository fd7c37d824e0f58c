"""docs/deploy.md's `qb` appends `--config /etc/quizbot/config.yaml` to every `quizbot`
command: each subcommand takes it (adapters.cli.options), with a meaning of its own."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.cli.main import build_parser, main

CONTENT = Path(__file__).parents[3] / "content"


def leaves(parser: argparse.ArgumentParser, name: str = "quizbot"
           ) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every runnable subcommand, by its full name ('quizbot quizzes add')."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield name, parser
    for action in subs:
        for word, child in action.choices.items():
            yield from leaves(child, f"{name} {word}")


def test_every_subcommand_takes_config_and_says_what_it_reads() -> None:
    # `qb import` was refused ('unrecognized arguments: --config ...').
    found = dict(leaves(build_parser()))
    assert "quizbot import" in found and "quizbot quizzes add" in found
    lacking = [name for name, parser in found.items()
               if not any("--config" in a.option_strings and a.help
                          for a in parser._actions)]
    assert lacking == []


def test_qb_import_checks_the_quiz_against_the_config_s_content_topics(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A deployment's content.dir declares its own topic; a quiz naming it imports with
    the config (as the bot will load it there) and, without one, is told the topic is
    unknown, as before."""
    content = tmp_path / "content"
    content.mkdir()
    topics = (CONTENT / "topics.yaml").read_text().replace(
        "topics:\n", "topics:\n  our-labs:\n    en: Our lab sessions\n    ur: ہماری لیب\n", 1)
    (content / "topics.yaml").write_text(topics)
    quiz = (CONTENT / "long-context.yaml").read_text().replace("id: long-context\n",
                                                               "id: labs\n", 1)
    source = tmp_path / "labs.yaml"
    source.write_text(quiz.replace("topics: [long-context, overlap]", "topics: [our-labs]", 1))
    config = tmp_path / "config.yaml"
    config.write_text(f"content:\n  dir: {content}\n")
    out = tmp_path / "out"
    out.mkdir()

    assert main(["import", str(source), "--output", str(out / "labs.yaml")]) == 1
    assert "our-labs" in capsys.readouterr().err
    assert main(["import", str(source), "--output", str(out / "labs.yaml"),
                 "--config", str(config)]) == 0, capsys.readouterr().err
    assert "topics: [our-labs]" in (out / "labs.yaml").read_text()
    config.write_text("content:\n  dir: [1]\n")
    assert main(["import", str(source), "--config", str(config)]) == 1
    assert str(config) in capsys.readouterr().err  # the config is read, and fails fast
