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
| `tolerance` | no | a typed number's absolute tolerance (empty: exactly) |

With a `tolerance` column, a row with no options whose `correct` is a number is a
typed-number question (`numerical.py`).

A line before the header that starts with `#` (`# Week 3: acids and bases`, or `# title:
Week 3`) is the quiz's title too.

Kahoot's template names its columns its own way, also read: "Question - max 120 characters",
"Answer 1 - max 75 characters" .. "Answer 4", "Correct answer(s) - choose at least one" (the
right answer's number, never its text) and "Time limit (sec)" (not kept). A `correct` that
names several options ("1,3") skips its row with a warning: a question here has one right
answer. Excel workbooks (`sheet.py`) hand their rows to `take`, so both read alike.

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
from collections.abc import Iterable, Iterator

from bot.domain.quiz.formats import numerical
from bot.domain.quiz.formats.draft import Draft, DraftOption, DraftQuestion, tidy
from bot.domain.quiz.formats.export import Plain, Prepared

MAX_OPTIONS = 10
_LETTERS = "ABCDEFGHIJ"
# How Urdu papers letter their options: (الف) (ب) (ج) (د)
_URDU_LETTERS = ("الف", "ب", "ج", "د")
_OPTION = re.compile(r"option(\d+)")
_KNOWN = re.compile(r"question|option\d+|why_not\d+|correct(_number)?|explanation|id|category|"
                    r"title|tolerance")
# Kahoot's spreadsheet template names its columns "Question - max 120 characters", "Answer 1
# - max 75 characters" .. "Answer 4", "Time limit (sec) ..." and "Correct answer(s) - choose
# at least one" (a number 1-4, never an option's text: `correct_number`); the time limit is
# Kahoot's own, not a quiz's here
_KAHOOT = ((re.compile(r"question( [-–] max \d+ characters)?"), "question"),
           (re.compile(r"answer (\d+)( [-–] max \d+ characters)?( \(optional\))?"),
            r"option\1"),
           (re.compile(r"correct answer(\(s\)|s)?( [-–] .*)?"), "correct_number"),
           (re.compile(r"time limit.*"), "time_limit"))
_CORRECT = {"correct", "correct_number"}


def _column(name: str) -> str:
    said = " ".join(name.split()).lower()
    for pattern, ours in _KAHOOT:  # Kahoot's template says what each column is for
        if (found := pattern.fullmatch(said)) is not None:
            return found.expand(ours)
    return re.sub(r"[\s_]+", "", said).replace("whynot", "why_not")


def _delimiter(first: str) -> str:
    # comma, or semicolon (Excel in most European locales), or tab (Google Sheets' .tsv,
    # Excel's "Unicode Text", rows pasted from a spreadsheet): whichever the header uses most
    return max(",;\t", key=first.count)


def is_header(line: str) -> bool:
    """Whether `line` is a header `read` takes (a sheet saved under another name, .txt)."""
    return is_header_row([c.strip('"') for c in line.rstrip("\r").split(_delimiter(line))])


def is_header_row(cells: list[str]) -> bool:
    """Whether a row's cells name the columns a table needs (ours or Kahoot's)."""
    names = {_column(c) for c in cells}
    return {"question", "option1", "option2"} <= names and bool(names & _CORRECT)


def title_line(line: str) -> str:
    """The title a "# Week 3: acids and bases" (or "# title: Week 3") line above the header
    gives."""
    said = re.sub(r"^title\s*[:=]\s*", "", line.strip().strip("#").strip(),
                  flags=re.IGNORECASE)
    return tidy(said.rstrip(",;\t\r \"").strip('" '))


def read(text: str, source: str) -> Draft:
    """Every question of a CSV file."""
    draft = Draft(source)
    first, _, rest = text.partition("\n")
    # "sep=;" on the first line: the hint some tools write so that Excel splits the columns
    hint = re.fullmatch(r"\s*sep=(.)\s*", first)
    text, skipped = (rest, 1) if hint else (text, 0)
    while text.startswith("#"):  # "# Week 3: acids and bases" above the header: the title
        line, _, text = text.partition("\n")
        draft.title = draft.title or title_line(line)
        skipped += 1
    first = text.partition("\n")[0]
    delimiter = hint.group(1) if hint else _delimiter(first)
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    start = [1 + skipped]  # the line the row being read starts on: a cell may hold breaks

    def body() -> Iterator[tuple[str, list[str]]]:
        start[0] = rows.line_num + 1 + skipped
        for row in rows:
            yield f"{source}:{start[0]}", row
            start[0] = rows.line_num + 1 + skipped

    try:
        take(draft, f"{source}:{1 + skipped}", next(rows, None), body())
    except csv.Error as exc:
        if "end of data" in str(exc):
            draft.problems.append(f"{source}:{start[0]}: a quoted cell that starts in this "
                                  "row is not closed; add the missing '\"'")
        else:
            draft.problems.append(f"{source}:{start[0]}: is not valid CSV: {exc}")
    return draft


def take(draft: Draft, at: str, header: list[str] | None,
         rows: Iterable[tuple[str, list[str]]]) -> None:
    """The questions of a table's `rows` (each with its position) under `header` (the
    header row's cells as written, at `at`; None: the table is empty): the one reader of
    CSV and spreadsheet rows alike."""
    if header is None:
        draft.problems.append(f"{at}: is empty; the first row names the columns")
        return
    header = [_column(h) for h in header]
    twice = [c for c in dict.fromkeys(header) if header.count(c) > 1 and _KNOWN.fullmatch(c)]
    if twice:  # the last one would silently win: an option or an explanation lost
        draft.problems.append(f"{at}: the header names {', '.join(twice)} twice (columns "
                              + "; ".join(", ".join(str(k + 1) for k, h in enumerate(header)
                                                    if h == c) for c in twice)
                              + "); name each column once")
        return
    # a sheet with a `tolerance` column may hold typed-number rows only (no options)
    needed = ("question", "correct") if "tolerance" in header else (
        "question", "option1", "option2", "correct")
    missing = [c for c in needed if c not in header
               and not (c == "correct" and "correct_number" in header)]
    if missing:
        draft.problems.append(f"{at}: the header has no {', '.join(missing)} column "
                              "(columns: question, option1..option10, correct, explanation, "
                              "why_not1..why_not10, id, category, title)")
        return
    for where, row in rows:
        _row(dict(zip(header, row, strict=False)), where, draft)


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
    by_number = "correct_number" in cells  # Kahoot's: the option's number, never its text
    given = tidy(cells.get("correct_number" if by_number else "correct", ""))
    if not options and "tolerance" in cells and numerical.number(given) is not None:
        _typed(cells, where, given, draft)
        return
    n = _number(given)
    named = [] if by_number else [m for m, option in zip(numbers, options, strict=True)
                                  if option.text == given]
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
    several = [_number(part) for part in re.split(r"\s*[,;]\s*", given)]
    if n not in numbers and len(set(several)) > 1 and set(several) <= set(numbers):
        # Kahoot's "1,3": two right answers, where a question here has one
        draft.skip(where, "multiple-answer", f"correct gives {len(several)} options "
                   f"({given!r}); keep the one right answer",
                   name=tidy(cells.get("id", "") or cells.get("question", "")))
        return
    if n not in numbers:
        shown = repr(given) if given else "empty"
        draft.problems.append(f"{where}: correct is {shown}; give the right "
                              f"option's number (1-{MAX_OPTIONS}), letter (A-J) or text, of "
                              "a filled option")
        return
    draft.title = draft.title or tidy(cells.get("title", ""))  # the first filled cell
    options[numbers.index(n)].fraction = 100.0
    draft.questions.append(DraftQuestion(
        where, cells.get("id", "").strip(), tidy(cells.get("question", "")), options,
        general=tidy(cells.get("explanation", "")), category=tidy(cells.get("category", ""))))


def _typed(cells: dict[str, str], where: str, given: str, draft: Draft) -> None:
    """A row with no options whose `correct` is a number, in a sheet with a `tolerance`
    column (absolute; empty is exactly): a typed-number question."""
    draft.title = draft.title or tidy(cells.get("title", ""))
    q = DraftQuestion(where, cells.get("id", "").strip(), tidy(cells.get("question", "")),
                      general=tidy(cells.get("explanation", "")),
                      category=tidy(cells.get("category", "")))
    answer = numerical.NumberAnswer(given, tidy(cells.get("tolerance", "")), 100.0)
    numerical.convert(q, [answer], draft, "typed-number")


def _number(given: str) -> int:
    """The option a `correct` cell names by number or letter (0: neither)."""
    correct, urdu = given.upper(), given.strip("()")
    return (_LETTERS.index(correct) + 1 if len(correct) == 1 and correct in _LETTERS
            else _URDU_LETTERS.index(urdu) + 1 if urdu in _URDU_LETTERS
            else int(correct) if correct.isdecimal() else 0)


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
