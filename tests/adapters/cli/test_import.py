"""`quizbot import`: what is written, and every bad input refused with one line per problem
naming its position, exit 1 and nothing written."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import pytest

from adapters.cli.main import main
from tests.helpers import old_rule_quiz
from tests.workbooks import kahoot, workbook

FIXTURES = Path(__file__).parents[2] / "fixtures" / "import"
MC = ("<question type=\"multichoice\"><name><text>{name}</text></name>"
      "<questiontext format=\"html\"><text>Which one?</text>{file}</questiontext>"
      "<answer fraction=\"100\"><text>right</text></answer>"
      "<answer fraction=\"0\"><text>wrong</text></answer></question>")


def _xml(*questions: str, head: str = "") -> bytes:
    return f"<?xml version=\"1.0\"?>\n{head}<quiz>\n{''.join(questions)}\n</quiz>\n".encode()


def _png_claiming(width: int, height: int) -> bytes:
    """A few dozen bytes of PNG whose header claims width x height pixels."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b""))
            + chunk(b"IEND", b""))


def _run(tmp_path: Path, name: str, data: bytes, *extra: str) -> tuple[int, Path]:
    source = tmp_path / name
    source.write_bytes(data)
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    return main(["import", str(source), "--output", str(out / "quiz.yaml"), *extra]), out


def test_import_writes_the_quiz_and_its_picture_and_validate_accepts_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(tmp_path, "week.xml", (FIXTURES / "moodle.xml").read_bytes())
    err = capsys.readouterr().err
    assert code == 0, err
    assert "wrote" in err and "3 questions" in err
    assert "week.xml:84: skipped a calculated question" in err
    assert (out / "img" / "week-gpipe-bubble.png").read_bytes() == (
        FIXTURES / "tiny.png").read_bytes()
    text = (out / "quiz.yaml").read_text()
    assert "id: week\n" in text and "# " in text and "category: Pipeline basics" in text
    assert main(["validate", str(out / "quiz.yaml")]) == 0


