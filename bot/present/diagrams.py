"""Pipeline schedule pictures (PNG), drawn from `bot.domain.pipeline`'s simulation, never by hand.

Rebuild the shipped ones with ``python -m bot.present.diagrams content/img``. The drawing is
deterministic: shapes and Pillow's built-in bitmap font at 1x, then a 2x nearest-neighbour
upscale, so the same Pillow draws the same pixels on every machine (PNG bytes may differ
with zlib; tests compare decoded pixels). A picture carries no prose, only the schedule's
name, p, m, GPU numbers, micro-batch numbers and the letters F, B, W: the bitmap font has
no Urdu, so the words (what it shows, its bubble) are in the explanation, in each language.
A backward is drawn twice as long as a forward, as Narayanan et al. draw it; split into B
and W (the Zero Bubble schedules, DualPipe) each is as long as a forward, as Qi et al. draw.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.domain.pipeline import SPLIT, Op, Schedule, ScheduleSpec, simulate

# The pictures the quizzes use: small p and m, so each box can carry its micro-batch.
SPECS = (
    ScheduleSpec("naive", 4, 1),
    ScheduleSpec("gpipe", 4, 4),
    ScheduleSpec("gpipe", 4, 8),
    ScheduleSpec("1f1b", 4, 8),
    ScheduleSpec("interleaved", 4, 8, 2),
    ScheduleSpec("zbh1", 4, 8),
    ScheduleSpec("zbh2", 4, 8),
    ScheduleSpec("zbv", 4, 8),
    ScheduleSpec("dualpipe", 4, 8),
    ScheduleSpec("dualpipev", 4, 8),
)
# Names, not prose: they stay Latin in every language.
TITLES = {"naive": "Naive", "gpipe": "GPipe", "1f1b": "1F1B", "interleaved": "Interleaved 1F1B",
          "zbh1": "ZB-H1", "zbh2": "ZB-H2",
          "zbv": "ZB-V", "dualpipe": "DualPipe", "dualpipev": "DualPipeV"}

PNG_CACHE = 128  # pictures of drawn schedules kept in memory (each is a few kB)
SCALE = 2
UNIT = 24  # px (at 1x) of one whole-stage forward; a chunk's is UNIT / v
ROW, GAP, LEFT, TOP, PAD = 18, 3, 38, 22, 8
WHITE, INK, GRID = (255, 255, 255), (30, 30, 30), (200, 200, 200)
FORWARD = ((52, 101, 164), (114, 159, 207), (32, 74, 135), (160, 190, 225))
BACKWARD = ((78, 154, 6), (138, 226, 52), (56, 110, 4), (190, 235, 140))
WEIGHT = ((206, 92, 0), (252, 175, 62))
BUBBLE, HATCH = (236, 236, 236), (170, 170, 170)


def _font() -> ImageFont.ImageFont:
    return ImageFont.load_default_imagefont()


def drawn(spec: ScheduleSpec) -> Schedule:
    """The schedule as pictured: a whole backward twice a forward (B and W one each)."""
    return simulate(spec, backward=1 if spec.kind in SPLIT else 2)


def caption(sched: Schedule) -> str:
    """The picture's title: names and numbers only, e.g. 'GPipe  p=4  m=4'."""
    spec = sched.spec
    v = f"  v={spec.v}" if spec.v > 1 else ""
    return f"{TITLES[spec.kind]}  p={spec.p}  m={spec.m}{v}"


