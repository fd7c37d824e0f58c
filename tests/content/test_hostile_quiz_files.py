"""Quiz files written by someone hostile or careless: symlinked pictures and folders, fake
or oversized pictures, duplicate keys, YAML alias bombs. Each is one clear line naming the
file and line, through `quizbot validate` (exit 1, every error listed) and at load."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.domain.errors import ContentError
from bot.domain.quiz import load_file
from bot.domain.quiz.images import MAX_IMAGE_BYTES, ImageRefused, read_image
from tests.bot.domain.quiz.test_content import PICTURED

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n" + bytes(32)
DECOY = b"root:x:0:0:decoy, not a real system file\n"


def quiz_with_image(folder: Path, image: str) -> Path:
    path = folder / "pictured.yaml"
    path.write_text(PICTURED.replace("IMAGE", image), encoding="utf-8")
    return path


def problems_of(path: Path) -> list[str]:
    with pytest.raises(ContentError) as caught:
        load_file(path)
    return caught.value.problems


def validate(*paths: Path, memory_mb: int | None = None) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        if memory_mb:
            size = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
    return subprocess.run(
        [sys.executable, "-m", "adapters.cli", "validate", *map(str, paths)],
        capture_output=True, text=True, timeout=60, cwd=ROOT, preexec_fn=limit,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


@pytest.fixture
def decoy(tmp_path: Path) -> Path:
    """A file outside the content folder that a symlink could point at (never a real one)."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "passwd").write_bytes(DECOY)
    (outside / "real.png").write_bytes(PNG)  # even a true picture outside is refused
    return outside


@pytest.fixture
def content(tmp_path: Path) -> Path:
    folder = tmp_path / "content"
    (folder / "img").mkdir(parents=True)
    return folder


def test_a_symlinked_image_is_refused(content: Path, decoy: Path) -> None:
    (content / "img" / "gpipe-p4-m4.png").symlink_to(decoy / "passwd")
    (content / "img" / "also.png").symlink_to(decoy / "real.png")
    for name in ("gpipe-p4-m4.png", "also.png"):
        problems = problems_of(quiz_with_image(content, f"img/{name}"))
        assert len(problems) == 1 and "pictured.yaml:15: questions[0].image" in problems[0]
        assert "is a symlink" in problems[0]


def test_a_symlinked_folder_is_refused(content: Path, decoy: Path) -> None:
    (content / "pics").symlink_to(decoy, target_is_directory=True)
    problems = problems_of(quiz_with_image(content, "pics/real.png"))
    assert len(problems) == 1 and "pictured.yaml:15:" in problems[0]
    assert "the folder" in problems[0] and "is a symlink" in problems[0]


@pytest.mark.parametrize(("name", "data", "why"), [
    ("fake.png", DECOY, "is not a PNG, JPEG or WebP picture"),
    ("huge.png", None, f"at most {MAX_IMAGE_BYTES // 2**20} MB"),
    ("folder.png", "dir", "is not a regular file"),
])
def test_only_real_small_pictures_pass(content: Path, name: str, data: bytes | str | None,
                                       why: str) -> None:
    target = content / "img" / name
    if data == "dir":
        target.mkdir()
    elif data is None:
        with target.open("wb") as f:  # sparse: costs no disk
            f.write(PNG)
            f.truncate(MAX_IMAGE_BYTES + 1)
    else:
        assert isinstance(data, bytes)
        target.write_bytes(data)
    problems = problems_of(quiz_with_image(content, f"img/{name}"))
    assert len(problems) == 1 and why in problems[0], problems


@pytest.mark.parametrize("head", [
    PNG, b"\xff\xd8\xff\xe0" + bytes(20), b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(20)])
def test_png_jpeg_and_webp_pass(content: Path, head: bytes) -> None:
    (content / "img" / "pic.webp").write_bytes(head)
    quiz = load_file(quiz_with_image(content, "img/pic.webp"))
    assert quiz.questions[0].image == (content / "img" / "pic.webp").resolve()


def test_a_picture_swapped_for_a_symlink_after_loading_is_not_sent(content: Path,
                                                                    decoy: Path) -> None:
    picture = content / "img" / "pic.png"
    picture.write_bytes(PNG)
    quiz = load_file(quiz_with_image(content, "img/pic.png"))
    image = quiz.questions[0].image
    assert image is not None and read_image(image) == PNG
    picture.unlink()
    picture.symlink_to(decoy / "passwd")
    with pytest.raises(ImageRefused, match="symlink"):
        read_image(image)
    # the folder swapped for a link to a look-alike folder elsewhere
    (decoy / "img").mkdir()
    (decoy / "img" / "pic.png").write_bytes(DECOY)
    (content / "img").rename(content / "old-img")
    (content / "img").symlink_to(decoy / "img", target_is_directory=True)
    with pytest.raises(ImageRefused, match="now leads through a symlink"):
        read_image(image)


def test_a_content_folder_that_is_itself_a_link_is_fine(tmp_path: Path) -> None:
    real = tmp_path / "real-content"
    (real / "img").mkdir(parents=True)
    (real / "img" / "pic.png").write_bytes(PNG)
    quiz_with_image(real, "img/pic.png")
    (tmp_path / "content").symlink_to(real, target_is_directory=True)  # a deployment's link
    quiz = load_file(tmp_path / "content" / "pictured.yaml")
    image = quiz.questions[0].image
    assert image is not None and read_image(image) == PNG


def test_a_duplicate_key_names_both_lines(content: Path) -> None:
    path = content / "dup.yaml"
    text = PICTURED.replace("    image: IMAGE\n", "    correct: 1\n").replace("id: pictured",
                                                                            "id: dup")
    path.write_text(text, encoding="utf-8")
    problems = problems_of(path)
    assert problems == [f"{path}:15: key 'correct' is given twice (also at {path}:13); "
                        "the last would silently win"]


ALIAS_BOMB = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
j: &j [*i,*i,*i,*i,*i,*i,*i,*i,*i]
k: &k [*j,*j,*j,*j,*j,*j,*j,*j,*j]
l: &l [*k,*k,*k,*k,*k,*k,*k,*k,*k]
"""


def test_validate_refuses_an_alias_bomb_fast_in_bounded_memory(content: Path,
                                                                decoy: Path) -> None:
    bomb = content / "bomb.yaml"
    bomb.write_text(ALIAS_BOMB, encoding="utf-8")
    dup = content / "dup.yaml"
    dup.write_text(PICTURED.replace("    image: IMAGE\n", "    correct: 1\n")
                   .replace("id: pictured", "id: dup"), encoding="utf-8")
    (content / "img" / "pic.png").symlink_to(decoy / "real.png")
    quiz_with_image(content, "img/pic.png")
    assert len(ALIAS_BOMB) < 1100
    started = time.monotonic()
    done = validate(content, memory_mb=400)  # the bomb alone took 2.27 GB before
    took = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert f"{bomb}:1: YAML anchors and aliases (&name, *name) are not allowed in quiz " \
           "files; write the value out" in lines
    assert any(f"{dup}:15: key 'correct' is given twice" in line for line in lines)
    assert any("pictured.yaml:15:" in line and "symlink" in line for line in lines)
    assert took < 30, took  # generous: an interpreter start on a busy machine
    assert os.path.getsize(bomb) < 1100
