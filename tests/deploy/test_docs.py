"""README stays a page a newcomer navigates: short, with contents, every docs/ page linked
from it, every link and anchor resolving, and every `quizbot` command and option documented
in README or docs/."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from adapters.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
QUICK_START = "python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/quizbot play"
TESTS = ("python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' "
         "&& .venv/bin/python -m pytest")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_readme_is_short_with_contents_and_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert "## Contents" in text
    assert QUICK_START in text and TESTS in text  # .ci/run runs the second one as written
    assert TESTS in (ROOT / ".ci" / "run").read_text()
    for page in DOCS:
        assert f"](docs/{page.name}" in text, f"README does not link docs/{page.name}"


def test_every_link_and_anchor_resolves() -> None:
    broken = []
    for page in [README, *DOCS, ROOT / "deploy" / "SCALING.md"]:
        for link in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if link.startswith(("http://", "https://")):
                continue
            path, _, anchor = link.partition("#")
            target = (page.parent / path).resolve() if path else page
            if not target.exists():
                broken.append(f"{page.name}: {link}")
            elif anchor and target.suffix == ".md":
                headings = re.findall(r"^#+ (.*)$", target.read_text(encoding="utf-8"), re.M)
                if anchor not in {slug(h) for h in headings}:
                    broken.append(f"{page.name}: {link}")
    assert not broken


def commands(parser: argparse.ArgumentParser, prefix: str = "quizbot") -> dict[str, list[str]]:
    """Every command line (`quizbot telegram set-webhook`) with its long options."""
    found: dict[str, list[str]] = {}
    for action in parser._actions:  # argparse has no public walk of subcommands
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.update(commands(sub, f"{prefix} {name}"))
    if prefix != "quizbot" and not found:
        found[prefix] = [o for a in parser._actions for o in a.option_strings
                         if o.startswith("--") and o != "--help"]
    return found


def test_every_command_and_option_is_documented() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in [README, *DOCS])
    found = commands(build_parser())
    assert {"quizbot play", "quizbot check", "quizbot telegram set-webhook"} <= set(found)
    for command, options in found.items():
        assert f"`{command}" in text, command
        for option in options:
            assert re.search(rf"{re.escape(command)}[^`\n]*{option}\b", text), (command, option)
