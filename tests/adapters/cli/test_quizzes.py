"""`quizbot quizzes list|add|remove`: the installed quizzes, from the command line."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from adapters.cli.main import main

FIXTURES = Path(__file__).parents[2] / "fixtures" / "import"


def test_add_list_remove(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    args = ["--config", str(config)]
    assert main(["quizzes", "list", *args]) == 0
    assert "no installed quizzes" in capsys.readouterr().out
    assert main(["quizzes", "add", str(FIXTURES / "spec.gift"), "--id", "gifts", *args]) == 0
    assert "installed gifts: GIFT examples, 7 questions (version 1)" in capsys.readouterr().out
    assert main(["quizzes", "list", *args]) == 0
    assert capsys.readouterr().out.startswith("gifts: GIFT examples, 7 questions; version 1, "
                                              "by cli:")
    bad = tmp_path / "bad.gift"
    bad.write_text("::a::Q?{~a ~b}\n")
    assert main(["quizzes", "add", str(bad), *args]) == 1
    assert "bad.gift:1: no option is the right answer" in capsys.readouterr().err
    assert main(["quizzes", "add", str(FIXTURES / "spec.gift"), "--id", "parallelism",
                 *args]) == 1
    assert "parallelism is a built-in quiz" in capsys.readouterr().err
    out = tmp_path / "back.gift"
    assert main(["export-quiz", "gifts", "--format", "gift", "--output", str(out), *args]) == 0
    assert out.read_text().count("::") >= 12  # an installed quiz exports too
    capsys.readouterr()
    assert main(["quizzes", "remove", "gifts", *args]) == 0
    assert "removed gifts: GIFT examples" in capsys.readouterr().out
    assert main(["quizzes", "remove", "gifts", *args]) == 1
    assert main(["quizzes", "list", *args]) == 0
    assert "no installed quizzes" in capsys.readouterr().out


def test_without_config_export_quiz_finds_what_quizzes_add_installed(
        tmp_path: Path, data_home: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no old ./data/quizbot.db to be used instead
    out = tmp_path / "back.gift"
    assert main(["export-quiz", "gifts", "--format", "gift", "--output", str(out)]) == 1
    assert "no quiz 'gifts'" in capsys.readouterr().err
    assert not list(data_home.rglob("*.db"))  # looking created no database
    # Both use the learner's data folder, as play and list do.
    assert main(["quizzes", "add", str(FIXTURES / "spec.gift"), "--id", "gifts"]) == 0
    assert main(["export-quiz", "gifts", "--format", "gift", "--output", str(out)]) == 0
    assert out.read_text().count("::") >= 12


def test_two_files_named_in_urdu_install_as_two_quizzes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A name with no Latin letter gave every such file the id 'imported': the second
    # upload silently replaced the first.
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    args = ["--config", str(config)]
    for name in ("ہفتہ ۳.gift", "ہفتہ ۴.gift", "ہفتہ ۳.gift"):
        (tmp_path / name).write_bytes((FIXTURES / "urdu.gift").read_bytes())
        assert main(["quizzes", "add", str(tmp_path / name), *args]) == 0
    capsys.readouterr()
    assert main(["quizzes", "list", *args]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 2, listed  # the same name again replaces its own quiz only
    assert all(line.startswith("quiz-") for line in listed)


def test_adding_the_installed_file_again_changes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same file again is told unchanged and keeps its version (it made version 2 of
    the very same quiz); a changed file, or the same one after a removal, is a new one."""
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    args = ["--config", str(config)]
    gift = tmp_path / "spec.gift"
    gift.write_bytes((FIXTURES / "spec.gift").read_bytes())
    assert main(["quizzes", "add", str(gift), "--id", "gifts", *args]) == 0
    assert "(version 1)" in capsys.readouterr().out
    assert main(["quizzes", "add", str(gift), "--id", "gifts", *args]) == 0
    assert capsys.readouterr().out.startswith(
        "unchanged gifts: GIFT examples, 7 questions, already installed as version 1 from the "
        "same content; nothing was changed")
    assert main(["quizzes", "list", *args]) == 0
    assert "; version 1, by cli:" in capsys.readouterr().out
    gift.write_bytes(gift.read_bytes().replace(b"Who's buried", b"Who is buried"))
    assert main(["quizzes", "add", str(gift), "--id", "gifts", *args]) == 0
    assert "installed gifts: GIFT examples, 7 questions (version 2)" in capsys.readouterr().out
    assert main(["quizzes", "remove", "gifts", *args]) == 0
    assert main(["quizzes", "add", str(gift), "--id", "gifts", *args]) == 0
    assert "(version 4)" in capsys.readouterr().out  # back after its removal (version 3)


