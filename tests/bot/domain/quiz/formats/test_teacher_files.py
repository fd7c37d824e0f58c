"""Files as teachers' tools leave them (Excel's BOM, CRLF, semicolons, Urdu, a brace or
a quote left open): every problem names the file, the line where it starts and what to do."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from bot.domain.quiz.formats import export_quiz, read_draft
from bot.features.importing import convert

FIXTURES = Path(__file__).parents[4] / "fixtures" / "import"


def _problems(name: str) -> list[str]:
    result = convert((FIXTURES / name).read_bytes(), name)
    assert result.quiz is None
    return result.problems


def test_an_unclosed_gift_brace_is_named_not_read_as_two_right_answers() -> None:
    # The blank line inside the open '{' used to glue the next question on, so the file
    # was refused for "2 options are worth 100%", which is not what is wrong.
    assert _problems("unclosed.gift") == [
        "unclosed.gift:2: '{' opens the answers but no '}' closes them; close them with '}' "
        "(a literal brace is written '\\{')"]


def test_csv_rows_are_told_at_their_first_line_and_an_open_quote_is_named() -> None:
    # Row 1 spans lines 2-3 (a cell with a line break); row 2 opens a quote it never closes.
    assert _problems("unclosed-quote.csv") == [
        "unclosed-quote.csv:2: correct is '4'; give the right option's number (1-10), "
        "letter (A-J) or text, of a filled option",
        "unclosed-quote.csv:4: a quoted cell that starts in this row is not closed; add the "
        "missing '\"'"]


def test_a_file_written_in_urdu_becomes_an_urdu_quiz_without_being_told() -> None:
    # A chat upload and `quizbot quizzes add` have no --lang: an Urdu teacher's file was
    # installed as an English quiz, its true/false options named True and False.
    result = convert((FIXTURES / "urdu.gift").read_bytes(), "urdu.gift")
    assert result.problems == [] and result.quiz is not None
    assert result.quiz.languages == ("ur",)
    true_false = result.quiz.questions[1]
    assert [o.text.get("ur") for o in true_false.options] == ["درست", "غلط"]
    english = convert((FIXTURES / "spec.gift").read_bytes(), "spec.gift")
    assert english.quiz is not None and english.quiz.languages == ("en",)
    told = convert((FIXTURES / "urdu.gift").read_bytes(), "urdu.gift", lang="en")
    assert told.quiz is not None and told.quiz.languages == ("en",)  # --lang still wins


def test_aiken_from_windows_reads_answer_variants_and_says_how_options_are_written(
        ) -> None:
    # BOM, CRLF, "ANSWER: B." and "Answer: c)" as typed; the third question's options
    # are lower case, which Aiken does not have: said so, not "options: none".
    draft = read_draft((FIXTURES / "crlf.txt").read_bytes(), "crlf.txt", "aiken")
    assert [[o.fraction for o in q.options] for q in draft.questions] == [
        [0, 100, 0], [0, 0, 100]]
    assert draft.questions[0].text == "Which parallelism splits layers across GPUs?"
    assert draft.problems == [
        "crlf.txt:13: no options before 'ANSWER:'; write each on its own line starting "
        "with a capital letter and '.' or ')', as 'A. '"]


def test_what_an_import_drops_is_said_hints_and_gift_pictures() -> None:
    # A Moodle 4 export (hints, entities, <br>, a picture, penalties) and a GIFT [html]
    # question with a picture: both used to be dropped without a word.
    moodle = convert((FIXTURES / "moodle4.xml").read_bytes(), "moodle4.xml")
    assert moodle.quiz is not None and len(moodle.quiz.questions) == 2
    assert "moodle4.xml:15: 1 hint(s) left out: a question here has none; put what they " \
           "say in the explanation" in moodle.warnings
    assert moodle.quiz.questions[0].text.get("en") == (
        "GPipe with p = 4 stages\nand m = 8 micro-batches.\n\nWhat fraction of time is idle?")
    assert moodle.quiz.questions[1].image is not None
    gift = convert((FIXTURES / "picture.gift").read_bytes(), "picture.gift")
    assert gift.quiz is not None
    assert "picture.gift:2: a picture (<img>) is left out: GIFT files carry none; import " \
           "the Moodle XML export, which does" in gift.warnings


def test_a_gift_multiple_answer_question_is_skipped_not_the_whole_file_refused() -> None:
    # Moodle XML's multiple-answer questions were skipped, GIFT's refused the whole file
    # ("no option is the right answer").
    result = convert((FIXTURES / "multi-answer.gift").read_bytes(), "multi-answer.gift")
    assert result.problems == [] and result.quiz is not None
    assert [q.id for q in result.quiz.questions] == ["one"]
    assert result.warnings[0] == (
        "multi-answer.gift:2: skipped a multiple-answer question 'Multi' (the credit is shared "
        "by 2 answers); only multiple choice, true/false, computed and typed-number questions "
        "are imported")


def test_a_spreadsheet_or_document_is_told_what_to_save_it_as(tmp_path: Path) -> None:
    # An .xlsx was told "name the file .csv", which then failed as "a zip archive"; an .xlsx
    # is read now (test_sheet.py), an old .xls or an .ods is told to save it as one.
    sheet = tmp_path / "week3.ods"
    with zipfile.ZipFile(sheet, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("content.xml", "<office:document-content/>")
    assert convert(sheet.read_bytes(), "week3.ods").problems == [
        "week3.ods: is an OpenDocument spreadsheet (.ods); save it as .xlsx or CSV "
        "(LibreOffice: File > Save As > Excel 2007-365) and use that file"]
    assert convert(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "week3.xls").problems == [
        "week3.xls: is an old Excel workbook (.xls); save it as .xlsx or CSV (Excel: File > "
        "Save As > Excel Workbook) and use that file"]
    assert convert(sheet.read_bytes(), "week3.docx").problems[0].startswith(
        "week3.docx: is a document; write the questions as Aiken or GIFT text")


def test_an_arrow_in_a_multiple_choice_option_is_no_matching_question() -> None:
    # 'F -> B' in an option made the question a skipped "matching" one, so GIFT files
    # and our own GIFT exports of such a quiz lost it; Moodle reads '~' as multiple choice.
    result = convert((FIXTURES / "arrow.gift").read_bytes(), "arrow.gift")
    assert result.problems == [] and result.quiz is not None
    options = [o.text.get("en") for o in result.quiz.questions[0].options]
    assert options == ["F -> B -> F -> B, alternating", "all F -> then all B", "only B"]
    data, _ = export_quiz(result.quiz, "gift", "en")
    again = convert(data, "again.gift")
    assert again.quiz is not None
    assert [o.text.get("en") for o in again.quiz.questions[0].options] == options


def test_answers_of_an_html_question_are_html_as_moodle_exports_them() -> None:
    # Moodle's GIFT export marks only the question [html]; its answers and feedback were
    # kept with their tags ("<p>3/11</p>"), shown to learners as such.
    quiz = convert((FIXTURES / "moodle-export.gift").read_bytes(), "moodle-export.gift").quiz
    assert quiz is not None
    bubble, true_false = quiz.questions
    assert [(o.text.get("en"), o.why_not.get("en") if o.why_not else "")
            for o in bubble.options] == [("3/11", ""), ("3/8", "That divides by m.")]
    assert bubble.explanation.get("en") == "(p-1)/(m+p-1) = 3/11\n\nRight: idle over total."
    assert true_false.explanation.get("en") == "Yes."
    assert true_false.options[1].why_not is not None
    assert true_false.options[1].why_not.get("en") == "No."


def test_an_option_that_is_only_a_picture_is_named_as_such() -> None:
    # It was refused as "options[0].text.en is empty", with one picture "left out".
    assert _problems("picture-options.xml") == [
        f"picture-options.xml:{line}: an option is only a picture and options here are "
        "text; describe it in words (a picture may go in the question text)"
        for line in (9, 10)]


def test_an_urdu_category_becomes_a_topic_id_that_reads_as_one() -> None:
    # /review lists topics as "name (id)": an Urdu category's id was "q-<hash>", which
    # reads as a question's.
    quiz = convert((FIXTURES / "urdu.gift").read_bytes(), "urdu.gift").quiz
    assert quiz is not None
    (topic, name), = quiz.topics
    assert topic.startswith("topic-") and name.get("ur") == "پائپ لائن"
    assert all(q.topics == (topic,) for q in quiz.questions)


def test_two_gift_questions_without_a_blank_line_are_refused_not_merged() -> None:
    # The second question was glued onto the first as a "missing word" text:
    # "Which splits layers? _____ ::Q2::Which shards optimizer state?{=ZeRO ~Pipeline}".
    assert _problems("no-blank-line.gift") == [
        "no-blank-line.gift:2: another question follows its answers without a blank line; "
        "put a blank line between two questions"]


def test_a_tab_separated_sheet_is_read() -> None:
    # Google Sheets' "Download as .tsv", or rows pasted from a spreadsheet: the header was
    # read as one column and refused for having no question, option1 ... columns.
    quiz = convert((FIXTURES / "sheet.tsv").read_bytes(), "sheet.tsv").quiz
    assert quiz is not None
    (q,) = quiz.questions
    assert [o.text.get("en") for o in q.options] == [
        "Pipeline parallelism", "Data parallelism", "ZeRO, stage 1"]
    assert q.correct == 0


def test_short_urdu_true_false_questions_are_told_by_their_own_words() -> None:
    # The options True/False that the reader names itself outweighed a short Urdu question
    # with an English term ("GPU تیز ہے؟"), so the quiz was taken as English.
    quiz = convert((FIXTURES / "urdu-true-false.gift").read_bytes(), "tf.gift").quiz
    assert quiz is not None and quiz.languages == ("ur",)
    assert [o.text.get("ur") for o in quiz.questions[0].options] == ["درست", "غلط"]


def test_an_aiken_answer_naming_two_options_is_told_so() -> None:
    # "ANSWER: A, B" was told "the question has no 'ANSWER: <letter>' line".
    assert _problems("two-answers.txt") == [
        "two-answers.txt:1: ANSWER names several options ('A, B'); an Aiken question has "
        "one right answer: give one letter"]


def test_an_imported_quizs_description_is_in_its_language() -> None:
    # It was always "N questions imported from FILE." in English, even for an Urdu quiz,
    # whose description learners read in Urdu.
    for name, lang, said in (("urdu.gift", "ur", "سوالات"), ("spec.gift", "en", "7 questions"),
                             ("spec.aiken", "en", "questions imported from spec.aiken")):
        quiz = convert((FIXTURES / name).read_bytes(), name).quiz
        assert quiz is not None and quiz.languages == (lang,)
        description = quiz.description.get(lang)
        assert said in description and name in description, description
        if lang == "ur":
            assert "questions" not in description and "imported" not in description
            assert str(len(quiz.questions)) in description


@pytest.mark.slow  # converts 3,600 questions (about 4 s)
def test_a_file_that_makes_too_big_a_quiz_is_told_in_its_own_terms() -> None:
    data = "".join(f"Is {i} even?{{T}}\n\n" for i in range(3600)).encode()
    assert len(data) < 100 * 1024  # well under the upload limit: the quiz it makes is not
    result = convert(data, "week3.gift")
    [problem] = result.problems
    # it said 'week3.gift: is 539 kB; a quiz file may have 512 kB (split it)' of a 65 kB file
    assert problem.startswith("week3.gift: its 3600 questions make a quiz of ")
    assert problem.endswith("; a quiz may have 512 kB: split it into files of at most "
                            f"{problem.split()[-2]} questions")
    assert 3000 < int(problem.split()[-2]) < 3600


def test_a_csv_row_with_more_than_ten_options_is_refused_not_cut() -> None:
    # Option 11 and 12 were read as if the columns were not there: the question was
    # installed with 10 options, silently short of the two the teacher wrote.
    header = ",".join(["Question", *(f"Option {n}" for n in range(1, 13)), "Correct"])
    row = ",".join(["Pick one", *(f"o{n}" for n in range(1, 13)), "3"])
    blank = ",".join(["Two more", "a", "b", *[""] * 10, "A"])  # option11/12 empty: fine
    result = convert(f"{header}\r\n{row}\r\n{blank}\r\n".encode(), "twelve.csv")
    assert result.problems == [
        "twelve.csv:2: has 12 options (option11, option12 filled); a question has 2 to 10: "
        "leave out the weakest"]


def test_a_question_or_option_given_twice_is_said_with_both_places() -> None:
    # Two sheets merged (a row pasted twice) was installed as two questions, learners
    # answering it twice; an option given twice, one of them the key, marked a learner
    # who picked the copy wrong. Neither was said. Case is meaning (CO is not Co).
    sheet = ("question,option1,option2,option3,correct,explanation\r\n"
             "Which is carbon monoxide?,CO,Co,C2O,A,One C and one O.\r\n"
             "Which is an alkene?,ethene,ethane,ethene,A,A C=C bond.\r\n"
             "Which is carbon monoxide?,CO,Co,C2O,A,One C and one O.\r\n")
    result = convert(sheet.encode(), "merged.csv")
    assert result.quiz is not None
    assert [w for w in result.warnings if "twice" in w or "the same as" in w] == [
        "merged.csv:3: options[2] (en) is the same as options[0] and one of them is the right "
        "answer: a learner who picks the other is marked wrong; remove one or reword it",
        "merged.csv:4: the question (q-57eb18c435-2) repeats the question at merged.csv:2, "
        "options and all: learners would answer it twice; remove one"]


def test_excels_unicode_text_and_a_sep_line_are_read() -> None:
    # Excel's "Unicode Text" (UTF-16 with its BOM, tab-separated, .txt), how Excel long saved
    # a sheet in Urdu, was 'cannot tell its format' (.txt) or 'is not UTF-8 (byte 1)' (.csv);
    # a first line 'sep=;' (written so that Excel splits the columns) was read as the header.
    rows = ["question\toption1\toption2\tcorrect",
            "غالب کا پورا نام کیا تھا؟\tمرزا اسد اللہ خان\tمیر تقی میر\t1"]
    unicode_text = "\r\n".join(rows).encode("utf-16")
    assert unicode_text.startswith(b"\xff\xfe")
    for name in ("urdu.txt", "urdu.csv"):
        quiz = convert(unicode_text, name).quiz
        assert quiz is not None and quiz.languages == ("ur",)
        assert quiz.questions[0].options[0].text.get("ur") == "مرزا اسد اللہ خان"
    sep = b"sep=;\r\nquestion;option1;option2;correct\r\nWhich is aromatic?;benzene;hexane;\r\n"
    assert _problems_of(sep, "sep.csv") == [
        "sep.csv:3: correct is empty; give the right option's number (1-10), letter (A-J) "
        "or text, of a filled option"]
    quiz = convert(sep.replace(b"hexane;", b"hexane;A"), "sep.csv").quiz
    assert quiz is not None and [o.text.get("en") for o in quiz.questions[0].options] == [
        "benzene", "hexane"]


def _problems_of(data: bytes, name: str) -> list[str]:
    result = convert(data, name)
    assert result.quiz is None
    return result.problems


def test_an_equals_sign_inside_a_gift_answer_is_named() -> None:
    # "=C=C double bond" is, as Moodle reads GIFT, two right answers 'C' and 'C double bond';
    # the teacher, who wrote one '=', was told '2 options are worth 100%'.
    gift = (b"::alkene:: Which bond makes ethene an alkene? "
            b"{=C=C double bond ~C-C single bond}\n\n::compact:: Benzene is aromatic? {=yes~no}\n")
    assert _problems_of(gift, "bonds.gift") == [
        "bonds.gift:1: '=' inside an answer's text ('C=C') starts another right answer; write "
        "a literal '=' as '\\=' ('C\\=C')"]
    fixed = convert(gift.replace(b"=C=C", b"=C\\=C"), "bonds.gift").quiz
    assert fixed is not None
    assert [o.text.get("en") for o in fixed.questions[0].options] == [
        "C=C double bond", "C-C single bond"]
    assert [o.text.get("en") for o in fixed.questions[1].options] == ["yes", "no"]


def test_a_csv_correct_cell_is_read_as_the_teacher_meant_it() -> None:
    # "What is 1+2?" with options 2, 3, 4 and correct 3 was keyed '4' (option 3) without a
    # word; a cell holding the right option's text ('benzene') was refused.
    sheet = ("question,option1,option2,option3,correct,explanation\n"
             "What is 1+2?,2,3,4,3,One plus two.\n")
    assert _problems_of(sheet.encode(), "math.csv") == [
        "math.csv:2: correct is '3', which is option 3 ('4') by its number or letter, but "
        "option 2 reads '3'; give the right option's letter (B or C)"]
    quiz = convert(sheet.replace(",3,One", ",B,One").encode()
                   + b"Which is aromatic?,hexane,benzene,propane,benzene,Six pi electrons.\n",
                   "math.csv").quiz
    assert quiz is not None and [q.correct for q in quiz.questions] == [1, 1]
    data, _ = export_quiz(quiz, "csv", "en")  # written with the key's letter: reads back
    again = convert(data, "math.csv").quiz
    assert again is not None and [q.correct for q in again.questions] == [1, 1]


def test_a_csv_correct_cell_in_urdu_letters_or_digits_is_read_and_a_superscript_told() -> None:
    # An Urdu paper letters its options (الف) (ب) (ج) (د) and may write ۳ for 3: refused as
    # 'correct is 'ب''. A '²' (a digit to str.isdigit, not to int) raised ValueError: a
    # traceback from import, and 'Something went wrong' in reply to an upload.
    sheet = ("question,option1,option2,option3,option4,correct\n"
             "غالب کا پورا نام کیا تھا؟,میر تقی میر,مرزا اسد اللہ خان,علامہ اقبال,فیض,ب\n"
             "آبِ حیات کس کی تصنیف ہے؟,محمد حسین آزاد,حالی,شبلی,سر سید,(الف)\n"
             "بانگِ درا کس کی ہے؟,میر,غالب,اقبال,فیض,۳\n")
    quiz = convert(sheet.encode(), "urdu.csv").quiz
    assert quiz is not None and [q.correct for q in quiz.questions] == [1, 0, 2]
    assert _problems_of(b"question,option1,option2,correct\nQ?,a,b,\xc2\xb2\n", "sup.csv") == [
        "sup.csv:2: correct is '²'; give the right option's number (1-10), letter (A-J) or "
        "text, of a filled option"]


def test_a_csv_header_naming_a_column_twice_is_refused() -> None:
    # 'Option 1' typed twice: the second column silently won, the first option was lost
    # (and 'correct: A' then named another option). Unknown columns may repeat.
    sheet = b"question,Option 1,option1,option2,correct,notes,notes\nQ?,a,b,c,A,x,y\n"
    assert _problems_of(sheet, "dup.csv") == [
        "dup.csv:1: the header names option1 twice (columns 2, 3); name each column once"]
    fine = convert(sheet.replace(b"Option 1,option1,option2", b"option1,option2,option3"),
                   "dup.csv").quiz
    assert fine is not None and len(fine.questions[0].options) == 3


def _ids(rows: list[str]) -> dict[tuple[str, str], str]:
    """Each question's (text, first option) -> its id, for a CSV of `rows`."""
    sheet = "question,option1,option2,correct\n" + "\n".join(rows) + "\n"
    quiz = convert(sheet.encode(), "sheet.csv").quiz
    assert quiz is not None
    return {(q.text.get("en"), q.options[0].text.get("en")): q.id for q in quiz.questions}


