"""The shipped schedule pictures are exactly what the generator draws from the simulation."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from bot.domain.pipeline import ScheduleSpec
from bot.domain.quiz import default_content_dir, load_quizzes
from bot.present.diagrams import (
    BACKWARD,
    BUBBLE,
    FORWARD,
    HATCH,
    INK,
    ROW,
    SCALE,
    SPECS,
    UNIT,
    WEIGHT,
    caption,
    drawn,
    layout,
    main,
    pixels,
    where,
)
from bot.present.diagrams import render as draw_picture

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
    """What the command writes is, pixel for pixel, what is shipped (which the generator's
    own drawing matches, above): rebuilding the shipped folder changes nothing."""
    assert main([str(tmp_path)]) == 0
    written = sorted(tmp_path.glob("*.png"))
    assert [p.name for p in written] == sorted(f"{s.name}.png" for s in SPECS)
    for path in written:
        with Image.open(path) as fresh, Image.open(IMG / path.name) as shipped:
            assert pixels(fresh) == pixels(shipped), path.name


def _at(img: Image.Image, slot: float, gpu: int = 0, dy: int = 2,
        spec: ScheduleSpec | None = None) -> object:
    """The colour inside a slot's box (a point clear of its label) on a GPU's row, in
    whichever band of the wrapped timeline the slot falls."""
    sched = drawn(spec or SHOWN[id(img)])
    chunk_slot = UNIT // sched.spec.chunks
    t = int(slot * UNIT) // chunk_slot
    x, y = where(sched, t, gpu)
    return img.getpixel((int((x + slot * UNIT - t * chunk_slot + 2) * SCALE),
                         (y + dy) * SCALE))


SHOWN: dict[int, ScheduleSpec] = {}


def render(spec: ScheduleSpec) -> Image.Image:
    """The picture, remembered with its spec for `_at`."""
    img = draw_picture(spec)
    SHOWN[id(img)] = spec
    return img


def test_picture_marks_the_bubble_and_says_no_prose():
    spec = ScheduleSpec("gpipe", 4, 4)
    img = render(spec)
    # Names and numbers only: the words are in the explanation, in each language.
    assert caption(drawn(spec)) == "GPipe  p=4  m=4"
    # GPU1's fifth slot is idle in GPipe: hatched grey, not a forward or backward colour.
    assert _at(img, 4) in (BUBBLE, HATCH)
    assert _at(img, 0) == FORWARD[0]


def test_backward_is_drawn_twice_as_long_as_forward():
    sched = drawn(ScheduleSpec("1f1b", 4, 8))
    assert {o.end - o.start for o in sched.ops if o.kind == "B"} == {2}
    img = render(ScheduleSpec("1f1b", 4, 8))
    # GPU4: F1 in slot 3, then B1 over slots 4 and 5, then F2 in slot 6.
    assert [_at(img, t, 3) for t in (3, 4, 5, 6)] == [FORWARD[0], BACKWARD[0], BACKWARD[0],
                                                        FORWARD[0]]


def test_zero_bubble_pictures_draw_b_and_w_apart():
    img = render(ScheduleSpec("zbh1", 4, 8))
    # GPU4 after its F1 (slot 3): B1, F2, B2, F3, B3, F4, B4, then W1 in slot 11.
    assert _at(img, 4, 3) == BACKWARD[0] and _at(img, 11, 3) == WEIGHT[0]
    zbv = render(ScheduleSpec("zbv", 4, 8))
    # Two half-size chunks a GPU: GPU1 starts with F1..F7 of chunk a, then F1 of chunk b.
    assert [_at(zbv, t / 2) for t in (0, 6, 7)] == [FORWARD[0], FORWARD[0], FORWARD[1]]


def test_dualpipe_draws_an_overlapped_pair_in_one_border():
    sched = drawn(ScheduleSpec("dualpipe", 4, 8))
    pair = next(o for o in sched.ops if o.stage == 0 and o.kind == "FB")
    assert (pair.micro, pair.chunk, pair.micro2, pair.chunk2) == (3, 0, 1, 1)
    img = render(ScheduleSpec("dualpipe", 4, 8))
    assert _at(img, pair.start + 1, 0, dy=3) == FORWARD[0]  # forward of direction a on top
    assert _at(img, pair.start + 1, 0, dy=ROW - 3) == BACKWARD[1]  # backward of b below
    x, y = where(sched, pair.start * 1, 0)
    assert img.getpixel((x * SCALE, (y + 2) * SCALE)) == INK


def test_usage_error_without_a_folder(capsys):
    assert main([]) == 2
    assert "usage" in capsys.readouterr().err


@pytest.mark.parametrize("spec", [*SPECS, ScheduleSpec("1f1b", 8, 22),
                                  ScheduleSpec("interleaved", 8, 32, 4),
                                  ScheduleSpec("gpipe", 16, 64)], ids=lambda s: s.name)
def test_every_picture_is_at_most_two_and_a_half_times_as_wide_as_high(spec: ScheduleSpec):
    width, height = draw_picture(spec).size
    assert width <= 2.5 * height
    assert height <= 3 * width  # and never a needle the other way


def test_a_long_timeline_wraps_into_bands_with_gpu_labels_on_each():
    sched = drawn(ScheduleSpec("1f1b", 8, 22))
    per, bands = layout(sched)
    assert bands >= 2 and per * bands >= sched.makespan
    # the last slot sits in the last band, on the left edge's GPU rows
    assert where(sched, per, 0)[1] > where(sched, per - 1, 7)[1]
    assert where(sched, per, 0)[0] == where(sched, 0, 0)[0]


def test_the_wrapped_schedule_at_a_phone_width_is_kept(tmp_path: Path):
    """tests/artifacts/wrapped-schedule-phone.png: p = 8, m = 22, as a 390-px-wide phone
    screen shows it (regenerated by this test when the drawing changes)."""
    img = draw_picture(ScheduleSpec("1f1b", 8, 22))
    phone = img.resize((390, round(390 * img.height / img.width)), Image.Resampling.LANCZOS)
    out = Path(__file__).resolve().parents[2] / "artifacts" / "wrapped-schedule-phone.png"
    def kept() -> tuple[int, int] | None:
        if not out.exists():
            return None
        with Image.open(out) as shown:
            return shown.size

    if kept() != phone.size:
        out.parent.mkdir(exist_ok=True)
        phone.save(out, optimize=True)
    assert kept() == phone.size and phone.width / phone.height <= 2.5


def test_the_stats_chart_stays_legible_at_fifty_questions():
    """One bar a question (at least 15 px apart), grouped per quiz, on a page a phone
    scrolls (at most 3 times as high as wide)."""
    from bot.domain.learning import qualify
    from bot.domain.stats_results import DayStat, Progress, QuestionStat
    from bot.present.chart import STEP, progress_png

    questions = tuple(QuestionStat(qualify(quiz, f"q{i}"), "?", 4, i % 5)
                      for quiz, n in (("parallelism", 8), ("parallelism-deep", 22),
                                      ("pipeline-schedules", 20)) for i in range(n))
    days = tuple(DayStat(f"03-{d:02d}", d, d // 2) for d in range(1, 15))
    progress = Progress("en", "A", 50, 0, None, 3, 0.9, 0, 0, 0, 0, questions, days)
    with Image.open(io.BytesIO(progress_png(progress))) as chart:
        width, height = chart.size
    assert STEP >= 15 and height >= 50 * STEP and height <= 3 * width


def test_the_stats_charts_heading_is_figures_in_every_language():
    """The chart is one picture for every language, its words in the message beside it:
    its heading read 'Accuracy per question: 5/8 right, 8 questions, 1 quizzes' (and '1 d'
    for the streak) over an Urdu learner's chart too."""
    from bot.domain.learning import qualify
    from bot.domain.stats_results import Progress, QuestionStat
    from bot.present.chart import title

    questions = tuple(QuestionStat(qualify("parallelism", f"q{i}"), "?", 1, int(i % 3 > 0))
                      for i in range(8))
    heading = title(Progress("ur", "A", 8, 0, None, 1, 0.9, 0, 0, 0, 0, questions, ()))
    assert heading == "5/8 · 62%"
