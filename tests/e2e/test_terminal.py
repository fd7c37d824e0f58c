"""`quizbot play` as a learner runs it: a real process, piped input, a real SQLite file."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import signal
import sqlite3
import sys
from pathlib import Path

import pytest

from bot.domain.quiz import Quiz
from bot.domain.quiz.model import LEVELS
from bot.present.i18n import strip_isolates
from tests.conftest import user_db

ROOT = Path(__file__).resolve().parents[2]
PROMPT = re.compile(r"(or q to quit: |باہر نکلنے کے لیے q: |\[y/N\] )$")
OPTION = re.compile(r"^([A-J])\) (.*)$", re.M)
TIMEOUT = 20


def _ctrl_c_as_in_a_terminal() -> None:
    """In the child: Ctrl-C (SIGINT) as a terminal delivers it. A suite started in the
    background of a non-interactive shell (CI scripts) inherits SIGINT ignored, and then
    the player would never see the Ctrl-C a test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Player:
    """Drives `quizbot play` over pipes, reading until it asks for input."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.transcript = ""
        # A read may end inside a multi-byte character (Urdu is 2 bytes a letter); a byte
        # that is not UTF-8 (a user name given that way, printed back as given) reads as U+FFFD.
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    @classmethod
    async def start(cls, cwd: Path, *args: str) -> Player:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "adapters.cli", "play", "--user", "tester", *args, cwd=cwd,
            env=env, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, preexec_fn=_ctrl_c_as_in_a_terminal)
        return cls(proc)

    async def until_prompt(self) -> str:
        """Everything printed since the last input, up to the next prompt."""
        assert self.proc.stdout is not None
        chunk = ""
        async with asyncio.timeout(TIMEOUT):
            while not PROMPT.search(strip_isolates(chunk)):
                data = await self.proc.stdout.read(4096)
                if not data:
                    break
                chunk += self.decoder.decode(data)
        self.transcript += chunk
        return strip_isolates(chunk)

    async def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{line}\n".encode())
        await self.proc.stdin.drain()

    async def finish(self) -> int:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        async with asyncio.timeout(TIMEOUT):
            rest = self.decoder.decode(await self.proc.stdout.read(), final=True)
            self.transcript += strip_isolates(rest)
            return await self.proc.wait()


HEADER = re.compile(r"^(Question|Review|Spaced review|سوال|دہرائی) \d+/\d+", re.M)


def right_letter(quiz: Quiz, screen: str, lang: str) -> str:
    """Read the options off the screen and pick the one the quiz file says is right."""
    asked = list(HEADER.finditer(screen))
    screen = screen[asked[-1].start():] if asked else screen  # the question being asked
    options = dict((letter, text.strip()) for letter, text in OPTION.findall(screen))
    question = next(q for q in quiz.questions if strip_isolates(q.text.get(lang)) in screen)
    right = question.options[question.correct].text.get(lang)
    return next(letter for letter, text in options.items() if text == right)


def wrong_letter(quiz: Quiz, screen: str, lang: str) -> str:
    return "B" if right_letter(quiz, screen, lang) == "A" else "A"


def db_answers() -> list[tuple[int, int]]:
    db = sqlite3.connect(user_db())
    try:
        return db.execute("SELECT session_id, position FROM answers ORDER BY position").fetchall()
    finally:
        db.close()


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_whole_quiz_with_piped_input(tmp_path: Path, quizzes: dict[str, Quiz], lang: str):
    quiz = quizzes["parallelism"]
    player = await Player.start(tmp_path, "--lang", lang)
    screen = await player.until_prompt()
    header = "Question 1/8" if lang == "en" else "سوال 1/8"
    assert header in screen and "A) " in screen and "D) " in screen
    await player.send("maybe")  # not a letter: asked again, nothing recorded
    assert ("Please type one of A/B/C/D" if lang == "en" else "A/B/C/D") in (
        await player.until_prompt())
    right = {0, 1, 3, 4, 6, 7}
    for position in range(8):
        if position:
            screen = await player.until_prompt()
        pick = right_letter if position in right else wrong_letter
        await player.send(pick(quiz, screen, lang))
    end = await player.until_prompt()  # the review offer
    assert ("Finished Model and pipeline parallelism: 6/8" if lang == "en" else "6/8") in end
    await player.send("n")
    assert await player.finish() == 0
    assert len(db_answers()) == 8
    if lang == "ur":
        assert quiz.questions[0].explanation.get("ur")[:40] in player.transcript
        assert "درست جواب" in player.transcript


async def test_review_offered_after_missing(tmp_path: Path, quizzes: dict[str, Quiz]):
    quiz = quizzes["parallelism"]
    player = await Player.start(tmp_path)
    for position in range(8):
        screen = await player.until_prompt()
        await player.send(right_letter(quiz, screen, "en") if position else
                          wrong_letter(quiz, screen, "en"))
    assert "Review the 1 missed question now?" in await player.until_prompt()
    await player.send("y")
    screen = await player.until_prompt()
    assert "Review 1/1" in screen and quiz.questions[0].text.get("en") in screen
    await player.send(right_letter(quiz, screen, "en"))
    assert await player.finish() == 0
    assert "Review finished: 1/1" in player.transcript


async def test_the_summarys_next_step_is_offered_as_the_chats_button_is(
        tmp_path: Path, quizzes: dict[str, Quiz]):
    """The chats end a quiz with a button for its next step (practise the weakest topic, or
    the next quiz); the terminal said 'Next: practise ...' and stopped, with no way to do
    it. Now it asks, after the review offer, and a yes opens that step."""
    quiz, deep = quizzes["parallelism"], quizzes["parallelism-deep"]
    player = await Player.start(tmp_path)
    for _ in range(8):
        screen = await player.until_prompt()
        await player.send(right_letter(quiz, screen, "en"))
    end = await player.until_prompt()
    name = deep.title.get("en")
    assert f"Next on the path: {name}" in end and f"Start {name} now? [y/N]" in end
    await player.send("y")
    screen = await player.until_prompt()
    assert "Question 1/22" in screen and any(q.text.get("en") in " ".join(screen.split())
                                             for q in deep.questions)
    await player.send("q")
    assert await player.finish() == 0
    # 'quizbot play' would open the first quiz again: the hint names the one in play
    assert "To continue, run: quizbot play --user tester --quiz parallelism-deep" in " ".join(
        player.transcript.split())

    player = await Player.start(tmp_path, "--user", "other", "--quiz", "parallelism")
    for _ in range(8):
        screen = await player.until_prompt()
        await player.send(wrong_letter(quiz, screen, "en"))
    assert "Review the 8 missed questions now?" in await player.until_prompt()
    await player.send("n")
    offer = await player.until_prompt()
    said = " ".join(player.transcript.split())
    step = re.search(r"Next: practise (.+), your weakest topic", said)
    assert step is not None and f"Practise {step.group(1)} now? [y/N]" in " ".join(offer.split())
    await player.send("y")
    assert f"Practice: {step.group(1)} 1/" in await player.until_prompt()  # its questions
    await player.send("q")
    assert await player.finish() == 0
    said = " ".join(player.transcript.split())
    assert "To continue, run: quizbot play --user tester --user other --review" in said
    again = await Player.start(tmp_path, "--user", "other", "--review")
    assert f"Practice: {step.group(1)} 1/" in await again.until_prompt()  # picked up
    assert await again.finish() == 0


async def test_quitting_a_review_of_misses_names_the_command_that_resumes_it(
        tmp_path: Path, quizzes: dict[str, Quiz]):
    """The hint after quitting the review of the misses said 'quizbot play', which threw
    the review away and began the quiz again."""
    quiz = quizzes["parallelism"]
    player = await Player.start(tmp_path)
    for position in range(8):
        screen = await player.until_prompt()
        await player.send((wrong_letter if position < 2 else right_letter)(quiz, screen, "en"))
    assert "Review the 2 missed questions now?" in await player.until_prompt()
    await player.send("y")
    screen = await player.until_prompt()
    assert "Review 1/2" in screen
    await player.send(right_letter(quiz, screen, "en"))
    assert "Review 2/2" in await player.until_prompt()
    assert await player.finish() == 0
    command = "quizbot play --user tester --quiz parallelism --review"
    assert f"To continue, run: {command}" in " ".join(player.transcript.split())
    again = await Player.start(tmp_path, "--quiz", "parallelism", "--review")
    screen = await again.until_prompt()
    assert "Review 2/2" in screen and "Picking up where you left off." in screen
    await again.send(right_letter(quiz, screen, "en"))
    assert await again.finish() == 0
    assert "Review finished: 2/2" in again.transcript


async def test_killed_after_three_answers_resumes_at_four(tmp_path: Path,
                                                         quizzes: dict[str, Quiz]):
    quiz = quizzes["parallelism"]
    player = await Player.start(tmp_path)
    for _ in range(3):
        screen = await player.until_prompt()
        await player.send(right_letter(quiz, screen, "en"))
    assert "Question 4/8" in await player.until_prompt()
    player.proc.send_signal(signal.SIGKILL)
    assert await player.proc.wait() == -signal.SIGKILL
    assert [p for _, p in db_answers()] == [0, 1, 2]

    again = await Player.start(tmp_path)
    screen = await again.until_prompt()
    assert "Question 4/8" in screen and "Picking up where you left off." in screen
    for position in range(3, 8):
        if position > 3:
            screen = await again.until_prompt()
        await again.send(right_letter(quiz, screen, "en"))
    assert await again.finish() == 0
    assert "Finished Model and pipeline parallelism: 8/8" in again.transcript
    answers = db_answers()
    assert [p for _, p in answers] == list(range(8)) and len({s for s, _ in answers}) == 1


async def test_end_of_input_saves_and_exits_cleanly(tmp_path: Path, quizzes: dict[str, Quiz]):
    player = await Player.start(tmp_path)
    screen = await player.until_prompt()
    await player.send(right_letter(quizzes["parallelism"], screen, "en"))
    await player.until_prompt()
    assert await player.finish() == 0
    assert "Progress saved. To continue, run: quizbot play --user tester" in player.transcript
    assert len(db_answers()) == 1


async def test_the_command_to_continue_is_never_broken_over_two_rows(tmp_path: Path,
                                                                    monkeypatch):
    """At 70 columns 'Progress saved. To continue, run: quizbot play --user tester --quiz
    parallelism-numbers --lang en' broke inside the command ('... --lang' / 'en'): copied,
    it ran as two commands. The command now gets a row of its own, whole."""
    monkeypatch.setenv("COLUMNS", "70")
    player = await Player.start(tmp_path, "--quiz", "parallelism-numbers", "--lang", "en")
    await player.until_prompt()
    assert await player.finish() == 0
    rows = player.transcript.splitlines()
    command = "quizbot play --user tester --quiz parallelism-numbers --lang en"
    assert rows[-2:] == ["Progress saved. To continue, run:", command], rows[-3:]


async def test_ctrl_c_saves_and_exits_cleanly(tmp_path: Path):
    player = await Player.start(tmp_path)
    await player.until_prompt()
    player.proc.send_signal(signal.SIGINT)
    assert await player.finish() == 0
    assert "Progress saved." in player.transcript and "Traceback" not in player.transcript


def open_files(pid: int) -> set[str]:
    """The paths a running process has open (Linux's /proc), as far as they can be read."""
    out = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):  # closed meanwhile
            out.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
    return out


