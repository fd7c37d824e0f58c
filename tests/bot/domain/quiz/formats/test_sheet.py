"""Excel workbooks (.xlsx) read through the CSV reader's rules: our columns, Kahoot's
template, what a teacher's spreadsheet program stores in cells (numbers, percentages,
formulas' values, empty rows), and the sheets that cannot be read, each told with the sheet
and row. Every workbook is written by openpyxl in the test."""

from __future__ import annotations

import csv
import io
import zipfile

import openpyxl
import pytest

from bot.domain.quiz.formats import FORMATS, guess_format, read_draft
from bot.features.importing import convert
from bot.present.import_texts import said_in, translated
from tests.workbooks import KAHOOT_HEADER, kahoot, with_cached, workbook

OURS = ["id", "question", "option1", "option2", "option3", "correct", "explanation",
        "category"]


def test_our_columns_read_as_the_csv_reader_reads_them() -> None:
    data = workbook(("Questions", [
        OURS,
        ["bubble", "How many micro-batches hide the bubble?", 1, 4.0, 16, 3,
         "More micro-batches, smaller bubble.", "Pipelines"],
        [],  # empty rows are skipped
        [None, "What share of the time is the bubble?", 0.25, 0.5, 0.75, "A",
         "(p-1)/(m+p-1).", "Pipelines"],
        ["", "Which is right?", "0.1+0.2", "0.3", None, "0.3", "", ""],
    ]))
    draft = read_draft(data, "week3.xlsx", "xlsx")
    assert draft.problems == [] and draft.warnings == []
    first, second, third = draft.questions
    assert (first.where, first.name) == ("week3.xlsx, sheet Questions:2", "bubble")
    # numbers as a teacher reads them: 4, not 4.0; the key by number, letter or text
    assert [o.text for o in first.options] == ["1", "4", "16"]
    assert [o.fraction for o in first.options] == [0, 0, 100]
    assert first.general == "More micro-batches, smaller bubble."
    assert first.category == "Pipelines"
    assert second.where == "week3.xlsx, sheet Questions:4"
    assert [o.text for o in second.options] == ["0.25", "0.5", "0.75"]
    assert second.options[0].fraction == 100
    assert [o.fraction for o in third.options] == [0, 100]


def test_what_cells_hold_is_read_as_the_sheet_shows_it() -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["question", "option1", "option2", "option3", "correct"])
    sheet.append(["Share of idle time?", 0.5, 0.25, "=0.1*2", "=1+1"])
    sheet["B2"].number_format = sheet["C2"].number_format = "0%"
    out = io.BytesIO()
    book.save(out)
    # as Excel saves it: each formula with the value it last worked out
    data = with_cached(out.getvalue(), 1, {"D2": "0.2", "E2": "2"})
    (question,) = read_draft(data, "w.xlsx", "xlsx").questions
    assert [o.text for o in question.options] == ["50%", "25%", "0.2"]
    assert question.options[1].fraction == 100


def test_a_formula_never_worked_out_is_named_with_what_to_do() -> None:
    # openpyxl (like any program writing a workbook) stores formulas with no value: until a
    # spreadsheet program saves the file, the cell has nothing to read
    rows = [["question", "option1", "option2", "option3", "correct"],
            ["Share of idle time?", "=1/4", "0.5", "=0.1*2", "=1+1"],
            ["Bubble?", "a", "b", "c", "A"]]
    data = workbook(("Questions", rows))
    draft = read_draft(data, "w.xlsx", "xlsx")
    (said,) = draft.warnings
    assert said.startswith("w.xlsx, sheet Questions:2: the formula in B2, D2, E2 has no "
                           "saved value, so it reads as empty")
    assert "open the file in Excel, LibreOffice or Google Sheets and save it" in said
    assert "paste the values" in said
    assert translated("ur", said)
    # saved by a spreadsheet program: the values count and nothing is said
    computed = with_cached(data, 1, {"B2": "0.25", "D2": "0.2", "E2": "2"})
    assert read_draft(computed, "w.xlsx", "xlsx").warnings == []


def test_the_title_follows_the_csv_rules() -> None:
    rows = [["question", "option1", "option2", "correct", "title"],
            ["Q?", "a", "b", "A", "Week 3 from the column"]]
    assert read_draft(workbook(("S", rows)), "w.xlsx", "xlsx").title == "Week 3 from the column"
    above = [["# Week 3: acids and bases"], [], *rows]
    assert read_draft(workbook(("S", above)), "w.xlsx", "xlsx").title == (
        "Week 3: acids and bases")
    result = convert(workbook(("S", [rows[0][:4], rows[1][:4]])), "acids_and_bases.xlsx")
    assert result.ok and result.quiz is not None
    assert result.quiz.title.get("en") == "Acids and bases"  # the file's readable name


def test_the_first_sheet_with_a_header_is_read() -> None:
    data = workbook(("Read me", [["Fill in the Questions sheet."], ["Thanks!"]]),
                    ("Questions", [["Question", "Option 1", "Option 2", "Correct"],
                                   ["Q?", "a", "b", "B"]]))
    draft = read_draft(data, "w.xlsx", "xlsx")
    assert [q.where for q in draft.questions] == ["w.xlsx, sheet Questions:2"]