def test_add_lists_every_problem_in_full_and_counts_one_question(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It printed the chat reply's list: the first 20 problems, each cut to 300 characters,
    # '… +5', and no count; and '1 questions' for a one-question quiz. It ended on 'nothing
    # installed', not saying what to do next: fix the file, and the command to run again.
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    bad = tmp_path / "bad.csv"
    bad.write_text("question,option1,option2,correct\n"
                   + "".join(f"Q{i}?,a,b,Z{i}\n" for i in range(25)))
    assert main(["quizzes", "add", str(bad), "--config", str(config)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"bad.csv:{i + 2}: correct is 'Z{i}'; give the right option's number (1-10), "
                   "letter (A-J) or text, of a filled option" for i in range(25)] + [
        f"25 problem(s) found; nothing installed. Fix each in {bad} (the lines above say "
        f"where), then run again: quizbot quizzes add {bad} --config {config}"]
    bad.write_text("question,option1,option2,correct,explanation\nQ?,a,b,A,Because.\n")
    assert main(["quizzes", "add", str(bad), "--config", str(config)]) == 0
    assert "installed bad: Bad, 1 question (version 1)" in capsys.readouterr().out
    assert main(["import", str(bad)]) == 0
    assert capsys.readouterr().err.endswith("wrote standard output: 1 question\n")


def test_removing_twice_says_none_is_installed_not_that_none_was_uploaded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # After the only installed quiz was removed, a second remove said "No quiz has been
    # uploaded yet": one just had been.
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    args = ["--config", str(config)]
    assert main(["quizzes", "add", str(FIXTURES / "spec.gift"), "--id", "gifts", *args]) == 0
    assert main(["quizzes", "remove", "gifts", *args]) == 0
    capsys.readouterr()
    assert main(["quizzes", "remove", "gifts", *args]) == 1
    assert capsys.readouterr().err == (
        "quizbot: No uploaded quiz is installed now, so there is none to remove.\n")


def test_removing_a_built_in_quiz_says_which_can_be_removed_not_to_rename_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "cannot be replaced or removed. Give yours another id": advice for an upload, said to
    # someone removing (here and to an admin's /quiz remove, in English and Urdu).
    from bot.present.i18n import Catalogue

    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    assert main(["quizzes", "remove", "parallelism", "--config", str(config)]) == 1
    assert capsys.readouterr().err == (
        "quizbot: parallelism is a built-in quiz and cannot be removed. Only quizzes added "
        "here can be (an upload, or quizbot quizzes add), by their id.\n")
    urdu = Catalogue.load().t("ur", "error.shipped_quiz_remove", quiz="parallelism")
    assert "ہٹایا نہیں جا سکتا" in urdu and "id دیں" not in urdu


def test_a_quiz_file_written_by_import_installs_with_its_pictures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # README's five steps: `quizbot import week3.xml --id week-3 --output week-3.yaml`, then
    # `quizbot quizzes add week-3.yaml` refused it: "questions[0].image
    # img/week-3-gpipe-bubble.png does not exist", though import had written it beside.
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    args = ["--config", str(config)]
    out = tmp_path / "week-3.yaml"
    assert main(["import", str(FIXTURES / "moodle.xml"), "--id", "week-3",
                 "--output", str(out)]) == 0
    assert (tmp_path / "img" / "week-3-gpipe-bubble.png").is_file()
    capsys.readouterr()
    assert main(["quizzes", "add", str(out), *args]) == 0, capsys.readouterr().err
    assert "installed week-3: Pipeline basics, 3 questions" in capsys.readouterr().out
    back = tmp_path / "back.xml"
    assert main(["export-quiz", "week-3", "--format", "moodle-xml", "--output", str(back),
                 *args]) == 0
    assert back.read_text().count('<file name="') == 1  # the picture was installed with it


def test_a_quiz_file_cannot_carry_a_picture_from_outside_its_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    folder = tmp_path / "quiz"
    folder.mkdir()
    assert main(["import", str(FIXTURES / "moodle.xml"), "--id", "week-3",
                 "--output", str(folder / "week-3.yaml")]) == 0
    text = (folder / "week-3.yaml").read_text()
    (tmp_path / "outside.png").write_bytes((folder / "img" / "week-3-gpipe-bubble.png")
                                           .read_bytes())
    (folder / "week-3.yaml").write_text(text.replace("img/week-3-gpipe-bubble.png",
                                                     "../outside.png"))
    capsys.readouterr()
    assert main(["quizzes", "add", str(folder / "week-3.yaml"), "--config", str(config)]) == 1
    assert "../outside.png" in capsys.readouterr().err


def test_stats_and_export_name_an_installed_quizs_questions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed quiz's results were exported with its ids alone ('photo', 'q-2f537be729')
    and no text, its questions out of the order the teacher wrote them: export and stats read
    only content.dir, not the quizzes installed in the database."""
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    args = ["--config", str(config)]
    sheet = tmp_path / "photo.csv"
    sheet.write_text("# Photosynthesis\nquestion,option1,option2,correct\n"
                     "Which gas is released?,Oxygen,Nitrogen,1\n"
                     "کلوروفل کس رنگ کا ہوتا ہے؟,سبز,سرخ,1\n", encoding="utf-8")
    assert main(["quizzes", "add", str(sheet), *args]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("a\na\n"))
    assert main(["play", "--quiz", "photo", "--user", "Lin", *args]) == 0
    capsys.readouterr()
    assert main(["export", "--format", "csv", *args]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["quiz_title"], r["question"]) for r in rows] == [
        ("Photosynthesis", "Which gas is released?"),
        ("Photosynthesis", "کلوروفل کس رنگ کا ہوتا ہے؟")]
    assert main(["export", "--format", "json", *args]) == 0
    (learner,) = json.loads(capsys.readouterr().out)["learners"]
    assert learner["quiz_title"] == "Photosynthesis"
    assert learner["questions"][0]["question"] == "Which gas is released?"
    assert main(["stats", *args]) == 0
    assert "Q1 Which gas is released?" in capsys.readouterr().out
