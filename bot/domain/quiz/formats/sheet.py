"""Excel workbooks (.xlsx, what Excel, Google Sheets and LibreOffice save, and Kahoot's
question template): each row's cells as the text a teacher sees, handed to the CSV reader
(`table.take`), which alone interprets the columns, the title and the right answer.

The first sheet with a header row in its first rows is read (any rows above the header, as
in Kahoot's template, are notes; one whose first cell starts with '#' is the title, as in a
CSV file). Formulas count with the value Excel last worked out (openpyxl's `data_only`);
a formula with none (a file written by a program, never saved by a spreadsheet program)
reads as empty, and is named in a warning; numbers read as written (3, not 3.0; 50% as
50%). Positions are the sheet's name and row number: "week3.xlsx, sheet Questions:12: ...".
"""

from __future__ import annotations

import datetime as dt
import io
import warnings
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bot.domain.quiz.formats.draft import MAX_SOURCE_BYTES, Draft, ImportRefused
from bot.domain.quiz.formats.table import is_header_row, take, title_line

HEADER_ROWS = 30  # how far down a sheet its header is looked for (Kahoot's is on row 8)
MAX_COLUMNS = 100
WORKBOOK_PART = "xl/workbook.xml"


@dataclass(slots=True)
class _Sheet:
    name: str
    header_row: int = 0  # 0: none found
    header: list[str] = field(default_factory=list)
    above: list[str] = field(default_factory=list)  # first filled cells above the header
    rows: list[tuple[int, list[str]]] = field(default_factory=list)
    # (row, cell references) of the header and question rows' formulas without a value
    uncomputed: list[tuple[int, list[str]]] = field(default_factory=list)


def is_workbook(data: bytes) -> bool:
    """Whether `data` is an Excel workbook (a zip holding xl/workbook.xml), whatever its
    name says."""
    if not data.startswith(b"PK\x03\x04"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return WORKBOOK_PART in archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return False


def read(data: bytes, source: str) -> Draft:
    """Every question of the workbook's question sheet."""
    draft = Draft(source)
    sheets = _sheets(data, source)
    chosen = next((s for s in sheets if s.header_row), None)
    if chosen is None:
        first = sheets[0].name if sheets else ""
        draft.problems.append(
            f"{source}, sheet {first}: no row in its first {HEADER_ROWS} names the columns; "
            "write a header row (question, option1, option2 .. option10, correct, "
            "explanation) or use Kahoot's template (Question, Answer 1 .. Answer 4, Correct "
            "answer(s))")
        return draft
    for line in chosen.above:
        if line.startswith("#"):  # "# Week 3: acids and bases" above the header, as in CSV
            draft.title = draft.title or title_line(line)
    at = f"{source}, sheet {chosen.name}"
    for n, refs in chosen.uncomputed:
        draft.warnings.append(
            f"{at}:{n}: the formula in {', '.join(refs)} has no saved value, so it reads as "
            "empty (the file was never saved by a spreadsheet program); open the file in "
            "Excel, LibreOffice or Google Sheets and save it, or paste the values in place of "
            "the formulas")
    take(draft, f"{at}:{chosen.header_row}", chosen.header,
         ((f"{at}:{n}", cells) for n, cells in chosen.rows))
    return draft


def _sheets(data: bytes, source: str) -> list[_Sheet]:
    """The workbook's sheets up to the first with a header (that one read whole)."""
    unreadable = ImportRefused([
        f"{source}: cannot be read as an Excel workbook (.xlsx); open it in Excel, "
        "LibreOffice or Google Sheets and save it again as .xlsx or CSV"])
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        raise unreadable from None
    if unpacked > MAX_SOURCE_BYTES:  # a zip bomb, or a workbook of far more than questions
        raise ImportRefused([
            f"{source}: unpacks to {unpacked / 1e6:.0f} MB; a workbook may hold at most "
            f"{MAX_SOURCE_BYTES // (1024 * 1024)} MB: keep only the questions' sheet"])
    # openpyxl (with defusedxml, which refuses entity bombs and external entities) parses
    # the parts; whatever a damaged or hostile file makes it raise is one refusal, and its
    # warnings (styles or extensions it drops) say nothing to a teacher
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return list(_read_sheets(data))
    except ImportRefused:
        raise
    except Exception:
        raise unreadable from None


def _read_sheets(data: bytes) -> Iterator[_Sheet]:
    import openpyxl  # only an .xlsx import needs it loaded

    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    # the same sheets with formulas as written: which empty cells are a formula never worked out
    formulas = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
    try:
        for sheet, written in zip(book.worksheets, formulas.worksheets, strict=True):
            found = _Sheet(sheet.title)
            yield found
            for n, (row, as_written) in enumerate(
                    zip(sheet.iter_rows(max_col=MAX_COLUMNS),
                        written.iter_rows(max_col=MAX_COLUMNS), strict=True), 1):
                cells = [_text(cell) for cell in row]
                uncomputed = [f"{_column(i)}{n}" for i, (cell, formula)
                              in enumerate(zip(row, as_written, strict=False))
                              if cell.value is None and formula.data_type == "f"]
                if found.header_row:
                    if any(cells):  # empty rows are skipped
                        found.rows.append((n, cells))
                elif is_header_row(cells):
                    found.header_row, found.header = n, cells
                elif n >= HEADER_ROWS:
                    break
                else:
                    found.above.append(next((c for c in cells if c), ""))
                if found.header_row and uncomputed:
                    found.uncomputed.append((n, uncomputed))
            if found.header_row:
                return
    finally:
        book.close()
        formulas.close()


def _column(index: int) -> str:
    """A column's letters as the sheet shows them (0 -> A, 26 -> AA)."""
    from openpyxl.utils import get_column_letter

    return get_column_letter(index + 1)


def _text(cell: Any) -> str:
    """A cell as the text a teacher sees in it."""
    value = cell.value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        if "%" in (getattr(cell, "number_format", None) or ""):
            return f"{value * 100:.15g}%"
        if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
            return str(int(value))  # 3, not 3.0
        # 15 significant digits, as Excel shows them: 0.1+0.2 is 0.3
        return str(value) if isinstance(value, int) else f"{value:.15g}"
    if isinstance(value, dt.datetime):
        return (value.date().isoformat() if value.time() == dt.time()
                else value.isoformat(" ", "minutes"))
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)
