"""Pipeline schedule pictures (PNG), drawn from `bot.domain.pipeline`'s simulation, never by hand.

Rebuild the shipped ones with ``python -m bot.present.diagrams content/img``. The drawing is
deterministic: shapes and Pillow's built-in bitmap font at 1x, then a 2x nearest-neighbour
upscale, so the same Pillow draws the same pixels on every machine (PNG bytes may differ
with zlib; tests compare decoded pixels).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.domain.pipeline import Schedule, ScheduleSpec, simulate

# The pictures the quizzes use: small p and m, so each box can carry its micro-batch.
SPECS = (
    ScheduleSpec("naive", 4, 1),
    ScheduleSpec("gpipe", 4, 4),
    ScheduleSpec("gpipe", 4, 8),
    ScheduleSpec("1f1b", 4, 8),
    ScheduleSpec("interleaved", 4, 8, 2),
)
TITLES = {"naive": "Naive model parallelism", "gpipe": "GPipe", "1f1b": "1F1B (PipeDream-Flush)",
          "interleaved": "Interleaved 1F1B"}

SCALE = 2
UNIT = 24  # px (at 1x) of one whole-stage forward; a chunk's is UNIT / v
ROW, GAP, LEFT, TOP, PAD = 18, 3, 38, 22, 8
WHITE, INK, GRID = (255, 255, 255), (30, 30, 30), (200, 200, 200)
FORWARD = ((52, 101, 164), (114, 159, 207), (32, 74, 135), (160, 190, 225))
BACKWARD = ((78, 154, 6), (138, 226, 52), (56, 110, 4), (190, 235, 140))
BUBBLE, HATCH = (236, 236, 236), (170, 170, 170)


def _font() -> ImageFont.ImageFont:
    return ImageFont.load_default_imagefont()


def caption(sched: Schedule) -> str:
    """The picture's title, e.g. 'GPipe, p=4, m=4: bubble 3/7 = 43% of the step'."""
    spec, b = sched.spec, sched.bubble
    v = f", v={spec.v}" if spec.v > 1 else ""
    return (f"{TITLES[spec.kind]}, p={spec.p}, m={spec.m}{v}: bubble "
            f"{b.numerator}/{b.denominator} = {round(100 * b)}% of the step")


def render(spec: ScheduleSpec) -> Image.Image:
    """One schedule as a picture: a row per GPU, a box per operation, the bubble hatched."""
    sched = simulate(spec)
    font, slot = _font(), UNIT // spec.v
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
            box = (x, y, x + slot - 1, y + ROW - 1)
            if op is None:
                draw.rectangle(box, fill=BUBBLE)
                # Diagonal hatch in page coordinates, so neighbouring idle slots join up.
                draw.point([(px, py) for px in range(x, x + slot) for py in range(y, y + ROW)
                            if (px + py) % 5 == 0], fill=HATCH)
                continue
            shades = FORWARD if op.kind == "F" else BACKWARD
            draw.rectangle(box, fill=shades[op.chunk % len(shades)], outline=WHITE)
            if op.start == t:
                label = str(op.micro + 1)
                draw.text((x + (slot * (op.end - op.start) - 6 * len(label)) // 2 + 1, y + 4),
                          label, fill=WHITE, font=font)
    draw.line((LEFT, TOP - 2, LEFT + sched.makespan * slot, TOP - 2), fill=GRID)
    _legend(draw, font, legend_y, spec.v)
    return img.resize((width * SCALE, height * SCALE), Image.Resampling.NEAREST)


def _legend(draw: ImageDraw.ImageDraw, font: ImageFont.ImageFont, y: int, v: int) -> None:
    items = [(FORWARD[0], "forward"), (BACKWARD[0], "backward")]
    if v > 1:
        items = [(FORWARD[c], f"F chunk {c + 1}") for c in range(v)] + [
            (BACKWARD[c], f"B chunk {c + 1}") for c in range(v)]
    items.append((BUBBLE, "idle (bubble)"))
    x = 4
    for colour, text in items:
        draw.rectangle((x, y + 1, x + 8, y + 9), fill=colour, outline=HATCH)
        draw.text((x + 12, y + 1), text, fill=INK, font=font)
        x += 12 + 6 * len(text) + 10


def pixels(img: Image.Image) -> tuple[str, tuple[int, int], bytes]:
    """What a picture looks like, independent of how its PNG was compressed."""
    return img.mode, img.size, img.tobytes()


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
