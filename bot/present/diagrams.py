"""Pipeline schedule pictures (PNG), drawn from `bot.domain.pipeline`'s simulation, never by hand.

Rebuild the shipped ones with ``python -m bot.present.diagrams content/img``. The drawing is
deterministic: shapes and TrueType font files (Noto Sans; FiraGO for Urdu: pymupdf-fonts)
drawn at 2x, so the same Pillow draws the same pixels on every machine (PNG bytes may
differ with zlib; tests compare decoded pixels). A long timeline is wrapped into stacked
bands, each with its GPU labels, so no picture is wider than MAX_RATIO times its height (a
phone shows it large enough). A picture carries names, numbers and its legend, in the
learner's language (`Words`: the shipped pictures are English, an Urdu learner's is drawn
in Urdu, right to left); the caption beside it says the rest (`bot.present.render`).
A backward is drawn twice as long as a forward, as Narayanan et al. draw it; split into B
and W (the Zero Bubble schedules, DualPipe) each is as long as a forward, as Qi et al. draw.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.domain.pipeline import SPLIT, Op, Schedule, ScheduleSpec, pictured
from bot.present import visual
from bot.present.i18n import Catalogue, is_rtl

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
# Names: Latin in every language (1F1B, GPipe, ZB-H1 are what the papers and the Urdu
# explanations call them) but for the one that is a word, in the learner's language (the
# locale's picture.name_naive: Urdu "سادہ").
WORD_NAMES = frozenset({"naive"})
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


MAX_RATIO = 2.5  # width : height at most, so a phone shows the picture large enough
BAND_GAP = 10  # px (at 1x) between stacked bands of a wrapped timeline
FONT_SIZE = 11  # px (at 1x)


def font(size: int = FONT_SIZE * SCALE) -> ImageFont.FreeTypeFont:
    """The pictures' Latin TrueType font (Noto Sans) at `size` px."""
    return visual.font(size)


@dataclass(frozen=True, slots=True)
class Words:
    """A picture's words in one language; the defaults are the shipped (English) ones.
    `name`: the schedule's name where the language has its own ("" for TITLES')."""

    name: str = ""
    forward: str = "forward"
    backward: str = "backward"
    weight: str = "weight grad"
    idle: str = "idle (bubble)"
    rtl: bool = False


SHIPPED = Words()


def schedule_name(cat: Catalogue, lang: str, kind: str) -> str:
    """A schedule's name in `lang`: TITLES', or the locale's for a name that is a word."""
    return cat.t(lang, f"picture.name_{kind}") if kind in WORD_NAMES else TITLES[kind]


def words_in(cat: Catalogue, lang: str, spec: ScheduleSpec | None) -> Words:
    """A schedule picture's words in `lang` from the locale (SHIPPED for no schedule, and
    for a language whose words are the shipped pictures')."""
    if spec is None:
        return SHIPPED
    name = schedule_name(cat, lang, spec.kind)
    return Words("" if name == TITLES[spec.kind] else name, cat.t(lang, "picture.forward"),
                 cat.t(lang, "picture.backward"), cat.t(lang, "picture.weight"),
                 cat.t(lang, "picture.idle"), is_rtl(lang))


@lru_cache(maxsize=128)  # pure; every answer to a pictured question captions it
def drawn(spec: ScheduleSpec) -> Schedule:
    """The schedule as pictured: a whole backward twice a forward (B and W one each)."""
    return pictured(spec)


def caption(sched: Schedule, words: Words = SHIPPED) -> str:
    """The picture's title: the name and numbers, e.g. 'GPipe  p=4  m=4'."""
    spec = sched.spec
    v = f"  v={spec.v}" if spec.v > 1 else ""
    return f"{words.name or TITLES[spec.kind]}  p={spec.p}  m={spec.m}{v}"


def band_height(spec: ScheduleSpec) -> int:
    """Px (at 1x) of one band: a row per GPU."""
    return spec.p * (ROW + GAP)