def test_a_reimport_replaces_the_quiz_keeping_its_question_ids(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gift = (FIXTURES / "spec.gift").read_bytes()
    assert _run(tmp_path, "w.gift", gift)[0] == 0
    first = (tmp_path / "out" / "quiz.yaml").read_text()
    edited = gift.replace(b"Who's buried", b"Who is buried")
    assert _run(tmp_path, "w.gift", edited)[0] == 0
    second = (tmp_path / "out" / "quiz.yaml").read_text()
    assert "Who is buried" in second
    ids = [line for line in first.splitlines() if line.startswith("  - id:")]
    assert ids == [line for line in second.splitlines() if line.startswith("  - id:")]
    other = tmp_path / "out" / "other.yaml"
    other.write_text("id: someone-else\n")
    code = main(["import", str(tmp_path / "w.gift"), "--output", str(other)])
    assert code == 1 and other.read_text() == "id: someone-else\n"
    assert "already exists" in capsys.readouterr().err


def test_without_output_the_yaml_goes_to_standard_output(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.aiken").write_bytes((FIXTURES / "spec.aiken").read_bytes())
    assert main(["import", str(tmp_path / "a.aiken"), "--format", "aiken", "--id", "mine"]) == 0
    assert capsys.readouterr().out.startswith("# Imported from a.aiken")


BAD = {
    "malformed XML": ("q.xml", b"<quiz><question type='multichoice'>\n<name></quiz>",
                      "q.xml:2: is not well-formed XML"),
    "not UTF-8": ("q.gift", "::a::Caf\u00e9?{=yes ~no}".encode("latin-1"),
                  "q.gift:1: is not UTF-8"),
    "a zip": ("q.gift", b"PK\x03\x04" + b"\0" * 100, "q.gift: is a zip archive"),
    "deeply nested XML": ("q.xml", b"<quiz>" + b"<a>" * 10_000 + b"</a>" * 10_000 + b"</quiz>",
                          "q.xml:1: nests deeper than 32 elements"),
    "deeply nested YAML": ("q.yaml", b"[" * 100_000 + b"]" * 100_000,
                           "q.yaml:1: nests deeper than 32 levels"),
    "huge document": ("q.gift", b"::a::Q?{=a ~b}\n\n" * 1_400_000,
                      "q.gift: is 22.4 MB; an import may be at most 20 MB"),
    "billion laughs": ("q.xml", _xml(MC.format(name="&lol3;", file=""), head=(
        "<!DOCTYPE quiz [<!ENTITY lol \"lol\">"
        "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">"
        "<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">]>\n")),
        "q.xml: declares the XML entity 'lol'; entities are refused"),
    "no right answer": ("q.gift", b"::a::Q?{~a ~b}\n", "q.gift:1: no option is the right answer"),
    "two right answers": ("q.gift", b"\n::a::Q?{=a ~%100%b ~c}\n",
                          "q.gift:2: 2 options are worth 100%"),
    "picture bomb": ("q.xml", _xml(MC.format(name="bomb", file=(
        "<file name=\"b.png\" encoding=\"base64\">"
        f"{base64.b64encode(_png_claiming(100_000, 100_000)).decode()}</file>"))),
        "q.xml:3: image img/quiz-bomb.png claims more than 89 million pixels"),
    "large picture": ("q.xml", _xml(MC.format(name="wide", file=(
        "<file name=\"b.png\" encoding=\"base64\">"
        f"{base64.b64encode(_png_claiming(9_000, 5_000)).decode()}</file>"))),
        "q.xml:3: image img/quiz-wide.png claims 9000x5000 pixels"),
    "huge picture": ("q.xml", _xml(MC.format(name="big", file=(
        "<file name=\"b.png\" encoding=\"base64\">"
        f"{'A' * 7_000_100}</file>"))), "q.xml:3: picture 'b.png' is over 5 MB"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_line_per_problem_exit_1_nothing_written(
        case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name, data, expected = BAD[case]
    code, out = _run(tmp_path, name, data, "--id", "quiz")
    err = capsys.readouterr().err.replace(f"{tmp_path}/", "")
    assert code == 1
    problems = [line for line in err.splitlines()
                if not line.startswith("warning:") and "nothing written" not in line]
    assert len(problems) == 1 and problems[0].startswith(expected), err
    assert list(out.iterdir()) == []


def test_an_external_entity_is_refused_and_the_decoy_never_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    decoy = tmp_path / "decoy.txt"
    decoy.write_text("DECOY-SECRET")
    data = _xml(MC.format(name="&xxe;", file=""),
                head=f"<!DOCTYPE quiz [<!ENTITY xxe SYSTEM \"file://{decoy}\">]>\n")
    code, out = _run(tmp_path, "q.xml", data)
    err = capsys.readouterr().err.replace(f"{tmp_path}/", "")
    assert code == 1 and "q.xml: declares the XML entity 'xxe'" in err
    assert "DECOY" not in err and list(out.iterdir()) == []


def test_force_writes_despite_problems_and_lists_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    long = b"::a::" + b"x" * 1600 + b"?{=a ~b}\n\n::b::Fine?{=a ~b}\n"
    code, out = _run(tmp_path, "q.gift", long, "--force")
    err = capsys.readouterr().err.replace(f"{tmp_path}/", "")
    assert code == 0 and "q.gift:1: text.en is 1601 characters" in err
    assert "despite 1 problem(s)" in err and (out / "quiz.yaml").exists()


def test_every_problem_is_told_in_one_pass_and_force_writes_what_converted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A question without a key hid every other problem until it was fixed (the teacher
    # learned of the 12 options on the second try), and --force wrote nothing at all,
    # though it is said to write what could be converted.
    gift = (b"::a:: Fine?{=a ~b}\n\n::b:: No key?{~a ~b}\n\n"
            b"::c:: Twelve?{=a ~b ~c ~d ~e ~f ~g ~h ~i ~j ~k ~l}\n")
    code, out = _run(tmp_path, "q.gift", gift)
    err = capsys.readouterr().err.replace(f"{tmp_path}/", "")
    assert code == 1 and [line for line in err.splitlines() if line.startswith("q.gift")] == [
        "q.gift:3: no option is the right answer (worth 100%); mark exactly one",
        "q.gift:5: options has 12 options; a question needs 2 to 10"]
    assert not (out / "quiz.yaml").exists()
    code, out = _run(tmp_path, "q.gift", gift, "--force")
    err = capsys.readouterr().err
    assert code == 0 and "wrote" in err and "despite 2 problem(s)" in err
    written = (out / "quiz.yaml").read_text()
    assert "id: a\n" in written and "id: c\n" in written and "id: b\n" not in written


def test_export_quiz_writes_a_file_that_imports_back_and_names_unknown_ids(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "p.gift"
    assert main(["export-quiz", "parallelism", "--format", "gift", "--output", str(target)]) == 0
    err = capsys.readouterr().err
    assert "wrote" in err and "its picture is left out (GIFT carries none)" in err
    assert target.read_text().count("::q") == 8
    assert main(["export-quiz", "parallelism", "--format", "gift", "--output", str(target)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["import", str(target), "--id", "parallelism", "--output",
                 str(tmp_path / "p.yaml")]) == 0
    assert main(["export-quiz", "nope", "--format", "csv"]) == 1
    assert "no quiz 'nope' (quizzes: " in capsys.readouterr().err
    assert main(["export-quiz", "parallelism", "--format", "csv", "--lang", "ur"]) == 0
    assert capsys.readouterr().out.startswith("id,question,option1")


def test_export_quiz_says_what_no_format_carries(capsys: pytest.CaptureFixture[str]) -> None:
    # A teacher moving a quiz to Moodle was not told its takeaways, references, other
    # topics and other language stay behind.
    assert main(["export-quiz", "parallelism", "--format", "moodle-xml", "--lang", "ur"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")]
    assert notes == [
        "note: only the 'ur' text is written; --lang en writes the 'en' one",
        "note: left out (no export format carries it): the takeaway of 8 questions",
        "note: left out (no export format carries it): the references of 8 questions",
        "note: left out (no export format carries it): every topic but the first (the "
        "category) of 8 questions"]


def test_a_csv_export_file_opens_in_excel_with_its_urdu_intact(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Without a BOM Excel reads a CSV file in the system's code page: every Urdu letter
    # came out as mojibake for a teacher who opened the export to edit it.
    target = tmp_path / "ur.csv"
    assert main(["export-quiz", "parallelism", "--format", "csv", "--lang", "ur",
                 "--output", str(target)]) == 0
    data = target.read_bytes()
    assert data.startswith(b"\xef\xbb\xbfid,question,option1")
    assert main(["import", str(target), "--id", "back", "--output",
                 str(tmp_path / "back.yaml")]) == 0
    assert "languages: [ur]" in (tmp_path / "back.yaml").read_text(encoding="utf-8")


def test_import_never_writes_a_second_quiz_with_an_id_the_folder_has(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `--id week3 --output content/new.yaml` beside content/week3.yaml wrote the file, and
    # then validate and the bot refused the whole folder ("id 'week3' is already used").
    gift = str(FIXTURES / "spec.gift")
    assert main(["import", gift, "--id", "week3", "--output", str(tmp_path / "week3.yaml")]) == 0
    capsys.readouterr()
    for force in ([], ["--force"]):
        assert main(["import", gift, "--id", "week3", "--output", str(tmp_path / "new.yaml"),
                     *force]) == 1
        assert capsys.readouterr().err.endswith(
            f"quizbot: {tmp_path / 'week3.yaml'}: already holds the quiz 'week3'; give --id "
            "another id, or --output week3.yaml to replace it\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["week3.yaml"]
    assert main(["validate", str(tmp_path)]) == 0


def test_validate_of_a_file_to_import_says_to_import_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A teacher checking their sheet with validate read 'week3.csv:1: must be a mapping,
    # got a string', about a file that was never meant to be YAML.
    sheet = tmp_path / "week3.csv"
    sheet.write_bytes((FIXTURES / "spec.csv").read_bytes())
    assert main(["validate", str(sheet)]) == 1
    assert capsys.readouterr().err.replace(f"{tmp_path}/", "").splitlines() == [
        "week3.csv: is not a quiz file (YAML) but a file to import; `quizbot import "
        "week3.csv` converts it and checks it as validate does", "1 problem(s) found."]
    assert main(["import", str(sheet), "--output", str(tmp_path / "week3.yaml")]) == 0
    assert main(["validate", str(sheet), str(tmp_path / "week3.yaml")]) == 1  # the YAML: ok
    out = capsys.readouterr()
    assert "ok  " in out.out and "1 problem(s) found." in out.err


def test_a_reimport_keeps_the_ids_an_earlier_import_wrote(tmp_path: Path) -> None:
    # A quiz file written under the old rule (copies of one text told apart by order): the
    # same sheet imported over it keeps each question's id, wherever its row went.
    (tmp_path / "out").mkdir()
    output = tmp_path / "out" / "quiz.yaml"
    output.write_text(old_rule_quiz("quiz"))
    (tmp_path / "s.csv").write_text(
        "question,option1,option2,correct,explanation\n"
        "Which is true?,1F1B bounds memory,No bubble,A,1F1B bounds memory.\n"
        "Which is true?,GPipe splits layers,ZeRO splits,A,GPipe splits layers.\n")
    assert main(["import", str(tmp_path / "s.csv"), "--id", "quiz", "--output",
                 str(output)]) == 0
    written = output.read_text()
    assert written.index("id: q-old-2") < written.index("- text: 1F1B bounds memory")
    assert written.index("id: q-old\n") > written.index("- text: 1F1B bounds memory")


def test_a_kahoot_workbook_is_imported_and_validate_accepts_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A spreadsheet was refused ("save it as CSV"); teachers' Kahoot template is an .xlsx.
    data = kahoot([
        [1, "How many stages does this GPipe run have?", 2, 4, 8, None, 20, 2],
        [2, "Which are collectives?", "all-reduce", "all-gather", "matmul", "", 30, "1,2"],
        [3, "Which schedule keeps fewer activations?", "1F1B", "GPipe", "", "", 20, 1],
    ])
    code, out = _run(tmp_path, "Week 3 pipelines.xlsx", data, "--format", "xlsx")
    err = capsys.readouterr().err
    assert code == 0, err
    assert "wrote" in err and "2 questions" in err
    assert ("warning: " + str(tmp_path / "Week 3 pipelines.xlsx") + ", sheet Sheet1:10: "
            "skipped a multiple-answer question 'Which are collectives?' (correct gives 2 "
            "options ('1,2'); keep the one right answer)") in err
    text = (out / "quiz.yaml").read_text()
    assert "id: week-3-pipelines\ntitle: Week 3 pipelines\n" in text
    assert "    - text: '4'\n" in text and "    correct: 1\n" in text
    assert main(["validate", str(out / "quiz.yaml")]) == 0
    # without --format: known by its name, and by its contents under another name
    assert _run(tmp_path, "week3.xlsx", data, "--force")[0] == 0
    assert _run(tmp_path, "week3.xls", data, "--force")[0] == 0
    bad = _run(tmp_path, "notes.xlsx", workbook(("Notes", [["just notes"]])))[0]
    assert bad == 1
    assert "notes.xlsx, sheet Notes: no row in its first 30 names the columns" in (
        capsys.readouterr().err)


def test_import_help_names_xlsx(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "--format {csv,aiken,gift,moodle-xml,xlsx}" in said
    assert "CSV or Excel (.xlsx, Kahoot's template too)" in said


def test_an_output_in_a_missing_folder_says_to_make_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It said only "quiz: no such folder".
    out = tmp_path / "quiz" / "week-3.yaml"
    assert main(["import", str(FIXTURES / "spec.gift"), "--output", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.endswith(f"quizbot: {out.parent}: no such folder; make it first (mkdir -p "
                        f"{out.parent}) or give a file in an existing folder\n")
    assert not out.parent.exists()


def test_export_quiz_refuses_a_missing_folder_before_its_notes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It converted the quiz, printed six notes on what the format leaves out, then said only
    # "quiz: no such folder".
    out = tmp_path / "quiz" / "p.gift"
    assert main(["export-quiz", "parallelism", "--format", "gift", "--output", str(out)]) == 1
    assert capsys.readouterr().err == (
        f"quizbot: {out.parent}: no such folder; make it first (mkdir -p {out.parent}) or "
        "give a file in an existing folder\n")
    (tmp_path / "taken.gift").write_text("mine")
    assert main(["export-quiz", "parallelism", "--format", "gift", "--output",
                 str(tmp_path / "taken.gift")]) == 1
    assert capsys.readouterr().err.startswith(f"quizbot: {tmp_path / 'taken.gift'}: already "
                                              "exists")
    assert (tmp_path / "taken.gift").read_text() == "mine"
