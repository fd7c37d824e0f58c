"""/stats as a picture: accuracy per question, grouped per quiz, and the review history.

Horizontal bars, one a question (green right, red wrong), under a heading per quiz (its
title in the learner's language, from the right edge in Urdu) and above a 0-100% axis, so 50
questions stay legible; then the answers per day. The rest of the learner's words stay in
the message text beside it; the picture's are the titles, names and numbers, drawn in the
schedule pictures' fonts (`bot.present.visual`: Urdu joined and right to left).
"""

from __future__ import annotations

import asyncio
import io
from itertools import groupby

from PIL import Image, ImageDraw, ImageFont

from bot.domain.learning import unqualify
from bot.domain.stats_results import Progress, QuestionStat
from bot.present.i18n import is_rtl
from bot.present.visual import font as truetype
from bot.present.visual import prepared

WIDTH, PAD, BAR, STEP, HEAD = 720, 24, 11, 15, 22
LABEL = 64  # px for the question number left of its bar
HISTORY = 150  # px of the per-day part
BACK, INK, GRID, MUTED = (250, 250, 247), (40, 40, 40), (215, 215, 210), (120, 120, 120)
RIGHT, WRONG = (46, 160, 67), (218, 54, 51)


async def progress_picture(p: Progress) -> bytes | None:
    """The chart for /stats, drawn in a worker thread (~0.6 s for a learner of every quiz,
    which on the event loop would stall every other tap and round meanwhile); None for a
    learner with nothing to chart yet."""
    return await asyncio.to_thread(progress_png, p) if p.cards else None


def progress_png(p: Progress) -> bytes:
    """Accuracy per question, grouped per quiz (horizontal, titled, with an axis), then the
    answers per day of the last two weeks."""
    groups = [(quiz, list(qs)) for quiz, qs in
              groupby(p.questions, key=lambda q: unqualify(q.question_id)[0])]
    rows = sum(len(qs) for _, qs in groups)
    height = PAD + HEAD + len(groups) * HEAD + rows * STEP + 30 + HISTORY + PAD
    image = Image.new("RGB", (WIDTH, height), BACK)
    draw = ImageDraw.Draw(image)
    font, small = truetype(15), truetype(12)
    draw.text((PAD, PAD), title(p), fill=INK, font=font)
    left, right = PAD + LABEL, WIDTH - PAD - 40
    y = PAD + HEAD + 6
    titles = dict(p.titles)
    for quiz, questions in groups:
        heading, face = prepared(titles.get(quiz, quiz), 13)
        if is_rtl(p.lang):
            draw.text((right, y + 12), heading, fill=MUTED, font=face, anchor="rs")
        else:
            draw.text((PAD, y + 12), heading, fill=MUTED, font=face, anchor="ls")
        y += HEAD - 6
        for i, q in enumerate(questions, 1):
            _bar(draw, small, q, i, left, right, y)
            y += STEP
        y += 6
    for pct in (0, 50, 100):  # the axis
        x = left + (right - left) * pct // 100
        draw.line((x, PAD + HEAD, x, y), fill=GRID)
        draw.text((x, y + 2), f"{pct}%", fill=INK, font=small, anchor="ma")
    _history(draw, small, p, (PAD, y + 30, WIDTH - PAD, height - PAD))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def title(p: Progress) -> str:
    """The picture's heading in figures only, "5/8 · 62%" (right of answered): it is the same
    picture in every language, and the words stay in the message beside it, in the
    learner's language (an English "Accuracy per question: 5/8 right, 8 questions, 1
    quizzes" and "1 d" stood over every Urdu learner's chart)."""
    right_answers = sum(q.correct for q in p.questions)
    answers = sum(q.answered for q in p.questions)
    share = round(100 * right_answers / answers) if answers else 0
    return f"{right_answers}/{answers} · {share}%"


def _bar(draw: ImageDraw.ImageDraw, font: ImageFont.FreeTypeFont, q: QuestionStat,
         number: int, left: int, right: int, y: int) -> None:
    draw.text((left - 6, y + BAR // 2), str(number), fill=INK, font=font, anchor="rm")
    if not q.answered:
        return
    full = right - left
    draw.rectangle((left, y, left + full, y + BAR), fill=WRONG)
    draw.rectangle((left, y, left + round(full * q.correct / q.answered), y + BAR), fill=RIGHT)
    draw.text((right + 4, y + BAR // 2), f"{round(100 * q.accuracy)}%", fill=INK, font=font,
              anchor="lm")


def _history(draw: ImageDraw.ImageDraw, font: ImageFont.FreeTypeFont, p: Progress,
             box: tuple[int, int, int, int]) -> None:
    """Answers per day (green right, red wrong), a date under every other day."""
    left, top, right, bottom = box
    base = bottom - 16
    draw.line((left, base, right, base), fill=GRID)
    days = p.history
    if not days:
        return
    tallest = max(1, max(d.answered for d in days))
    slot = (right - left) / len(days)
    for i, d in enumerate(days):
        x0 = left + i * slot + slot * 0.15
        x1 = x0 + slot * 0.7
        if d.answered:
            full = (base - top - 14) * d.answered / tallest
            draw.rectangle((x0, base - full, x1, base), fill=WRONG)
            draw.rectangle((x0, base - full * d.correct / d.answered, x1, base), fill=RIGHT)
            draw.text(((x0 + x1) / 2, base - full - 2), str(d.answered), fill=INK, font=font,
                      anchor="md")
        if i % 2 == 0 or i == len(days) - 1:
            draw.text(((x0 + x1) / 2, base + 2), d.label, fill=INK, font=font, anchor="ma")