async def test_ctrl_c_while_it_starts_stops_without_a_traceback(tmp_path: Path):
    """Ctrl-C before the first question (the store still opening: here it waits on another
    program's lock, as it may behind a second terminal or on a slow disk) stops at once with
    the shell's usual 130 and no screenful of Python traceback."""
    first = await Player.start(tmp_path)
    await first.until_prompt()
    assert await first.finish() == 0
    holder = sqlite3.connect(user_db(), isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        # The start waits on the lock for its busy timeout (5 s): on a loaded machine the
        # signal may come only after that, and the start ends saying the database is locked
        # (right, but not this test's case): then once more, at most three times.
        for _ in range(3):
            player = await Player.start(tmp_path)
            async with asyncio.timeout(TIMEOUT):  # until it has the database open (and waits)
                # another process's open files send no event: look until the file is there
                while str(user_db()) not in open_files(player.proc.pid):  # noqa: ASYNC110
                    await asyncio.sleep(0.02)
            player.proc.send_signal(signal.SIGINT)
            code = await player.finish()
            assert "Traceback" not in player.transcript, player.transcript
            if "database is locked" not in player.transcript:
                break
    finally:
        holder.close()
    assert "KeyboardInterrupt" not in player.transcript
    assert code == 130, player.transcript


async def test_a_user_name_that_is_not_utf8_plays_and_saves(tmp_path: Path,
                                                            quizzes: dict[str, Quiz]):
    # `--user` with a byte that is not UTF-8 (a Latin-1 terminal): Python hands it over as a
    # lone surrogate, which SQLite cannot store; the learner is kept with U+FFFD in its place.
    player = await Player.start(tmp_path, "--user", os.fsdecode(b"b\xffd"))
    screen = await player.until_prompt()
    await player.send(right_letter(quizzes["parallelism"], screen, "en"))
    await player.until_prompt()
    assert await player.finish() == 0, player.transcript
    assert "Traceback" not in player.transcript
    # the hint to continue repeats the name as it was typed, bytes and all
    assert "run: quizbot play --user tester --user 'b\ufffdd'" in player.transcript
    db = sqlite3.connect(user_db())
    try:
        assert db.execute("SELECT user_id, display_name FROM users").fetchall() == [
            ("b\ufffdd", "b\ufffdd")]
    finally:
        db.close()


async def test_unknown_quiz_is_a_clear_error(tmp_path: Path):
    player = await Player.start(tmp_path, "--quiz", "nope")
    assert await player.finish() == 1
    assert "There is no quiz called nope." in player.transcript


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_deep_quiz_play_through(tmp_path: Path, quizzes: dict[str, Quiz], lang: str):
    quiz = quizzes["parallelism-deep"]
    total = len(quiz.questions)
    player = await Player.start(tmp_path, "--quiz", "parallelism-deep", "--lang", lang)
    screen = await player.until_prompt()
    assert (f"Question 1/{total}" if lang == "en" else f"سوال 1/{total}") in screen
    for position in range(total):
        if position:
            screen = await player.until_prompt()
        pick = right_letter if position % 3 else wrong_letter  # 0, 3, 6, ... missed
        await player.send(pick(quiz, screen, lang))
    end = await player.until_prompt()  # the review offer
    score = total - len(range(0, total, 3))
    assert f"{score}/{total}" in end
    title = quiz.title.get(lang)
    assert title in end
    await player.send("n")
    assert await player.finish() == 0
    assert len(db_answers()) == total
    # The explanations, with their formulas, reached the learner.
    assert "dX = Σ_i G_i·A_iᵀ" in player.transcript
    assert quiz.questions[-1].explanation.get(lang)[:60] in player.transcript


async def test_play_review_serves_the_due_questions(tmp_path: Path, quizzes: dict[str, Quiz]):
    quiz = quizzes["parallelism"]
    player = await Player.start(tmp_path, "--review")
    assert await player.finish() == 0
    assert "Nothing to review yet" in player.transcript
    # what to do, in a terminal: the chats' /quiz is no command here
    assert "(quizbot play)" in player.transcript and "/quiz" not in player.transcript
    player = await Player.start(tmp_path)
    screen = await player.until_prompt()
    await player.send(wrong_letter(quiz, screen, "en"))
    await player.until_prompt()
    await player.send("q")
    await player.finish()
    db = sqlite3.connect(user_db())
    try:  # a day later, as far as the schedule is concerned
        with db:
            db.execute("UPDATE cards SET due_at = due_at - 86400")
    finally:
        db.close()
    player = await Player.start(tmp_path, "--review")
    screen = await player.until_prompt()
    assert "Spaced review 1/1" in screen
    await player.send(right_letter(quiz, screen, "en"))
    assert await player.finish() == 0
    assert "Correct!" in player.transcript and "Review finished: 1/1" in player.transcript


async def test_list_names_every_quiz_and_play_names_the_list(tmp_path: Path,
                                                             quizzes: dict[str, Quiz]):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli", "list", "--user", "tester", cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(TIMEOUT):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert lines[0] == "parallelism  Model and pipeline parallelism · 8 questions · Introduction"
    levels = dict.fromkeys(LEVELS, 0)
    shown = [line.split()[0] for line in lines]
    assert sorted(shown) == sorted(quizzes)
    for quiz_id in shown:  # easiest level first
        levels[quizzes[quiz_id].level] += 1
    assert [quizzes[q].level for q in shown] == [
        level for level, n in levels.items() for _ in range(n)]
    player = await Player.start(tmp_path)
    screen = await player.until_prompt()
    assert "More quizzes: quizbot list" in screen and "Question 1/8" in screen
    assert await player.finish() == 0


@pytest.mark.parametrize("args", [("--lang", "en"), ("--lang", "ur"),
                                  ("--lang", "ur", "--bidi", "visual")], ids=" ".join)
async def test_list_wraps_to_a_narrow_screen_one_quiz_a_block(tmp_path: Path,
                                                              quizzes: dict[str, Quiz], args):
    """At 40 columns each quiz's line is wrapped at words, its rest indented under it, and
    every row fits (a terminal would cut the line anywhere, mid-word and mid-id)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "40"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli", "list", "--user", "tester", *args, cwd=tmp_path,
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(TIMEOUT):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    rows = [strip_isolates(row).replace("\u200f", "") for row in out.decode().splitlines()]
    assert all(len(row) <= 40 for row in rows), rows
    if "visual" in args:  # right-aligned: the id ends a quiz's first row, indents end the rest
        firsts = [row.split()[-1] for row in rows if not row.endswith("  ")]
    else:
        firsts = [row.split()[0] for row in rows if not row.startswith("  ")]
    assert sorted(firsts) == sorted(quizzes), rows
    assert len(rows) > len(quizzes)  # wrapped, not cut
    words = " ".join(rows).split()
    if "visual" not in args:
        assert words[:4] == (["parallelism", "Model", "and", "pipeline"] if "en" in args
                             else ["parallelism", "ماڈل", "اور", "پائپ"])


async def test_report_a_problem_from_the_terminal(tmp_path: Path) -> None:
    player = await Player.start(tmp_path)
    await player.until_prompt()
    await player.send("A")
    after = await player.until_prompt()  # the explanation, then the next question
    assert "Type ! at the next prompt to report it" in after
    for line in ("!", "1", "  B is also right  ", "q"):
        await player.send(line)
    await player.finish()
    # asked at question 2's prompt, about question 1: which one is said
    assert "About question 1: What core problem do model" in player.transcript
    assert "What is wrong with this question?" in player.transcript
    assert "Thanks! Your report is stored" in player.transcript
    db = sqlite3.connect(user_db())
    try:
        rows = db.execute("SELECT platform, user_id, reason, note, position FROM problem_reports "
                          "r JOIN answers a ON a.question_id = r.question_id").fetchall()
    finally:
        db.close()
    assert rows == [("terminal", "tester", "wrong", "B is also right", 0)]


async def test_the_last_question_can_be_reported_too(tmp_path: Path,
                                                     quizzes: dict[str, Quiz]) -> None:
    """The last question had no 'Type ! ...' hint and no prompt that took '!': its summary
    came next. Now the hint is under its explanation and the offer after it takes '!'."""
    quiz = quizzes["parallelism"]
    player = await Player.start(tmp_path, "--quiz", "parallelism")
    for _ in range(8):
        screen = await player.until_prompt()
        await player.send(wrong_letter(quiz, screen, "en"))
    end = await player.until_prompt()
    last = quiz.questions[-1].text.get("en")
    explained, summary = end.split("Finished Model and pipeline parallelism")
    assert "Type ! at the next prompt to report it" in explained and "[y/N]" in summary
    for line in ("!", "2", "the f and g operators need a picture"):
        await player.send(line)
    again = await player.until_prompt()
    assert f"About question 8: {last}" in " ".join(player.transcript.split())
    assert "Thanks! Your report is stored" in again and "Review the 8 missed" in again
    await player.send("n")
    await player.send("n")
    assert await player.finish() == 0
    db = sqlite3.connect(user_db())
    try:
        rows = db.execute("SELECT reason, note, question_id FROM problem_reports").fetchall()
    finally:
        db.close()
    assert rows == [("unclear", "the f and g operators need a picture", quiz.questions[-1].id)]

