"""Terminal output wrapped at word boundaries to the screen's width; URLs and other long
words stay whole (a broken URL cannot be clicked or copied), and so does every bidi-isolated
run (LRI/RLI/FSI ... PDI): a formula, number or Latin phrase split over two lines of a
right-to-left text would read out of order."""

from __future__ import annotations

import os
import re
import shutil
import sys
import unicodedata

from bot.present.visual import display_order

MIN_COLUMNS = 20
_OPENERS, _PDI = "\u2066\u2067\u2068", "\u2069"
_GLUE = "\ue000"  # a private-use stand-in for a space inside an isolate: textwrap keeps it
RLM = "\u200f"  # RIGHT-TO-LEFT MARK: starts each wrapped row of a right-to-left line
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")
# Continuation lines of a list item or an option line up under its text, not its marker
# (an answered option's mark too: "✅ B) ...").
_HANG = re.compile(r"\s*(?:[•→-]\s+|\d+\.\s+|(?:[✅❌▫]\ufe0f?\s+)?\S{1,3}\)\s+)?")
_SGR = re.compile("\033\\[[0-9;]*m")  # the bold a terminal's Markup puts round a letter


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
        if _width(line) <= width:
            out.append(line)
            continue
        hang = _HANG.match(_SGR.sub("", line))
        indent = " " * (_shown_width(hang.group(0)) if hang else 0)
        pieces = [piece.replace(_GLUE, " ")
                  for piece in _fill(_glue_isolates(line), width, indent)]
        if _RTL.search(line):  # each row its own paragraph: a terminal (tmux) that drops
            # an isolate at a row's start would otherwise lay the row out left to right; so
            # would any terminal a first row with no Urdu letter (an id, a formula)
            pieces = [pieces[0] if _RTL.search(pieces[0]) else RLM + pieces[0],
                      *(RLM + piece for piece in pieces[1:])]
        out += pieces
    return "\n".join(out)


def _width(text: str) -> int:
    """At least the columns `text` takes: escape codes take none, wide characters (✅) two;
    every other character counts one, so a row never runs past the screen."""
    text = _SGR.sub("", text)
    return len(text) + sum(unicodedata.east_asian_width(ch) in "WF" for ch in text)


def _shown_width(text: str) -> int:
    """The columns `text` takes, bidi marks and isolates none: how far to indent."""
    return _width("".join(ch for ch in text if unicodedata.category(ch) != "Cf"))


def _fill(line: str, width: int, indent: str) -> list[str]:
    """`line` broken at spaces into rows of at most `width` columns (escape codes do not
    count); a word longer than a row gets a row of its own, whole. Rows after the first
    start with `indent`; spaces at a break are dropped, others kept."""
    lead = line[:len(line) - len(line.lstrip(" "))]
    rows: list[str] = []
    row, used, space = lead, _width(lead), ""
    chunks = re.split("( +)", line[len(lead):])
    chunks = [piece for i, chunk in enumerate(chunks) for piece in (
        [chunk] if i % 2 or _width(chunk) <= width else _cut_isolate(chunk, width))]
    for i, chunk in enumerate(chunks):
        if i % 2:
            space = chunk
            continue
        if not chunk:
            continue
        size = _width(chunk)
        if row.strip() and used + len(space) + size > width:
            rows.append(row)
            row, used = indent + chunk, len(indent) + size
        else:
            row, used = row + space + chunk, used + len(space) + size
    rows.append(row)
    return rows


_ONE_ISOLATE = re.compile(f"([^{_OPENERS}{_PDI}]*)([{_OPENERS}])([^{_OPENERS}{_PDI}]*)"
                          f"{_PDI}([^{_OPENERS}{_PDI}]*)")


def _cut_isolate(chunk: str, width: int) -> list[str]:
    """A glued isolated run wider than a row ("micro-batch size × sequence length × hidden
    size = ..."), cut at its inner spaces into runs that each fill a row and are isolated
    again, joined by spaces: else the terminal would cut it anywhere, mid-word. Each piece
    all but fills its row, so two never share one (their order would flip there)."""
    match = _ONE_ISOLATE.fullmatch(chunk)
    if match is None or _GLUE not in match.group(3):
        return [chunk]  # one word, or nested isolates: left whole
    head, opener, body, tail = match.groups()
    room = width - 3 - len(head) - len(tail)
    pieces: list[str] = []
    for word in body.split(_GLUE):
        if pieces and _width(pieces[-1] + _GLUE + word) <= room:
            pieces[-1] += _GLUE + word
        else:
            pieces.append(word)
    runs = [opener + piece + _PDI for piece in pieces]
    runs[0], runs[-1] = head + runs[0], runs[-1] + tail
    return [part for run in runs for part in (run, " ")][:-1]


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


def bands(figure: str, width: int | None) -> str:
    """A text timeline ("GPU1 F1 F2 .. B1") cut into stacked bands that fit `width`, each
    row keeping its GPU label; other lines (the legend) are left to `wrap`."""
    lines = figure.split("\n")
    rows = [line.split() for line in lines if line.startswith("GPU")]
    if width is None or not rows or all(len(line) <= width for line in lines):
        return figure
    label = max(len(r[0]) for r in rows) + 1
    cell = max(len(c) for r in rows for c in r[1:]) + 1
    per = max(1, (width - label) // cell)
    cells = max(len(r) - 1 for r in rows)
    out: list[str] = []
    for start in range(0, cells, per):
        if out:
            out.append("")
        out += [r[0].ljust(label) + " ".join(c.ljust(cell - 1) for c in r[1 + start:1 + start
                                                                         + per]).rstrip()
                for r in rows]
    return "\n".join(out + [line for line in lines if not line.startswith("GPU")])


_CONTROLS = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visual(text: str, width: int | None = None) -> str:
    """`text` (already wrapped) with each right-to-left row in display order, for terminals
    that do not lay out bidirectional text (`quizbot play --bidi visual`): UAX #9, then the
    bidi controls dropped, the row right-aligned when the width is known."""
    rows = []
    for row in text.split("\n"):
        if _RTL.search(row) or row.startswith(RLM):  # a row of a right-to-left paragraph
            # without its bold: reordered, an escape code's characters would print as text
            row = _CONTROLS.sub("", display_order(_SGR.sub("", row).rstrip()))
            row = " " * max(0, width - _width(row)) + row if width else row
        rows.append(_CONTROLS.sub("", row))
    return "\n".join(rows)
