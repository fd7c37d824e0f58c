"""`quizbot stats` prints what learners and chats wrote: never as terminal commands."""

from __future__ import annotations

from pathlib import Path

from bot.domain.report_rows import GroupRow, OpenReport, Overview
from bot.present.reporting import format_overview


def test_stats_shows_a_title_or_note_with_terminal_escapes_as_text() -> None:
    view = Overview(users=2, sessions={"finished": 1}, answers=3, questions=[],
                    groups=[GroupRow("telegram", "-100", "Club\x1b]0;owned\x07", 2)],
                    reports=[OpenReport("parallelism", "q1", "wrong",
                                        "see \x1b[2J\x1b[31mred\x9b1m\x00", 1_800_000_000)])
    text = format_overview(view, None)
    assert not any((ch < " " and ch != "\n") or "\x7f" <= ch <= "\x9f" for ch in text)
    assert "  Club\ufffd]0;owned\ufffd  telegram:-100  2 learners" in text.splitlines()
    assert "“see \ufffd[2J\ufffd[31mred\ufffd1m\ufffd”" in text


def test_stats_names_a_question_by_its_number_and_text_not_its_id() -> None:
    # An imported quiz's questions are ids like q-4dd879afd9: `quizbot stats` showed those.
    from bot.domain.quiz import load_quizzes
    from bot.domain.report_rows import QuestionAccuracy

    quizzes = load_quizzes([Path(__file__).parents[2] / "fixtures" / "content"
                            / "minimal.yaml"])
    quiz = quizzes["tiny"]
    second = quiz.questions[1]
    view = Overview(users=1, sessions={"finished": 1}, answers=2, questions=[
            QuestionAccuracy("tiny", second.id, 2, 1, 0, 1),
        QuestionAccuracy("gone", "q-4dd879afd9", 1, 0, None, 0)])
    lines = format_overview(view, quizzes).splitlines()
    text = " ".join(second.text.get("en").split())
    shown = "Q2 " + (text if len(text) <= 40 else text[:39] + "…")
    assert any(line.startswith(f"tiny  {shown}") for line in lines), lines
    assert not any(line.startswith(f"tiny  {second.id} ") for line in lines)
    assert any(line.startswith("gone  q-4dd879afd9") for line in lines)  # not loaded: its id
