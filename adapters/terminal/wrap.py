"""Terminal output wrapped at word boundaries to the screen's width; URLs and other long
words stay whole (a broken URL cannot be clicked or copied)."""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap

MIN_COLUMNS = 20
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
        out += textwrap.wrap(line, width, subsequent_indent=indent, break_long_words=False,
                             break_on_hyphens=False, replace_whitespace=False) or [line]
    return "\n".join(out)
