"""A data folder that cannot be created (a service account's missing HOME, a file where a
folder should be): every command that would use it says so in one line, never a
traceback, and names what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli.main import main


@pytest.mark.parametrize("argv", [["list"], ["stats"],
                                  ["export-quiz", "parallelism", "--format", "gift"]])
def test_a_data_folder_that_cannot_be_made_is_one_line(
        argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "home").write_text("a file, not a folder")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / "share"))

    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "cannot create your data folder" in err and "--config PATH" in err
