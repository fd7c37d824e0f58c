"""`/quiz upload:<file>` and `/quiz remove:<id>` (admins) through the fake Discord: the
attachment is fetched only for an admin and a file within the limit, checked as validate
checks, installed, playable, and taken out again."""

from __future__ import annotations

from pathlib import Path

from tests.workbooks import workbook

from .conftest import ALICE, BOB, GUILD, replied, running, write_config
from .fake_discord import FakeDiscord

FIXTURES = Path(__file__).parents[2] / "fixtures" / "import"


async def test_an_admin_uploads_and_removes_a_quiz(tmp_path: Path, fake: FakeDiscord) -> None:
    path = write_config(tmp_path, fake)
    path.write_text(path.read_text() + f"admins:\n  discord: [{ALICE['id']}]\n")
    async with running(path) as app:
        quiz = next(c for c in fake.commands[GUILD] if c["name"] == "quiz")
        assert [o["name"] for o in quiz["options"]] == ["quiz", "upload", "remove", "title"]
        gift = (FIXTURES / "spec.gift").read_bytes()

        ix = await replied(fake, await fake.slash(BOB, "quiz", guild=GUILD,
                                                  options={"upload": ("mine.gift", gift)}))
        assert ix.original is not None and ix.original.content == app.catalogue.t(
            "en", "error.not_admin")
        assert fake.downloads == []  # a stranger's file is never fetched

        ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                                  options={"upload": ("big.gift", b"x" * 600_000)}))
        assert ix.original is not None and ix.original.content.startswith("That file is 586 kB")
        assert fake.downloads == []

        bad = b"::a::Q?{~a ~b}\n"
        ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                                  options={"upload": ("bad.gift", bad)}))
        assert ix.original is not None and ix.original.content.endswith(
            "• bad.gift:1: no option is the right answer (worth 100%); mark exactly one")
        # 60 different problems (alike ones are said once, with their lines)
        many = b"question,option1,option2,correct\n" + b"".join(
            b"Which__one_*_?,a_,b_,Z%d\n" % i for i in range(60))
        name = "a_b_c_d_e_f_g_h_i_j_k.csv"  # each underscore escaped: the text grows
        ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                                  options={"upload": (name, many)}))
        assert ix.original is not None  # the fake refuses a message over Discord's 2,000
        assert "• a\\_b\\_c\\_d\\_e\\_f\\_g\\_h\\_i\\_j\\_k.csv:2: correct is 'Z0'" in (
            ix.original.content)
        assert ix.original.content.splitlines()[-1].startswith("… +")

        ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                                  options={"upload": ("spec.gift", gift)}))
        assert ix.original is not None and ix.original.ephemeral
        text = ix.original.embeds[0]["description"] if ix.original.embeds else ix.original.content
        assert "Installed “GIFT examples” (questions: 7)" in text
        assert "spec" in app.engine.library.quizzes

        ix = await replied(fake, await fake.slash(BOB, "quiz", guild=GUILD,
                                                  options={"quiz": "spec"}))
        assert ix.original is not None  # a learner starts it

        ix = await replied(fake, await fake.slash(BOB, "quiz", guild=GUILD,
                                                  options={"remove": "spec"}))
        assert ix.original is not None and ix.original.content == app.catalogue.t(
            "en", "error.not_admin")
        ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                                  options={"remove": "spec"}))
        assert ix.original is not None
        text = ix.original.embeds[0]["description"] if ix.original.embeds else ix.original.content
        assert text.startswith("Removed “GIFT examples”.")
        assert "spec" not in app.engine.library.quizzes


async def test_a_file_of_no_known_format_is_told_how_to_name_it(tmp_path: Path,
                                                                fake: FakeDiscord) -> None:
    """Discord's /quiz upload has no --format option: the refusal says which file names
    say the format (it used to answer only "give --format csv|aiken|gift|moodle-xml")."""
    path = write_config(tmp_path, fake)
    path.write_text(path.read_text() + f"admins:\n  discord: [{ALICE['id']}]\n")
    async with running(path) as app:
        ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                                  options={"upload": ("notes.txt", b"hi")}))
        assert ix.original is not None and ix.original.ephemeral
        problem = ix.original.content.splitlines()[-1]
        assert problem.startswith("• notes.txt: cannot tell its format; name the file .yaml,")
        assert ".gift" in problem and ".csv" in problem and "ANSWER:" in problem
        assert "notes" not in app.engine.library.quizzes


async def test_help_tells_an_admin_how_to_upload_and_nobody_else(tmp_path: Path,
                                                                fake: FakeDiscord) -> None:
    # Nothing in the chat said a quiz file could be uploaded: an admin had to find
    # docs/import.md.
    path = write_config(tmp_path, fake)
    path.write_text(path.read_text() + f"admins:\n  discord: [{ALICE['id']}]\n")
    async with running(path) as app:
        said = app.catalogue.t("en", "help_server_admin")
        ix = await replied(fake, await fake.slash(ALICE, "help", guild=GUILD))
        assert ix.original is not None and ix.original.content.endswith(said)
        assert "/quiz upload:" in said
        ix = await replied(fake, await fake.slash(BOB, "help", guild=GUILD))
        assert ix.original is not None and "/quiz upload" not in ix.original.content


async def test_an_upload_takes_its_title_from_the_title_option(tmp_path: Path,
                                                                fake: FakeDiscord) -> None:
    # A sheet named my_quiz_v2.csv was listed as 'my quiz v2' and could not be renamed.
    path = write_config(tmp_path, fake)
    path.write_text(path.read_text() + f"admins:\n  discord: [{ALICE['id']}]\n")
    sheet = b"question,option1,option2,correct\nWhich splits layers?,PP,DP,A\n"
    async with running(path) as app:
        ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options={
            "upload": ("my_quiz_v2.csv", sheet), "title": "Week 3: Pipelines"}))
        assert ix.original is not None
        text = ix.original.embeds[0]["description"] if ix.original.embeds else ix.original.content
        assert "Installed “Week 3: Pipelines” (questions: 1)" in text
        assert app.engine.library.quiz("my-quiz-v2").title.get("en") == "Week 3: Pipelines"


async def test_an_admin_uploads_an_excel_workbook(tmp_path: Path, fake: FakeDiscord) -> None:
    # An .xlsx was refused ("save it as CSV"): the attachment's bytes are a zip, read as one.
    path = write_config(tmp_path, fake)
    path.write_text(path.read_text() + f"admins:\n  discord: [{ALICE['id']}]\n")
    book = workbook(("Questions", [
        ["# Week 3: Pipelines"],
        ["question", "option1", "option2", "option3", "correct", "explanation"],
        ["How many stages does this GPipe run have?", 2, 4.0, 8, "B", "Four, one per GPU."],
        [],
        ["Which splits the layers?", "Pipeline", "Data", None, "A", "Pipeline: by layers."],
    ]))
    async with running(path) as app:
        ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options={
            "upload": ("week3.xlsx", book)}))
        assert ix.original is not None
        text = ix.original.embeds[0]["description"] if ix.original.embeds else ix.original.content
        assert "Installed “Week 3: Pipelines” (questions: 2)" in text
        quiz = app.engine.library.quiz("week3")
        assert [o.text.get("en") for o in quiz.questions[0].options] == ["2", "4", "8"]
        assert quiz.questions[0].correct == 1
        assert len(fake.downloads) == 1

        ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options={
            "upload": ("week3.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")}))
        assert ix.original is not None and ix.original.content.endswith(
            "• week3.xls: is an old Excel workbook (.xls); save it as .xlsx or CSV (Excel: "
            "File > Save As > Excel Workbook) and use that file")