def render(spec: ScheduleSpec) -> Image.Image:
    """One schedule as a picture: a row per GPU, a box per operation, the bubble hatched."""
    sched = drawn(spec)
    font, slot = _font(), UNIT // spec.chunks
    width = LEFT + sched.makespan * slot + PAD
    legend_y = TOP + spec.p * (ROW + GAP) + 6
    height = legend_y + 14
    width = max(width, 8 + 6 * len(caption(sched)), 330)
    img = Image.new("RGB", (width, height), WHITE)
    draw = ImageDraw.Draw(img)
    draw.text((4, 5), caption(sched), fill=INK, font=font)
    for d in range(spec.p):
        y = TOP + d * (ROW + GAP)
        draw.text((4, y + 4), f"GPU{d + 1}", fill=INK, font=font)
        for t, op in enumerate(sched.row(d)):
            x = LEFT + t * slot
            if op is None:
                draw.rectangle((x, y, x + slot - 1, y + ROW - 1), fill=BUBBLE)
                # Diagonal hatch in page coordinates, so neighbouring idle slots join up.
                draw.point([(px, py) for px in range(x, x + slot) for py in range(y, y + ROW)
                            if (px + py) % 5 == 0], fill=HATCH)
            elif op.start == t:
                _box(draw, font, op, x, y, slot * (op.end - op.start))
    draw.line((LEFT, TOP - 2, LEFT + sched.makespan * slot, TOP - 2), fill=GRID)
    _legend(draw, font, legend_y, spec)
    return img.resize((width * SCALE, height * SCALE), Image.Resampling.NEAREST)


def _shade(kind: str, chunk: int) -> tuple[int, int, int]:
    shades = {"F": FORWARD, "B": BACKWARD, "W": WEIGHT}[kind]
    return shades[chunk % len(shades)]


def _box(draw: ImageDraw.ImageDraw, font: ImageFont.ImageFont, op: Op, x: int, y: int,
         wide: int) -> None:
    right, bottom = x + wide - 1, y + ROW - 1
    if op.kind == "FB":  # DualPipe's overlapped pair: forward over backward, one border
        draw.rectangle((x, y, right, y + ROW // 2 - 1), fill=_shade("F", op.chunk))
        draw.rectangle((x, y + ROW // 2, right, bottom), fill=_shade("B", op.chunk2))
        draw.rectangle((x, y, right, bottom), outline=INK)
        label = f"{op.micro + 1}+{op.micro2 + 1}"
    else:
        draw.rectangle((x, y, right, bottom), fill=_shade(op.kind, op.chunk), outline=WHITE)
        label = str(op.micro + 1)
    draw.text((x + (wide - 6 * len(label)) // 2 + 1, y + 4), label, fill=WHITE, font=font)


def _legend(draw: ImageDraw.ImageDraw, font: ImageFont.ImageFont, y: int,
            spec: ScheduleSpec) -> None:
    kinds = "FBW" if spec.kind in SPLIT else "FB"
    many = max(spec.chunks, spec.paths)
    marks = "abcdefgh" if many > 1 else ""  # up to MAX_CHUNKS (a drawn v may be 3 or 4)
    items = [(_shade(k, c), k + (marks[c] if marks else "")) for k in kinds
             for c in range(max(many, 1))]
    items.append((BUBBLE, ""))
    x = 4
    for colour, text in items:
        draw.rectangle((x, y + 1, x + 8, y + 9), fill=colour, outline=HATCH)
        draw.text((x + 12, y + 1), text, fill=INK, font=font)
        x += 12 + 6 * len(text) + 10


def pixels(img: Image.Image) -> tuple[str, tuple[int, int], bytes]:
    """What a picture looks like, independent of how its PNG was compressed."""
    return img.mode, img.size, img.tobytes()


@lru_cache(maxsize=PNG_CACHE)  # drawn per computed question's numbers; a dropped entry redraws
def png(spec: ScheduleSpec) -> bytes:
    """The schedule's picture as PNG bytes (for a computed question's drawn p, m, v)."""
    out = io.BytesIO()
    render(spec).save(out, format="PNG")  # not optimize: 3x the time for 10% fewer bytes
    return out.getvalue()


def build(directory: Path, specs: Sequence[ScheduleSpec] = SPECS) -> list[Path]:
    """Write every picture into `directory` as <name>.png; return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for spec in specs:
        path = directory / f"{spec.name}.png"
        render(spec).save(path, format="PNG", optimize=True)
        out.append(path)
    return out


def main(argv: Sequence[str]) -> int:
    """python -m bot.present.diagrams DIR: (re)build the schedule pictures in DIR."""
    if len(argv) != 1:
        sys.stderr.write("usage: python -m bot.present.diagrams DIR\n")
        return 2
    for path in build(Path(argv[0])):
        sys.stdout.write(f"wrote {path}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
