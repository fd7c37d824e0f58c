"""`quizbot` with no command: the help, and how a learner starts."""

from __future__ import annotations


def test_bare_quizbot_shows_what_it_can_do_and_how_to_start(capsys) -> None:
    """`quizbot` alone said only 'the following arguments are required: command'."""
    from adapters.cli.main import main

    assert main([]) == 2
    out = " ".join(capsys.readouterr().out.split())  # as wrapped to any width
    assert "play take the quiz in this terminal (no token needed)" in out
    assert "To take the quiz in this terminal: quizbot play (every quiz: quizbot list)." in out
