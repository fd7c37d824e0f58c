"""Quiz files from the formats teachers already have (GIFT, Moodle XML, Aiken, CSV, Excel
.xlsx, Kahoot's spreadsheet template among them), read into a `Draft` and written as our YAML
(`to_yaml`); `export` writes them back out."""

from __future__ import annotations

from pathlib import PurePath

from bot.domain.quiz.formats import aiken, gift, moodle_xml, sheet, table
from bot.domain.quiz.formats.draft import (
    MAX_SOURCE_BYTES,
    UTF16_BOMS,
    Draft,
    ImportRefused,
    decode,
)
from bot.domain.quiz.formats.export import EXPORT_FORMATS, prepare
from bot.domain.quiz.model import Quiz

FORMATS = ("csv", "aiken", "gift", "moodle-xml", "xlsx")
SUFFIXES = {".csv": "csv", ".tsv": "csv", ".txt": None, ".gift": "gift", ".xml": "moodle-xml",
            ".xlsx": "xlsx"}

__all__ = ["EXPORT_FORMATS", "FORMATS", "Draft", "ImportRefused", "export_quiz",
           "guess_format", "read_draft"]


def guess_format(name: str, data: bytes) -> str | None:
    """The format from the file's name, else from its first bytes; None when unclear
    (and for our own YAML)."""
    if sheet.is_workbook(data):  # whatever its name says (a workbook named .xls or .csv)
        return "xlsx"
    by_name = SUFFIXES.get(PurePath(name).suffix.lower())
    if by_name:
        return by_name
    head = (data[:4096].decode("utf-16", "replace") if data.startswith(UTF16_BOMS)
            else data[:4096].decode("utf-8", "replace")).lstrip("\ufeff \t\r\n")
    # a sheet saved as text (.txt): its header, under a "sep=;" line or a "# title" line
    first = next((line for line in head.split("\n") if not line.startswith("#")
                  and not line.strip().startswith("sep=")), "")
    if table.is_header(first):
        return "csv"
    if head.startswith("<"):
        return "moodle-xml"
    if any(line.strip().upper().startswith("ANSWER:") for line in head.splitlines()):
        return "aiken"
    if "{" in head and ("=" in head or "~" in head or "{T" in head.upper()):
        return "gift"
    return None


def read_draft(data: bytes, name: str, fmt: str, lang: str = "en") -> Draft:
    """The questions of one file in format `fmt`; ImportRefused when it cannot be read."""
    if len(data) > MAX_SOURCE_BYTES:
        raise ImportRefused([f"{name}: is {len(data) / 1e6:.1f} MB; an import may be at most "
                             f"{MAX_SOURCE_BYTES // (1024 * 1024)} MB"])
    if fmt == "moodle-xml":
        return moodle_xml.read(data, name, lang)
    if fmt == "xlsx":
        return sheet.read(data, name)
    text = decode(data, name)
    if fmt == "gift":
        return gift.read(text, name, lang)
    if fmt == "aiken":
        return aiken.read(text, name)
    if fmt == "csv":
        return table.read(text, name)
    raise ImportRefused([f"{name}: unknown format {fmt!r}; one of {', '.join(FORMATS)}"])


def export_quiz(quiz: Quiz, fmt: str, lang: str) -> tuple[bytes, list[str]]:
    """`quiz` in `lang` as a file of format `fmt` (one of EXPORT_FORMATS), and a note for
    each question not kept as it is (a computed one drawn once, a picture left out)."""
    prepared = prepare(quiz, lang, calculated=fmt == "moodle-xml",
                       typed=fmt in ("moodle-xml", "gift"))
    if fmt == "moodle-xml":
        data = moodle_xml.write(prepared)
    elif fmt == "gift":
        data = gift.write(prepared).encode()
    else:
        data = table.write(prepared).encode()
    return data, prepared.notes
