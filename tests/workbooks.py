"""Excel workbooks for the import tests, written by openpyxl as a teacher's spreadsheet
program would save them (no binary files checked in)."""

from __future__ import annotations

import io
import re
import zipfile

import openpyxl

# Kahoot's question template (KahootQuizTemplate.xlsx): a title and notes on top, the header
# on row 8 with an unnamed number column first, the right answer as a number 1-4
KAHOOT_HEADER = ["", "Question - max 120 characters", "Answer 1 - max 75 characters",
                 "Answer 2 - max 75 characters", "Answer 3 - max 75 characters",
                 "Answer 4 - max 75 characters",
                 "Time limit (sec) – 5, 10, 20, 30, 60, 90, 120, or 240 secs",
                 "Correct answer(s) - choose at least one"]
KAHOOT_NOTES = [
    ["", "Quiz template"],
    ["", "Add questions, at least two answer alternatives, time limit and choose correct "
         "answers (at least one). Have fun creating your awesome quiz!"],
    [],
    ["", "Remember: questions have a limit of 120 characters and answers can have 75 "
         "characters max. Text will turn red in Excel or Google Docs if you exceed this "
         "limit. If several answers are correct, separate them with a comma."],
    [],
    ["", "See an example question below (don't forget to overwrite this with your first "
         "question!)"],
    [],
]


def workbook(*sheets: tuple[str, list[list[object]]]) -> bytes:
    """A workbook with these sheets (title, rows from row 1), as saved."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets:
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def kahoot(rows: list[list[object]]) -> bytes:
    """Kahoot's template with these question rows under its header."""
    return workbook(("Sheet1", [*KAHOOT_NOTES, KAHOOT_HEADER, *rows]))


def with_cached(data: bytes, sheet: int, values: dict[str, str]) -> bytes:
    """`data` with the value Excel last worked out stored in formula cells (openpyxl writes a
    formula with none: Excel and LibreOffice store one when they save)."""
    part = f"xl/worksheets/sheet{sheet}.xml"
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as old, zipfile.ZipFile(out, "w") as new:
        for item in old.infolist():
            body = old.read(item)
            if item.filename == part:
                text = body.decode()
                for ref, value in values.items():
                    text = re.sub(rf'(<c r="{ref}"[^>]*>)(<f>.*?</f>)<v ?/>',
                                  rf"\1\2<v>{value}</v>", text)
                body = text.encode()
            new.writestr(item, body)
    return out.getvalue()
