"""Terminal output wrapped at word boundaries to the screen's width; URLs and other long
words stay whole (a broken URL cannot be clicked or copied), and so does every bidi-isolated
run (LRI/RLI/FSI ... PDI): a formula, number or Latin phrase split over two lines of a
right-to-left text would read out of order."""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap

MIN_COLUMNS = 20
_OPENERS, _PDI = "\u2066\u2067\u2068", "\u2069"
_GLUE = "\ue000"  # a private-use stand-in for a space inside an isolate: textwrap keeps it
# Continuation lines of a list item or an option line up under its text, not its marker.
_HANG = re.compile(r"\s*(?:[•→-]\s+|\d+\.\s+|\S{1,3}\)\s+)?")


def columns() -> int | None:
    """The screen's width: COLUMNS if set (as for every other tool), else the terminal's;
    None when output goes to a pipe or file, which has no width and is left unwrapped."""
    if not os.environ.get("COLUMNS", "").isdigit() and not sys.stdout.isatty():
        return None
    return max(MIN_COLUMNS, shutil.get_terminal_size((80, 24)).columns)


def wrap(text: str, width: int | None = None) -> str:
    """`text` with each line longer than `width` broken at spaces, never inside a word."""
    width = width or columns()
    if width is None:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        hang = _HANG.match(line)
        indent = " " * (len(hang.group(0)) if hang else 0)
        glued = _glue_isolates(line)
        pieces = textwrap.wrap(glued, width, subsequent_indent=indent, break_long_words=False,
                               break_on_hyphens=False, replace_whitespace=False) or [glued]
        out += [piece.replace(_GLUE, " ") for piece in pieces]
    return "\n".join(out)


def _glue_isolates(line: str) -> str:
    """`line` with the spaces inside bidi isolates (nested ones too) made unbreakable."""
    if _GLUE in line or not any(ch in line for ch in _OPENERS):
        return line
    depth, out = 0, []
    for ch in line:
        if ch in _OPENERS:
            depth += 1
        elif ch == _PDI and depth:
            depth -= 1
        out.append(_GLUE if ch == " " and depth else ch)
    return "".join(out)
