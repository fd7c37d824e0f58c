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


def test_set_webhook_without_what_it_needs_says_what_to_set(
        tmp_path, monkeypatch, capsys) -> None:
    """`quizbot telegram set-webhook` said only 'TELEGRAM_BOT_TOKEN is not set'."""
    from adapters.cli.main import main

    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    monkeypatch.delenv("TELEGRAM_WEBHOOK_SECRET", raising=False)
    assert main(["telegram", "set-webhook", "--config", str(config)]) == 1
    assert capsys.readouterr().err == (
        "quizbot: TELEGRAM_BOT_TOKEN is not set: export the token @BotFather gave you, as for "
        "quizbot run, and run set-webhook again\n")
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:abc")
    assert main(["telegram", "set-webhook", "--config", str(config)]) == 1
    assert capsys.readouterr().err.endswith(
        "required to register a webhook: set both as docs/configuration.md shows (Telegram "
        "webhook mode)\n")


def test_play_and_run_help_say_what_the_docs_say(capsys) -> None:
    """`play --help` said --quiz defaults to 'the first quiz' (it is quiz.default, else the
    easiest: docs/learners.md), and `run --help` said nothing of --config or the tokens."""
    import pytest

    from adapters.cli.main import main

    for argv in (["play", "--help"], ["run", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
    out = " ".join(capsys.readouterr().out.split())
    assert "the first quiz" not in out
    assert "(default: the config's quiz.default, else the easiest quiz)" in out
    assert ("config file (start from deploy/config.example.yaml; tokens come from "
            "TELEGRAM_BOT_TOKEN and DISCORD_BOT_TOKEN)") in out


def test_each_export_format_says_what_it_is_for(capsys) -> None:
    """`export --help` and `export-quiz --help` listed {csv,json} and {gift,moodle-xml,csv}
    with no word on which to pick."""
    import pytest

    from adapters.cli.main import main

    for argv in (["export", "--help"], ["export-quiz", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
    out = " ".join(capsys.readouterr().out.split())
    assert "csv: a row per learner and question, for a spreadsheet" in out
    assert "json: learners and per-question accuracy, for a script" in out
    assert "gift or moodle-xml: for Moodle's question bank (Import)" in out