def layout(sched: Schedule) -> tuple[int, int]:
    """(slots per band, bands): the fewest bands that bring the picture to MAX_RATIO."""
    spec, slot = sched.spec, UNIT // sched.spec.chunks
    for bands in range(1, sched.makespan + 1):
        per = -(-sched.makespan // bands)
        width = LEFT + per * slot + PAD
        height = TOP + bands * (band_height(spec) + BAND_GAP) + LEGEND_ROOM
        if width <= MAX_RATIO * height:
            return per, bands
    return sched.makespan, 1


LEGEND_ROOM = 34  # px (at 1x) under the bands: up to two lines of legend


def where(sched: Schedule, t: int, gpu: int) -> tuple[int, int]:
    """The top-left corner (at 1x) of time slot `t` on `gpu`'s row, in whichever band."""
    per, _ = layout(sched)
    band, at = divmod(t, per)
    y = TOP + band * (band_height(sched.spec) + BAND_GAP) + gpu * (ROW + GAP)
    return LEFT + at * (UNIT // sched.spec.chunks), y


def render(spec: ScheduleSpec, words: Words = SHIPPED) -> Image.Image:
    """One schedule as a picture: a row per GPU, a box per operation, the bubble hatched;
    a long timeline wrapped into stacked bands (each with its GPU labels), so the picture
    is at most MAX_RATIO wide for its height. Its title and legend in `words`' language (a
    right-to-left one's set from the right edge)."""
    sched = drawn(spec)
    slot = UNIT // spec.chunks
    per, bands = layout(sched)
    width = max(LEFT + per * slot + PAD, 330)
    legend_y = TOP + bands * (band_height(spec) + BAND_GAP)
    legend = _placed(_legend_items(spec, words), width)
    height = legend_y + LEGEND_ROOM + 15 * max(0, legend[-1][3] - 1)  # a third line: longer
    img = Image.new("RGB", (width * SCALE, height * SCALE), WHITE)
    pen = _Pen(ImageDraw.Draw(img))
    if words.rtl:
        pen.text((width - 4, 4), caption(sched, words), anchor="ra")
    else:
        pen.text((4, 4), caption(sched, words))
    for band in range(bands):
        t0, t1 = band * per, min((band + 1) * per, sched.makespan)
        for d in range(spec.p):
            _, y = where(sched, t0, d)
            pen.text((4, y + 2), f"GPU{d + 1}")
            row = sched.row(d)
            for t in range(t0, t1):
                x, _ = where(sched, t, d)
                op = row[t]
                if op is None:
                    pen.idle(x, y, slot)
                elif op.start == t or t == t0:  # a box cut by the band's edge goes on below
                    _box(pen, op, x, y, slot * (min(op.end, t1) - t))
        _, top = where(sched, t0, 0)
        pen.line((LEFT, top - 2, LEFT + (t1 - t0) * slot, top - 2), GRID)
    _legend(pen, legend_y, legend, width, words.rtl)
    return img


class _Pen:
    """Draws at SCALE from coordinates at 1x (text in the TrueType font)."""

    def __init__(self, draw: ImageDraw.ImageDraw) -> None:
        self.draw = draw

    def rect(self, box: tuple[int, int, int, int], fill: tuple[int, int, int],
             outline: tuple[int, int, int] | None = None) -> None:
        x0, y0, x1, y1 = box
        self.draw.rectangle((x0 * SCALE, y0 * SCALE, (x1 + 1) * SCALE - 1,
                             (y1 + 1) * SCALE - 1), fill=fill, outline=outline,
                            width=SCALE if outline else 0)

    def line(self, box: tuple[int, int, int, int], fill: tuple[int, int, int]) -> None:
        self.draw.line(tuple(v * SCALE for v in box), fill=fill, width=SCALE)

    def text(self, at: tuple[float, float], text: str, fill: tuple[int, int, int] = INK,
             anchor: str = "la") -> None:
        shown, face = visual.prepared(text, FONT_SIZE * SCALE)
        self.draw.text((at[0] * SCALE, at[1] * SCALE), shown, fill=fill, font=face,
                       anchor=anchor)

    def width(self, text: str) -> float:
        return _width(text)

    def idle(self, x: int, y: int, wide: int) -> None:
        self.rect((x, y, x + wide - 1, y + ROW - 1), BUBBLE)
        # Diagonal hatch in page coordinates, so neighbouring idle slots join up.
        self.draw.point([(px, py) for px in range(x * SCALE, (x + wide) * SCALE)
                         for py in range(y * SCALE, (y + ROW) * SCALE)
                         if (px + py) % 10 in (0, 1)], fill=HATCH)


def _shade(kind: str, chunk: int) -> tuple[int, int, int]:
    shades = {"F": FORWARD, "B": BACKWARD, "W": WEIGHT}[kind]
    return shades[chunk % len(shades)]


def _box(pen: _Pen, op: Op, x: int, y: int, wide: int) -> None:
    right, bottom = x + wide - 1, y + ROW - 1
    if op.kind == "FB":  # DualPipe's overlapped pair: forward over backward, one border
        pen.rect((x, y, right, y + ROW // 2 - 1), _shade("F", op.chunk))
        pen.rect((x, y + ROW // 2, right, bottom), _shade("B", op.chunk2))
        pen.rect((x, y, right, bottom), _shade("F", op.chunk), outline=INK)
        pen.rect((x + 1, y + ROW // 2, right - 1, bottom - 1), _shade("B", op.chunk2))
        label = f"{op.micro + 1}+{op.micro2 + 1}"
    else:
        pen.rect((x, y, right, bottom), _shade(op.kind, op.chunk), outline=WHITE)
        label = str(op.micro + 1)
    if pen.width(label) <= wide - 2:
        pen.text((x + wide / 2, y + ROW / 2), label, fill=WHITE, anchor="mm")


def _width(text: str) -> float:
    """Px (at 1x) the text takes in the pictures' font."""
    shown, face = visual.prepared(text, FONT_SIZE * SCALE)
    return face.getlength(shown) / SCALE


Colour = tuple[int, int, int]


def _legend_items(spec: ScheduleSpec, words: Words) -> list[tuple[Colour, str]]:
    """Every colour named: forward, backward (and weight gradient), per chunk, and idle."""
    kinds = "FBW" if spec.kind in SPLIT else "FB"
    many = max(spec.chunks, spec.paths)
    marks = "abcdefgh" if many > 1 else ""  # up to MAX_CHUNKS (a drawn v may be 3 or 4)
    labels = {"F": words.forward, "B": words.backward, "W": words.weight}
    items = [(_shade(k, c), f"{k}{marks[c] if marks else ''} {labels[k]}") for k in kinds
             for c in range(max(many, 1))]
    return [*items, (BUBBLE, words.idle)]


def _placed(items: list[tuple[Colour, str]], width: int) -> list[tuple[Colour, str, int, int]]:
    """(colour, words, x from the reading edge, line) of each legend item, lines filled in
    reading order."""
    x, line, out = 4, 0, []
    for colour, text in items:
        wide = 14 + _width(text) + 10
        if x + wide > width and x > 4:
            x, line = 4, line + 1
        out.append((colour, text, x, line))
        x += round(wide)
    return out


def _legend(pen: _Pen, y: int, placed: list[tuple[Colour, str, int, int]], width: int,
            rtl: bool) -> None:
    """The legend's items where `_placed` put them; in a right-to-left language each swatch
    right of its words, the items from the right edge."""
    for colour, text, x, line in placed:
        top = y + 2 + line * 15
        if rtl:
            right = width - x
            pen.rect((right - 9, top + 1, right, top + 10), colour, outline=HATCH)
            pen.text((right - 13, top), text, anchor="ra")
        else:
            pen.rect((x, top + 1, x + 9, top + 10), colour, outline=HATCH)
            pen.text((x + 13, top), text)


def pixels(img: Image.Image) -> tuple[str, tuple[int, int], bytes]:
    """What a picture looks like, independent of how its PNG was compressed."""
    return img.mode, img.size, img.tobytes()


@lru_cache(maxsize=PNG_CACHE)  # drawn per computed question's numbers; a dropped entry redraws
def png(spec: ScheduleSpec, words: Words = SHIPPED) -> bytes:
    """The schedule's picture as PNG bytes (for a computed question's drawn p, m, v, or a
    shipped one in another language's words)."""
    out = io.BytesIO()
    render(spec, words).save(out, format="PNG")  # not optimize: 3x the time for 10% fewer bytes
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
