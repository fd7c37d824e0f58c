"""`quizbot play --quiz parallelism-numbers` as a real process: the numbers drawn for an
attempt survive a SIGKILL and restart, another learner draws others, and a drawn schedule
is shown as a text timeline."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import draw
from bot.present.i18n import strip_isolates
from tests.conftest import user_db
from tests.e2e.test_terminal import HEADER, OPTION, Player, db_answers

QUIZ = "parallelism-numbers"


def seed_of(user: str = "tester") -> int:
    db = sqlite3.connect(user_db())
    try:
        (seed,) = db.execute("SELECT seed FROM sessions WHERE user_id = ? AND status = 'active'",
                             (user,)).fetchone()
        return int(seed)
    finally:
        db.close()


def asked(screen: str) -> str:
    """The question being asked: from its header to the prompt."""
    headers = list(HEADER.finditer(screen))
    return screen[headers[-1].start():]


def right_letter(quiz: Quiz, screen: str, seed: int) -> str:
    question = asked(screen)
    options = dict((letter, text.strip()) for letter, text in OPTION.findall(question))
    for q in quiz.questions:
        d = draw(q, seed)
        if strip_isolates(d.text.get("en")) in question:
            key = d.options[d.correct].text.get("en")
            return next(letter for letter, text in options.items() if text == key)
    raise AssertionError(f"no drawn question on screen: {question!r}")


async def test_killed_and_restarted_shows_the_same_numbers(tmp_path: Path,
                                                           quizzes: dict[str, Quiz]) -> None:
    quiz = quizzes[QUIZ]
    player = await Player.start(tmp_path, "--quiz", QUIZ)
    screen = await player.until_prompt()
    seed = seed_of()
    first = asked(screen)
    await player.send(right_letter(quiz, screen, seed))
    screen = await player.until_prompt()
    # the answer's explanation carries the drawn GPipe schedule as a timeline, p rows
    p = dict(draw(quiz.questions[0], seed).drawn)["p"]
    timeline = [line for line in screen.splitlines() if line.startswith("GPU")]
    assert len(timeline) == p and timeline[-1].startswith(f"GPU{p} ")
    await player.send(right_letter(quiz, screen, seed))
    before = asked(await player.until_prompt())
    assert "Question 3/14" in before
    player.proc.send_signal(signal.SIGKILL)
    assert await player.proc.wait() == -signal.SIGKILL
    assert [pos for _, pos in db_answers()] == [0, 1]

    again = await Player.start(tmp_path, "--quiz", QUIZ)
    screen = await again.until_prompt()
    assert "Picking up where you left off." in screen
    # the same numbers and the same option order
    assert asked(screen).replace("\nPicking up where you left off.\n", "") == before
    assert seed_of() == seed
    await again.send("q")
    assert await again.finish() == 0

    other = await Player.start(tmp_path, "--quiz", QUIZ, "--user", "someone-else")
    theirs = asked(await other.until_prompt())
    assert theirs.splitlines()[0] == first.splitlines()[0]  # "Question 1/14 ..."
    assert theirs != first  # their own numbers
    await other.send("q")
    assert await other.finish() == 0


async def test_the_prompt_takes_a_letter_or_a_number(tmp_path: Path,
                                                     quizzes: dict[str, Quiz]) -> None:
    from bot.domain import numeric
    from bot.domain.quiz.computed import drawn_values

    quiz = quizzes[QUIZ]
    player = await Player.start(tmp_path, "--quiz", QUIZ)
    screen = await player.until_prompt()
    assert "or a number like" in screen.splitlines()[-1]
    seed = seed_of()
    question = quiz.questions[0]
    assert question.computed is not None
    unit = question.computed.unit
    await player.send("no idea")  # not a number: asked again with an example
    screen = await player.until_prompt()
    values = [float(v) for v in drawn_values(question, seed)[1]]
    assert f"Type one like {numeric.example(unit, values)}" in screen
    right = float(drawn_values(question, seed)[1][0])
    await player.send(numeric.shown(right, unit))
    screen = await player.until_prompt()
    shown = draw(question, seed).options[0].text.get("en")  # as the options write it
    assert "Correct!" in screen and f"You typed: {shown}" in screen
    await player.send(right_letter(quiz, screen, seed))  # a letter still answers
    await player.until_prompt()
    await player.send("q")
    assert await player.finish() == 0
    assert [pos for _, pos in db_answers()] == [0, 1]


async def test_a_blank_line_or_a_word_at_a_computed_prompt_says_what_to_type(
        tmp_path: Path) -> None:
    """A terminal has nothing to tap: a word is refused with an example and 'choose an
    option', an empty line (Enter by mistake) asks for a letter again, and neither counts."""
    player = await Player.start(tmp_path, "--quiz", QUIZ)
    await player.until_prompt()
    await player.send("no idea")
    screen = await player.until_prompt()
    assert "or choose an option" in screen and "tap" not in screen.lower()
    await player.send("")
    screen = await player.until_prompt()
    assert "I can't read that as a number" not in screen
    assert "Please type one of A/B/C/D" in screen and "Question 1/14" not in screen
    await player.send("q")
    assert await player.finish() == 0
    assert db_answers() == []
