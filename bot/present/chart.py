"""/stats as a picture: accuracy per question and the review history, as a small PNG.

Only numbers and dates are drawn (the words go in the message text beside it), so the
chart needs no fonts for Urdu and reads the same in both languages.
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

from bot.domain.results import Progress

WIDTH, HEIGHT, PAD = 720, 420, 28
BACK, INK, GRID = (250, 250, 247), (40, 40, 40), (220, 220, 215)
RIGHT, WRONG = (46, 160, 67), (218, 54, 51)


def progress_png(p: Progress) -> bytes:
    """Top: accuracy per question (green right, red wrong); bottom: reviews per day."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACK)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=13)
    half = (HEIGHT - 3 * PAD) // 2
    _bars(draw, font, (PAD, PAD, WIDTH - PAD, PAD + half),
          [(str(i), q.correct, q.answered) for i, q in enumerate(p.questions, 1)], percent=True)
    _bars(draw, font, (PAD, 2 * PAD + half, WIDTH - PAD, 2 * PAD + 2 * half),
          [(d.label, d.correct, d.answered) for d in p.history], percent=False)
    streak = f"{p.streak}d" if p.streak else ""
    draw.text((WIDTH - PAD, 6), streak, fill=INK, font=font, anchor="ra")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _bars(draw: ImageDraw.ImageDraw, font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
          box: tuple[int, int, int, int], bars: list[tuple[str, int, int]], *,
          percent: bool) -> None:
    left, top, right, bottom = box
    base = bottom - 16  # room for labels under the bars
    draw.line((left, base, right, base), fill=GRID, width=1)
    draw.line((left, top, right, top), fill=GRID, width=1)
    if not bars:
        return
    tallest = 1 if percent else max(1, max(n for _, _, n in bars))
    slot = (right - left) / len(bars)
    width = max(2.0, slot * 0.7)
    for i, (label, correct, answered) in enumerate(bars):
        x0 = left + i * slot + (slot - width) / 2
        x1 = x0 + width
        if answered:
            full = (base - top - 14) * (1 if percent else answered / tallest)
            right_part = full * correct / answered
            draw.rectangle((x0, base - full, x1, base), fill=WRONG)
            draw.rectangle((x0, base - right_part, x1, base), fill=RIGHT)
            value = f"{round(100 * correct / answered)}%" if percent else str(answered)
            draw.text(((x0 + x1) / 2, base - full - 2), value, fill=INK, font=font,
                      anchor="md")
        if percent or i % max(1, len(bars) // 7) == 0 or i == len(bars) - 1:
            draw.text(((x0 + x1) / 2, base + 2), label, fill=INK, font=font, anchor="ma")