def test_a_csv_without_ids_keeps_each_questions_id_when_rows_move_or_are_added() -> None:
    # Sheets repeat a stem ("Which is true?") with other options: its copies were told apart
    # by their order (q-x, q-x-2), so a row inserted or moved above gave a learner's card
    # and progress to another question.
    rows = ["Which is true?,GPipe splits layers,ZeRO splits layers,A",
            "What does ZeRO shard?,optimizer state,layers,A",
            "Which is true?,1F1B bounds activations,GPipe has no bubble,A"]
    before = _ids(rows)
    after = _ids([rows[2], "A new first question?,yes,no,A", rows[1], rows[0]])
    assert all(after[key] == qid for key, qid in before.items())
    assert len(set(after.values())) == 4
    # a text asked once keeps the id it always had (from its text alone), so quizzes
    # installed before keep theirs
    assert before[("What does ZeRO shard?", "optimizer state")] == (
        "q-" + hashlib.sha256(b"What does ZeRO shard?").hexdigest()[:10])


def test_a_csv_quiz_is_titled_by_its_file_else_readably_by_its_name() -> None:
    # A sheet uploaded as my_quiz_v2.csv was titled 'my quiz v2' in the catalogue; a title
    # the file gives (a '#' line above the header, a title column) was not read at all.
    rows = "question,option1,option2,correct\nWhich splits layers?,PP,DP,A\n"

    def title(data: str, name: str = "my_quiz_v2.csv", caption: str | None = None) -> str:
        quiz = convert(data.encode(), name, title=caption).quiz
        assert quiz is not None
        return quiz.title.get("en")

    assert title(rows) == "My quiz v2"
    assert title(rows, "week-3__GPipe-basics.csv") == "Week 3 GPipe basics"
    assert title("# Week 3: Pipeline parallelism,,,\n" + rows) == "Week 3: Pipeline parallelism"
    assert title("sep=,\n# Title: Week 3\n" + rows) == "Week 3"
    assert title(rows.replace("correct", "correct,title").replace(
        ",A\n", ",A,Pipelines\n")) == "Pipelines"
    # a caption under the upload names it over everything the file says
    assert title("# Week 3\n" + rows, caption="  Pipelines,\u202e week 3 \nsecond line") == (
        "Pipelines, week 3")
    assert title("# Week 3\n" + rows, "week3.txt") == "Week 3"  # a sheet saved as .txt
    # a problem is still told at its own line, the title line counted
    result = convert(("# Week 3\n" + rows.replace(",A\n", ",Z\n")).encode(), "w.csv")
    assert result.problems[0].startswith("w.csv:3: correct is 'Z'")
