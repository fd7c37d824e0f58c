"""`quizbot stats` prints what learners and chats wrote: never as terminal commands."""

from __future__ import annotations

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
