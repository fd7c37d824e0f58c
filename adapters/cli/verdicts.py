"""The passes of the content check that `quizbot play`, `list`, `stats` and `export` keep in
the user's cache folder (platformdirs: `~/.cache/quizbot/passes/` on Linux), so a start does
not check the rendered sizes and draw the same computed questions 200 times again: about
1.5 s of CPU each start. The YAML is still read and checked field by field every time.

The size check and the sampling are pure functions of the file's text, its shared topics,
the check and the code. The loader keys a pass by the file, its text and topics
(`bot.domain.quiz.load.Passes`); this store adds a fingerprint of the installed `bot` package
(every source and locale file), so an edited quiz, an edited check or an upgrade checks
again. Only passes are kept: a broken quiz is refused with the same lines at every start.
`validate`, `import`, `check` and `run` never read it; they always check in full.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import platformdirs

import bot

APP = "quizbot"
_CODE = (".py", ".yaml", ".po")


def fingerprint(package: Path) -> str:
    """A hash of every source and locale file of `package` (its shipped quizzes aside:
    their text is in the key already)."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package)
        if path.suffix in _CODE and rel.parts[0] != "_content" and "__pycache__" not in rel.parts:
            digest.update(f"{rel}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


class CachedPasses:
    """One empty file per pass, in a folder per code fingerprint: the first pass noted by
    new code (an upgrade, an edit) removes the folders of other code, so the cache holds
    one version's few files."""

    def __init__(self, root: Path, code: str) -> None:
        self.root, self.folder = root, root / code[:32]

    def _file(self, key: str) -> Path:
        return self.folder / hashlib.sha256(key.encode()).hexdigest()

    def passed(self, key: str) -> bool:
        return self._file(key).is_file()

    def note_pass(self, key: str) -> None:
        try:  # a read-only or full cache folder only costs time
            if not self.folder.is_dir():
                for old in self.root.glob("*"):
                    if old.is_dir():
                        shutil.rmtree(old, ignore_errors=True)
                    else:
                        old.unlink(missing_ok=True)
                self.folder.mkdir(parents=True, exist_ok=True)
            self._file(key).touch()
        except OSError:
            pass


def user_passes() -> CachedPasses:
    """The passes kept in the user's cache folder for the installed code."""
    root = Path(platformdirs.user_cache_dir(APP, appauthor=False)) / "passes"
    return CachedPasses(root, fingerprint(Path(bot.__file__).resolve().parent))
