"""`quizbot` with no command: the help, and how a learner starts."""

from __future__ import annotations


def test_bare_quizbot_shows_what_it_can_do_and_how_to_start(capsys) -> None:
    """`quizbot` alone said only 'the following arguments are required: command'."""
    from adapters.cli.main import main

    assert main([]) == 2
    out = " ".join(capsys.readouterr().out.split())  # as wrapped to any width
    assert "play take the quiz in this terminal (no token needed)" in out
    assert "To take the quiz in this terminal: quizbot play (every quiz: quizbot list)." in out


def test_a_missing_subcommand_is_named_as_usage_shows_it(capsys) -> None:
    """`quizbot telegram` said 'required: telegram_command', an internal name."""
    import pytest

    from adapters.cli.main import main

    for argv, wanted in ((["telegram"], "{set-webhook}"), (["quizzes"], "{list,add,remove}")):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert f"the following arguments are required: {wanted}" in err
        assert "_command" not in err
