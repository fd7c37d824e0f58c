"""Quiz pictures from a content folder, trusted only as far as checked.

An image path in a quiz file is relative to the file's folder and must name, following no
symlink (neither the file nor any folder on the way), a regular file inside that folder of
at most MAX_IMAGE_BYTES whose first bytes say PNG, JPEG or WebP. The same rules hold again
when the picture is read to be sent (`read_image`): a file swapped for a symlink after the
check is refused then too, so a quiz can never mail out a file from elsewhere.
"""

from __future__ import annotations

import io
import os
import stat
import warnings
from pathlib import Path, PurePosixPath

from PIL import Image

MAX_IMAGE_BYTES = 5 * 1024 * 1024  # Telegram takes photos up to 10 MB; schedules are ~10 KB
# Telegram sends photos up to 10,000 px wide plus high; 40 Mpx is 160 MB unpacked
MAX_PIXELS = 40_000_000
SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
HEAD = 12  # bytes enough to tell the formats apart


class ImageRefused(ValueError):
    """A picture path that breaks a rule; the message says which, in one line."""


def image_format(head: bytes) -> str | None:
    """PNG, JPEG or WebP from a file's first bytes; None for anything else."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if head.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    return None


def check_image(base: Path, value: str) -> Path:
    """The checked picture `value` names below `base` (the quiz file's folder)."""
    rel = PurePosixPath(value.strip())
    if rel.is_absolute() or ".." in rel.parts or "\\" in value or not rel.parts:
        raise ImageRefused(f"{value!r} must be relative to the quiz file's folder and stay "
                           "inside it (no leading / or ..)")
    if rel.suffix.lower() not in SUFFIXES:
        raise ImageRefused(f"{value!r} must be a {', '.join(SUFFIXES)} file")
    full = base.joinpath(*rel.parts)
    where = base
    for part in rel.parts[:-1]:  # every folder on the way: a real folder, no symlink
        where = where / part
        try:
            mode = os.lstat(where).st_mode
        except OSError:
            raise ImageRefused(f"{value} does not exist (looked for {full})") from None
        if stat.S_ISLNK(mode):
            raise ImageRefused(f"{value}: the folder {where} is a symlink; pictures must be "
                               "regular files inside the quiz folder")
        if not stat.S_ISDIR(mode):
            raise ImageRefused(f"{value} does not exist (looked for {full})")
    check_pixels(read_image(full, shown=value, resolved=False), value)  # the content
    return full.absolute()  # folder itself may be a link


def check_pixels(data: bytes, shown: str) -> None:
    """Refuse a picture whose header claims more than MAX_PIXELS (a decompression bomb: a
    few kB of PNG that unpacks to gigabytes). Only the header is read; one Pillow cannot
    read is left to the first-bytes check."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data)) as picture:
                width, height = picture.size
        except (Image.DecompressionBombWarning, Image.DecompressionBombError):
            width, height = 0, 0  # more than Pillow's own limit
        except (OSError, SyntaxError, ValueError):
            return  # no header Pillow knows: the first bytes were checked, it sends as is
    if width * height > MAX_PIXELS or not width:
        pillow = (Image.MAX_IMAGE_PIXELS or 0) // 1_000_000
        size = f"{width}x{height}" if width else f"more than {pillow} million"
        raise ImageRefused(f"{shown} claims {size} pixels; pictures may have at most "
                           f"{MAX_PIXELS // 1_000_000} million")


def read_image(path: Path, *, shown: str | None = None, resolved: bool = True) -> bytes:
    """The picture's bytes, read without following a symlink and under the size cap.

    `resolved`: `path` is the fully resolved one the loader kept, so it must still resolve
    to itself: a folder on the way swapped for a symlink since is refused too.
    """
    shown = shown or str(path)
    if resolved and os.path.realpath(path) != os.fspath(path):
        raise ImageRefused(f"{shown} now leads through a symlink; not read")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise ImageRefused(f"{shown} does not exist (looked for {path})") from None
    except OSError as exc:
        if os.path.islink(path):
            raise ImageRefused(f"{shown} is a symlink; pictures must be regular files inside "
                               "the quiz folder") from None
        raise ImageRefused(f"{shown} cannot be read: {exc.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise ImageRefused(f"{shown} is not a regular file")
    with os.fdopen(fd, "rb") as file:
        if info.st_size > MAX_IMAGE_BYTES:
            raise ImageRefused(f"{shown} is {info.st_size / 1e6:.1f} MB; pictures may be "
                               f"at most {MAX_IMAGE_BYTES // (1024 * 1024)} MB")
        data = file.read(MAX_IMAGE_BYTES + 1)
    if len(data) > MAX_IMAGE_BYTES:  # it grew while we looked
        raise ImageRefused(f"{shown} is over {MAX_IMAGE_BYTES // (1024 * 1024)} MB")
    if image_format(data[:HEAD]) is None:
        raise ImageRefused(f"{shown} is not a PNG, JPEG or WebP picture (by its first bytes)")
    return data
