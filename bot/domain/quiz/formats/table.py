"""CSV, one question per row, for questions kept in a spreadsheet.

The first row is the header; columns by name, in any order (case and spaces ignored):

| column | required | |
|---|---|---|
| `question` | yes | the question's text |
| `option1` ... `option10` | 2 or more | the options, in order (empty cells skipped) |
| `correct` | yes | the right option: its number (1-10), letter (A-J; in Urdu الف ب ج د) or text |
| `explanation` | no | shown after the answer |
| `why_not1` ... `why_not10` | no | why that option is wrong |
| `id` | no | the question's id (else from the text) |
| `category` | no | a topic name |
| `title` | no | the quiz's title (its first filled cell) |

A line before the header that starts with `#` (`# Week 3: acids and bases`, or `# title:
Week 3`) is the quiz's title too.

UTF-8 (Excel's BOM is fine) or UTF-16 with its BOM (Excel's "Unicode Text"), comma-,
semicolon- or tab-separated (read from the header line, or a first line `sep=;`),
quoted as RFC 4180 says (https://www.rfc-editor.org/rfc/rfc4180). `quizbot export-quiz
--format csv` writes the same columns (a cell starting with = + - @ gets a leading ' so no
spreadsheet runs it as a formula; reading strips it).
"""

from __future__ import annotations

import csv
import io
import re

from bot.domain.quiz.formats.draft import Draft, DraftOption, DraftQuestion, tidy
from bot.domain.quiz.formats.export import Plain, Prepared

MAX_OPTIONS = 10
_LETTERS = "ABCDEFGHIJ"
# How Urdu papers letter their options: (الف) (ب) (ج) (د)
_URDU_LETTERS = ("الف", "ب", "ج", "د")
_OPTION = re.compile(r"option(\d+)")
_KNOWN = re.compile(r"question|option\d+|why_not\d+|correct|explanation|id|category|title")


def _column(name: str) -> str:
    return re.sub(r"[\s_]+", "", name.strip().lower()).replace("whynot", "why_not")


def _delimiter(first: str) -> str:
    # comma, or semicolon (Excel in most European locales), or tab (Google Sheets' .tsv,
    # Excel's "Unicode Text", rows pasted from a spreadsheet): whichever the header uses most
    return max(",;\t", key=first.count)


def is_header(line: str) -> bool:
    """Whether `line` is a header `read` takes (a sheet saved under another name, .txt)."""
    names = {_column(c.strip('"')) for c in line.rstrip("\r").split(_delimiter(line))}
    return {"question", "option1", "option2", "correct"} <= names


def read(text: str, source: str) -> Draft:
    """Every question of a CSV file."""
    draft = Draft(source)
    first, _, rest = text.partition("\n")
    # "sep=;" on the first line: the hint some tools write so that Excel splits the columns
    hint = re.fullmatch(r"\s*sep=(.)\s*", first)
    text, skipped = (rest, 1) if hint else (text, 0)
    while text.startswith("#"):  # "# Week 3: acids and bases" above the header: the title
        line, _, text = text.partition("\n")
        said = re.sub(r"^title\s*[:=]\s*", "", line.strip("#").strip(), flags=re.IGNORECASE)
        draft.title = draft.title or tidy(said.rstrip(",;\t\r \"").strip('" '))
        skipped += 1
    first = text.partition("\n")[0]
    delimiter = hint.group(1) if hint else _delimiter(first)
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    at = f"{source}:{1 + skipped}"  # the header's line
    try:
        header = [_column(h) for h in next(rows)]
    except StopIteration:
        draft.problems.append(f"{at}: is empty; the first row names the columns")
        return draft
    twice = [c for c in dict.fromkeys(header) if header.count(c) > 1 and _KNOWN.fullmatch(c)]
    if twice:  # the last one would silently win: an option or an explanation lost
        draft.problems.append(f"{at}: the header names {', '.join(twice)} twice (columns "
                              + "; ".join(", ".join(str(k + 1) for k, h in enumerate(header)
                                                    if h == c) for c in twice)
                              + "); name each column once")
        return draft
    missing = [c for c in ("question", "option1", "option2", "correct") if c not in header]
    if missing:
        draft.problems.append(f"{at}: the header has no {', '.join(missing)} column "
                              "(columns: question, option1..option10, correct, explanation, "
                              "why_not1..why_not10, id, category, title)")
        return draft
    start = rows.line_num + 1 + skipped  # a row's first line: a cell may hold line breaks
    try:
        for row in rows:
            _row(dict(zip(header, row, strict=False)), f"{source}:{start}", draft)
            start = rows.line_num + 1 + skipped
    except csv.Error as exc:
        why = ("a quoted cell that starts in this row is not closed; add the missing '\"'"
               if "end of data" in str(exc) else f"is not valid CSV: {exc}")
        draft.problems.append(f"{source}:{start}: {why}")
    return draft


