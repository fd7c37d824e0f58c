"""Quizzes admins install (an upload in chat, `quizbot quizzes add`): kept in the database,
served beside the shipped files by every process, never over them.

The database is the truth: each install or removal adds a row (`installed_quizzes`), and
every process compares the newest version with its own every POLL_SECONDS, a read of one
index entry, so an idle bot never writes and a new, updated or removed quiz is served
everywhere within a minute. A version's pictures are written once into a private folder of
this process (they are read from files when sent, with the usual checks), which is dropped
on close; the quizzes themselves are loaded with the same loader as the files.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath

from bot.domain.errors import (
    ContentError,
    NotAdmin,
    NothingInstalled,
    NotInstalled,
    RemoveWhich,
    ShippedQuiz,
    ShippedQuizKept,
    UploadRefused,
    UploadTooBig,
)
from bot.domain.quiz import Quiz, default_content_dir, load_file
from bot.domain.quiz.formats.to_yaml import quiz_id_for
from bot.domain.quiz.topics import TOPICS_FILE
from bot.domain.results import Actor, InstallOutcome
from bot.features.importing import Imported, convert, with_shared_topics
from bot.features.library import Library
from bot.present.limits import check_rendered_sizes, listing, named_quizzes
from bot.store.commands.quizzes_sql import (
    InstalledRow,
    install_quiz,
    installed_quizzes,
    installed_version,
    remove_quiz,
)
from bot.store.protocol import Store

log = logging.getLogger(__name__)

POLL_SECONDS = 30.0  # a change reaches every process within two polls (< 60 s)
MAX_UPLOAD_BYTES = 512 * 1024


class Installed:
    """The installed quizzes of one process, kept in step with the database."""

    def __init__(self, library: Library, store: Store, *, clock: Callable[[], float]) -> None:
        self.library, self.store, self.clock = library, store, clock
        self.version = -1  # none read yet
        self._folder: Path | None = None  # pictures of installed quizzes, this process's
        self._lock = asyncio.Lock()

    # --- keeping in step ------------------------------------------------------------------

    async def refresh(self) -> bool:
        """Serve what the database holds if its version moved; True when it did. Idle, this
        is one read."""
        async with self._lock:
            version = await self.store.read(installed_version)
            if version == self.version:
                return False
            rows = await self.store.read(installed_quizzes)
            self.library.set_installed(self._load(rows))
            self.version = version
            return True

    def _load(self, rows: list[InstalledRow]) -> dict[str, Quiz]:
        return load_installed(rows, self._root())

    def _root(self) -> Path:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="quizbot-installed-"))
        return self._folder

    async def listed(self) -> list[tuple[InstalledRow, Quiz | None]]:
        """Every installed quiz's newest version, with the quiz as served (None: it does not
        load any more)."""
        rows = await self.store.read(installed_quizzes)
        return [(row, self.library.quizzes.get(row.quiz_id)) for row in rows]

    def close(self) -> None:
        """Drop this process's copies of the pictures."""
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    # --- admins' actions ------------------------------------------------------------------

    def admit(self, actor: Actor, size: int) -> None:
        """Before a platform download: NotAdmin or UploadTooBig, so nobody else's file and
        no oversized one is fetched at all."""
        if not self.library.is_admin(actor):
            raise NotAdmin()
        if size > MAX_UPLOAD_BYTES:
            raise UploadTooBig(size=round(size / 1024), limit=MAX_UPLOAD_BYTES // 1024)

    async def install(self, actor: Actor, data: bytes, name: str,
                      title: str | None = None) -> InstallOutcome:
        """Admin only: check the file as `quizbot validate` does and install it (a new
        version of the same id replaces the old one; learners' progress is kept by question
        id), titled `title` (the upload's caption) if given. UploadTooBig, UploadRefused or
        ShippedQuiz say why not."""
        self.admit(actor, len(data))
        return await self.add(data, name, by=f"{actor.platform}:{actor.user_id}", title=title)

    async def add(self, data: bytes, name: str, *, by: str, quiz_id: str | None = None,
                  title: str | None = None, pictures: Mapping[str, bytes] | None = None
                  ) -> InstallOutcome:
        """Install without the admin check (the command line's `quizbot quizzes add`, with
        the `pictures` a YAML quiz names, read from beside it)."""
        if len(data) > MAX_UPLOAD_BYTES:
            raise UploadTooBig(size=round(len(data) / 1024), limit=MAX_UPLOAD_BYTES // 1024)
        name = PurePosixPath(name).name
        # the version installed now (if any): its unchanged questions keep their ids
        before = self.library.quizzes.get(quiz_id or quiz_id_for(name))
        if before is not None and self.library.is_shipped(before.id):
            before = None
        result = await asyncio.to_thread(convert, data, name, quiz_id=quiz_id, before=before,
                                         title=title, pictures=pictures)
        if not result.ok or result.quiz is None:
            raise UploadRefused(problems=listing(result.problems),
                                every=tuple(result.problems))
        quiz = result.quiz
        if self.library.is_shipped(quiz.id):
            raise ShippedQuiz(quiz=quiz.id)
        prior = self.library.quizzes.get(quiz.id)  # the version this one replaces, if any
        version, new = await self.store.write(install_quiz, quiz.id, result.yaml,
                                              _images_json(result), by, self.clock())
        log.info("%s quiz %s (%d questions) as version %d, by %s",
                 "installed" if new else "unchanged:", quiz.id, len(quiz.questions), version, by)
        await self.refresh()
        ids, was = {q.id for q in quiz.questions}, {q.id for q in prior.questions} \
            if prior is not None else set()
        return InstallOutcome(quiz.id, quiz.title.get(quiz.languages[0]),
                              len(quiz.questions), version, tuple(result.warnings),
                              unchanged=not new,
                              before=prior.title.get(prior.languages[0]) if prior else None,
                              kept=len(ids & was), added=len(ids - was), removed=len(was - ids))

    async def remove(self, actor: Actor, quiz_id: str) -> str:
        """Admin only: stop serving an installed quiz (learners' history stays); its title."""
        if not self.library.is_admin(actor):
            raise NotAdmin()
        return await self.take_out(quiz_id, by=f"{actor.platform}:{actor.user_id}",
                                   lang=await self.library.language(actor))

    async def take_out(self, quiz_id: str, *, by: str, lang: str = "en") -> str:
        """Remove without the admin check (`quizbot quizzes remove`); the quiz's title."""
        if self.library.is_shipped(quiz_id):
            raise ShippedQuizKept(quiz=quiz_id)
        await self.refresh()
        quiz = self.library.quizzes.get(quiz_id)
        title = quiz.title.get(lang) if quiz else quiz_id
        if not await self.store.write(remove_quiz, quiz_id, by, self.clock()):
            served = self.library.quizzes  # an uploaded quiz's title leads, its id beside it
            ids = named_quizzes(lang, ((r.quiz_id, served[r.quiz_id].title.get(lang)
                                        if r.quiz_id in served else r.quiz_id)
                                       for r in await self.store.read(installed_quizzes)))
            if not ids:
                raise NothingInstalled()
            if not quiz_id:
                raise RemoveWhich(ids=ids)
            raise NotInstalled(quiz=quiz_id, ids=ids)
        log.info("removed installed quiz %s, by %s", quiz_id, by)
        await self.refresh()
        return title


def load_installed(rows: list[InstalledRow], root: Path) -> dict[str, Quiz]:
    """The installed quizzes of `rows`, each written under `root` (a folder per version)
    and loaded as the files are; one that no longer loads is logged and left out."""
    out: dict[str, Quiz] = {}
    for row in rows:
        folder = root / f"{row.version}"
        path = folder / f"{row.quiz_id}.yaml"
        try:
            if not path.exists():
                _materialize(folder, path, row)
            out[row.quiz_id] = load_file(path, display=f"installed:{row.quiz_id}",
                                         check=check_rendered_sizes)
        except (ContentError, OSError, ValueError) as exc:
            log.error("installed quiz %s (version %d) no longer loads, not served: %s",
                      row.quiz_id, row.version, exc)
    return out


def _images_json(result: Imported) -> str:
    return json.dumps({k: base64.b64encode(v).decode() for k, v in result.images.items()})


def _materialize(folder: Path, path: Path, row: InstalledRow) -> None:
    """Write a version's file and pictures into `folder` (the loader then checks them as
    it checks any picture: inside the folder, no symlink, size, magic bytes)."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        images = json.loads(row.images or "{}")
    except json.JSONDecodeError as exc:
        raise ValueError(f"its pictures are not JSON: {exc}") from None
    for rel, packed in images.items():
        parts = PurePosixPath(rel).parts
        if not parts or PurePosixPath(rel).is_absolute() or ".." in parts:
            raise ValueError(f"picture path {rel!r} leaves its folder")
        target = folder.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            target.write_bytes(base64.b64decode(packed, validate=True))
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"picture {rel!r} is not base64: {exc}") from None
    with_shared_topics(folder, default_content_dir() / TOPICS_FILE)
    path.write_text(row.yaml, encoding="utf-8")
