"""The shipped schedule pictures are exactly what the generator draws from the simulation."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from bot.domain.pipeline import ScheduleSpec, simulate
from bot.domain.quiz import default_content_dir, load_quizzes
from bot.present.diagrams import SPECS, build, caption, main, pixels, render

IMG = default_content_dir() / "img"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_shipped_picture_is_what_the_generator_draws(spec: ScheduleSpec):
    with Image.open(IMG / f"{spec.name}.png") as shipped:
        assert pixels(shipped.convert("RGB")) == pixels(render(spec)), (
            f"content/img/{spec.name}.png is stale: run python -m bot.present.diagrams content/img")


def test_no_stray_pictures_and_every_question_image_exists():
    assert sorted(p.name for p in IMG.glob("*.png")) == sorted(f"{s.name}.png" for s in SPECS)
    used = {q.image for quiz in load_quizzes([default_content_dir()]).values()
            for q in quiz.questions if q.image}
    assert used, "no question shows a picture"
    assert all(path.is_file() and path.parent == IMG.resolve() for path in used)


def test_rebuilding_changes_no_pixel(tmp_path: Path):
    assert main([str(tmp_path)]) == 0
    for path in build(tmp_path / "again"):
        with Image.open(path) as fresh, Image.open(tmp_path / path.name) as first:
            assert pixels(fresh) == pixels(first)


def test_picture_marks_the_bubble():
    spec = ScheduleSpec("gpipe", 4, 4)
    img, sched = render(spec), simulate(spec)
    assert caption(sched) == "GPipe, p=4, m=4: bubble 3/7 = 43% of the step"
    # GPU1's fifth slot is idle in GPipe: hatched grey, not a forward or backward colour.
    from bot.present.diagrams import BUBBLE, HATCH, LEFT, SCALE, TOP, UNIT
    x, y = (LEFT + 4 * UNIT + 5) * SCALE, (TOP + 5) * SCALE
    assert img.getpixel((x, y)) in (BUBBLE, HATCH)
    assert img.getpixel(((LEFT + 5) * SCALE, y)) not in (BUBBLE, HATCH)


def test_usage_error_without_a_folder(capsys):
    assert main([]) == 2
    assert "usage" in capsys.readouterr().err
