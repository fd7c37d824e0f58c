"""`quizbot play` meeting a full disk mid-quiz, a second terminal on the same learner, and a
narrow screen."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import yaml

from bot.domain.quiz import Quiz
from tests.conftest import user_db
from tests.e2e.test_terminal import Player, right_letter, wrong_letter
from tests.mounts import fill, tmpfs

SAVE_FAILED = "Your answer could not be saved"


def answers(db: Path) -> list[tuple[int, int, int]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT session_id, position, chosen FROM answers ORDER BY position").fetchall()
    finally:
        conn.close()


async def test_full_disk_mid_quiz_is_not_acknowledged_and_recovers(
        tmp_path: Path, quizzes: dict[str, Quiz]):
    quiz = quizzes["parallelism"]
    mnt = tmp_path / "small"
    with tmpfs(mnt, size="1m"):
        config = tmp_path / "quizbot.yaml"
        config.write_text(yaml.safe_dump({"storage": {"url": f"sqlite:///{mnt / 'q.db'}"}}))
        player = await Player.start(tmp_path, "--config", str(config))
        try:
            screen = await player.until_prompt()
            await player.send(right_letter(quiz, screen, "en"))
            screen = await player.until_prompt()
            assert "✅ Correct!" in screen and "Question 2/8" in screen
            filler = fill(mnt)
            await player.send(right_letter(quiz, screen, "en"))
            refused = await player.until_prompt()
            assert SAVE_FAILED in refused and "Question 2/8" in refused  # asked again
            assert "Correct!" not in refused and "Not quite" not in refused
            assert "Traceback" not in refused and player.proc.returncode is None
            filler.unlink()  # space returns
            await player.send(right_letter(quiz, refused, "en"))
            screen = await player.until_prompt()
            assert "✅ Correct!" in screen and "Question 3/8" in screen
            assert await player.finish() == 0
        finally:
            if player.proc.returncode is None:
                player.proc.kill()
                await player.proc.wait()
        assert [p for _, p, _ in answers(mnt / "q.db")] == [0, 1]  # nothing saved was lost


async def test_two_terminals_one_learner_show_only_what_the_database_kept(
        tmp_path: Path, quizzes: dict[str, Quiz]):
    quiz = quizzes["parallelism"]
    first = await Player.start(tmp_path)
    first_screen = await first.until_prompt()
    second = await Player.start(tmp_path)
    second_screen = await second.until_prompt()
    assert "Question 1/8" in first_screen and "Question 1/8" in second_screen
    try:
        kept = wrong_letter(quiz, first_screen, "en")
        await first.send(kept)
        assert "❌ Not quite." in await first.until_prompt()
        # The second terminal still shows question 1 and taps the right answer.
        await second.send(right_letter(quiz, second_screen, "en"))
        late = await second.until_prompt()
        assert "already answered in another window" in late
        assert "✅ Correct!" not in late  # the database kept the first terminal's answer
        assert "❌ Not quite." in late and f"Your answer: {kept}" in late
        assert "Question 2/8" in late
        assert await first.finish() == 0 and await second.finish() == 0
    finally:
        for player in (first, second):
            if player.proc.returncode is None:
                player.proc.kill()
                await player.proc.wait()
    stored = answers(user_db())
    assert len(stored) == 1 and stored[0][1] == 0


async def test_text_wraps_at_word_boundaries_to_the_screen_width(
        tmp_path: Path, quizzes: dict[str, Quiz], monkeypatch):
    quiz = quizzes["parallelism"]
    monkeypatch.setenv("COLUMNS", "40")
    player = await Player.start(tmp_path)
    await player.until_prompt()
    await player.send("A")
    await player.until_prompt()
    assert await player.finish() == 0
    lines = [ln for ln in player.transcript.splitlines()
             if not re.match(r"\d{4}-\d\d-\d\d ", ln)]  # log lines on stderr
    too_long = [ln for ln in lines if len(ln) > 40 and " " in ln.strip()
                and not ln.endswith("or q to quit: ")]
    assert not too_long, too_long
    # No word was cut: the question's words all appear whole, in order, across lines.
    question = quiz.questions[0].text.get("en")
    assert " ".join(player.transcript.split()).count(" ".join(question.split())) >= 1
    urls = [r.url for r in quiz.questions[0].references]
    assert urls and all(re.search(rf"(^|\s){re.escape(u)}(\s|$)", player.transcript, re.M)
                        for u in urls)
