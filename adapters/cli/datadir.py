"""Where `quizbot` keeps a learner's progress when no `--config` is given: one database in
the user's data folder (platformdirs: `~/.local/share/quizbot/` on Linux, `~/Library/
Application Support/quizbot/` on macOS, `%LOCALAPPDATA%\\quizbot\\` on Windows), so
`quizbot play` continues the same progress from any folder.

play, list, `quizzes` and the operations (stats, export, check, backup, restore) all
resolve it here, so they agree about which database is the learner's. With `--config`,
`storage.url` decides, as for `quizbot run`.

Before this, the default was `data/quizbot.db` in the current folder. Such a file is never
ignored or moved silently: while the data folder has no database, it is used, with one line
saying how to move it.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
from pathlib import Path

import platformdirs

from bot.app.config import Config, load_config
from bot.domain.errors import StoreUnavailable

APP = "quizbot"
DB_NAME = "quizbot.db"
LEGACY = Path("data") / DB_NAME  # the old default, relative to the current folder


def user_db() -> Path:
    """The learner's database in their data folder (the folder may not exist yet)."""
    return Path(platformdirs.user_data_dir(APP, appauthor=False)) / DB_NAME


def default_db() -> tuple[Path, str | None]:
    """The database to use without --config, and a note to print when it is the old
    `data/quizbot.db` of the current folder."""
    new = user_db()
    if new.exists() or not LEGACY.is_file():
        return new, None
    # `quizbot backup` copies it consistently (and refuses to overwrite); from then on the
    # data folder has a database and is used, and this folder's file stays as it was.
    move = shlex.join(["quizbot", "backup", str(new)])
    return LEGACY.absolute(), (
        f"quizbot: using {LEGACY} in this folder (where older versions kept progress); "
        f"to continue it from any folder, run here once: {move}")


def load(path: Path | None) -> Config:
    """The config of a command that works on the learner's progress: `path`'s, or without
    one the defaults with the database resolved by `default_db` (its note on stderr)."""
    config = load_config(path)
    if path is not None:
        return config
    db, note = default_db()
    if note:
        print(note, file=sys.stderr)
    folder = user_db().parent
    try:
        folder.mkdir(parents=True, exist_ok=True)  # also where the note's backup goes
    except OSError as exc:  # a HOME that is not there or not this user's (a service account)
        raise StoreUnavailable(
            f"cannot create your data folder {folder} ({exc.strerror or exc}); give "
            "--config PATH with a storage.url you can write, or point XDG_DATA_HOME at a "
            "folder you can write") from None
    return dataclasses.replace(config, storage_url=f"sqlite:///{db.absolute()}")