def _row(cells: dict[str, str], where: str, draft: Draft) -> None:
    if not any(v.strip() for v in cells.values()):
        return
    cells = {k: v[1:] if v.startswith("'") and v[1:].startswith(FORMULA_STARTS) else v
             for k, v in cells.items()}
    beyond = [k for k, v in cells.items() if v.strip() and (m := _OPTION.fullmatch(k))
              and int(m.group(1)) > MAX_OPTIONS]
    if beyond:  # read as if absent, an 11th option (maybe the key) was silently lost
        filled = sum(1 for k, v in cells.items() if v.strip() and _OPTION.fullmatch(k))
        draft.problems.append(f"{where}: has {filled} options ({', '.join(beyond)} filled); a "
                              f"question has 2 to {MAX_OPTIONS}: leave out the weakest")
        return
    options = []
    numbers = []
    for n in range(1, MAX_OPTIONS + 1):
        text = tidy(cells.get(f"option{n}", ""))
        if text:
            options.append(DraftOption(text, tidy(cells.get(f"why_not{n}", ""))))
            numbers.append(n)
    given = tidy(cells.get("correct", ""))
    correct = given.upper()
    urdu = given.strip("()")
    n = (_LETTERS.index(correct) + 1 if len(correct) == 1 and correct in _LETTERS
         else _URDU_LETTERS.index(urdu) + 1 if urdu in _URDU_LETTERS
         else int(correct) if correct.isdecimal() else 0)
    named = [m for m, option in zip(numbers, options, strict=True) if option.text == given]
    if n in numbers and named and n not in named:
        # "What is 1+2?" with options 2, 3, 4 and correct 3: option 3 is '4'; the teacher
        # most likely meant the option that reads 3 (it was keyed '4' without a word)
        draft.problems.append(f"{where}: correct is {given!r}, which is option {n} "
                              f"({options[numbers.index(n)].text!r}) by its number or letter, "
                              f"but option {named[0]} reads {given!r}; give the right "
                              f"option's letter ({_LETTERS[named[0] - 1]} or "
                              f"{_LETTERS[n - 1]})")
        return
    if n not in numbers and len(named) == 1:
        n = named[0]  # the right option's text, as many sheets give it
    if n not in numbers:
        draft.problems.append(f"{where}: correct is {given or 'empty'!r}; give the right "
                              f"option's number (1-{MAX_OPTIONS}), letter (A-J) or text, of "
                              "a filled option")
        return
    draft.title = draft.title or tidy(cells.get("title", ""))  # the first filled cell
    options[numbers.index(n)].fraction = 100.0
    draft.questions.append(DraftQuestion(
        where, cells.get("id", "").strip(), tidy(cells.get("question", "")), options,
        general=tidy(cells.get("explanation", "")), category=tidy(cells.get("category", ""))))


# --- writing -----------------------------------------------------------------------------

# A cell a spreadsheet would run as a formula (OWASP, "CSV Injection": a display name such as
# =HYPERLINK(...), +1+2 or @SUM(1,1)) is written with a leading apostrophe; reading strips it
# again. Every CSV quizbot writes (quiz files, exports, the dashboard's) goes through csv_cell.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """`value` as a CSV cell no spreadsheet runs as a formula (numbers pass unchanged)."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write(prepared: Prepared) -> str:
    """The quiz as CSV with the columns `read` takes (computed questions drawn once)."""
    width = max((len(q.options) for q in prepared.questions if isinstance(q, Plain)),
                default=2)
    header = ["id", "question", *(f"option{n}" for n in range(1, width + 1)), "correct",
              "explanation", *(f"why_not{n}" for n in range(1, width + 1)), "category"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for q in prepared.questions:
        assert isinstance(q, Plain)  # CSV has no computed questions: prepared drawn
        if q.image is not None:
            prepared.notes.append(f"{q.id}: its picture is left out (CSV carries none)")
        pad = [""] * (width - len(q.options))
        writer.writerow([csv_cell(x) for x in (
            q.id, q.text, *(t for t, _ in q.options), *pad, _LETTERS[q.correct], q.explanation,
            *(w for _, w in q.options), *pad, q.category)])
    return out.getvalue()