def test_kahoots_template_is_read_and_a_row_with_two_right_answers_is_skipped() -> None:
    data = kahoot([
        [1, "How many stages does this GPipe run have?", 2, 4, 8, None, 20, 2],
        [2, "Which are collectives?", "all-reduce", "all-gather", "matmul", "relu", 30,
         "1,2"],
        [3, "Which schedule keeps fewer activations?", "1F1B", "GPipe", "", "", 20, "1"],
    ])
    assert guess_format("KahootQuizTemplate.xlsx", data) == "xlsx"
    result = convert(data, "KahootQuizTemplate.xlsx")
    assert result.problems == [] and result.quiz is not None
    skipped = ("KahootQuizTemplate.xlsx, sheet Sheet1:10: skipped a multiple-answer question "
               "'Which are collectives?' (correct gives 2 options ('1,2'); keep the one right "
               "answer); only multiple choice, true/false, computed and typed-number "
               "questions are imported")
    assert skipped in result.warnings
    first, second = result.quiz.questions
    # Kahoot's right answer is a number, never an option's text: 2 is the option '4'
    assert [o.text.get("en") for o in first.options] == ["2", "4", "8"]
    assert first.correct == 1
    assert [o.text.get("en") for o in second.options] == ["1F1B", "GPipe"]
    assert second.correct == 0
    assert result.quiz.title.get("en") == "KahootQuizTemplate"  # "Quiz template" is Kahoot's
    assert said_in("ur", skipped) == (
        "KahootQuizTemplate.xlsx, sheet Sheet1:10: کئی درست جوابات والا سوال 'Which are "
        "collectives?' چھوڑ دیا گیا (correct میں 2 آپشن ('1,2') دیے گئے ہیں؛ صرف ایک درست جواب "
        "رکھیں)؛ صرف کثیر انتخابی، درست/غلط، حسابی اور عدد لکھ کر جواب والے سوال درآمد ہوتے ہیں")


def test_a_malformed_sheet_is_told_with_its_sheet_and_row() -> None:
    data = workbook(("Week 3", [
        ["question", "option1", "option2", "correct"],
        ["Q?", "a", "b", "A"],
        ["R?", "a", "b", "Z"],
        ["S?", "a", "", "A"],
    ]))
    result = convert(data, "week3.xlsx")
    assert result.problems[0] == (
        "week3.xlsx, sheet Week 3:3: correct is 'Z'; give the right option's number (1-10), "
        "letter (A-J) or text, of a filled option")
    assert any(p.startswith("week3.xlsx, sheet Week 3:4: ") for p in result.problems)
    twice = workbook(("Week 3", [["question", "option1", "option1", "option2", "correct"]]))
    assert read_draft(twice, "w.xlsx", "xlsx").problems == [
        "w.xlsx, sheet Week 3:1: the header names option1 twice (columns 2, 3); name each "
        "column once"]
    none = workbook(("Notes", [["question", "answer"], ["Q?", "a"]]))
    (problem,) = convert(none, "notes.xlsx").problems
    assert problem.startswith("notes.xlsx, sheet Notes: no row in its first 30 names the "
                              "columns; write a header row (question, option1")
    assert translated("ur", problem)


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    return out.getvalue()


@pytest.mark.parametrize(("name", "data", "said"), [
    ("week3.xlsx", b"PK\x03\x04 cut short",
     "week3.xlsx: cannot be read as an Excel workbook (.xlsx); open it in Excel, LibreOffice "
     "or Google Sheets and save it again as .xlsx or CSV"),
    ("week3.xlsx", _zip({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": b"<oops"}),
     "week3.xlsx: cannot be read as an Excel workbook (.xlsx); open it in Excel, LibreOffice "
     "or Google Sheets and save it again as .xlsx or CSV"),
    ("week3.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 100,
     "week3.xls: is an old Excel workbook (.xls); save it as .xlsx or CSV (Excel: File > "
     "Save As > Excel Workbook) and use that file"),
    ("week3.ods", _zip({"mimetype": b"application/vnd.oasis.opendocument.spreadsheet",
                        "content.xml": b"<office:document-content/>"}),
     "week3.ods: is an OpenDocument spreadsheet (.ods); save it as .xlsx or CSV (LibreOffice: "
     "File > Save As > Excel 2007-365) and use that file"),
])
def test_what_cannot_be_read_is_refused_saying_what_to_send(name: str, data: bytes,
                                                            said: str) -> None:
    assert convert(data, name).problems == [said]
    assert translated("ur", said)


def test_a_workbook_that_unpacks_to_more_than_an_import_may_hold_is_not_opened() -> None:
    bomb = _zip({"xl/workbook.xml": b"", "xl/worksheets/sheet1.xml": b"0" * 30_000_000})
    assert len(bomb) < 100_000  # within the upload limit, packed
    said = ("bomb.xlsx: unpacks to 30 MB; a workbook may hold at most 20 MB: keep only the "
            "questions' sheet")
    assert convert(bomb, "bomb.xlsx").problems == [said]
    assert translated("ur", said)


def test_a_workbook_is_known_by_its_name_and_by_its_contents() -> None:
    data = workbook(("S", [["question", "option1", "option2", "correct"], ["Q?", "a", "b", 2]]))
    assert "xlsx" in FORMATS
    for name in ("week3.xlsx", "week3.xls", "week3.csv", "week3"):  # saved under any name
        assert guess_format(name, data) == "xlsx", name
        assert convert(data, name).ok, name
    assert guess_format("notes.docx", _zip({"word/document.xml": b"<w/>"})) is None
    assert guess_format("week3.xlsx", b"not a zip") == "xlsx"  # the name says it
    (question,) = read_draft(data, "w.xlsx", "xlsx").questions
    assert question.options[1].fraction == 100
    # an .xlsx header saved as CSV reads as CSV: one reader for both
    text = io.StringIO()
    csv.writer(text).writerows([KAHOOT_HEADER, [1, "Q?", "a", "b", "", "", 20, 2]])
    (question,) = read_draft(text.getvalue().encode(), "kahoot.csv", "csv").questions
    assert [o.fraction for o in question.options] == [0, 100]
