"""Small SVG charts for the dashboard, drawn on the server: no script, no CDN.

Each chart is one `<svg>` string with a viewBox (it scales to a phone's width) and class
names instead of colours, so the page's stylesheet themes it (light, dark, Telegram's
theme). Every piece of text goes through `escape`: labels may come from quiz files.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape as _xml_escape

WIDTH = 320
STUB = 5.0  # px: the bar a 0 % question still gets


def escape(text: str) -> str:
    """Text safe inside an SVG element or a double-quoted attribute."""
    return _xml_escape(text, {'"': "&quot;"})


def _svg(height: int, body: list[str], label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
            f'direction="ltr" role="img" aria-label="{escape(label)}" class="chart">'
            f"<title>{escape(label)}</title>{''.join(body)}</svg>")


def accuracy_bars(rows: Sequence[tuple[str, int, int]], label: str) -> str:
    """One horizontal bar per (name, answered, right): the share right, and "right/answered".
    A question answered but never right gets a red stub, so 0 % never looks like no data."""
    row_h, name_w, gap = 22, 54, 4
    height = max(row_h, row_h * len(rows))
    bar_w = WIDTH - name_w - 58
    body = []
    for i, (name, answered, right) in enumerate(rows):
        y = i * row_h
        share = right / answered if answered else 0.0
        body.append(f'<text x="0" y="{y + 15}" class="axis">{escape(name)}</text>')
        body.append(f'<rect x="{name_w}" y="{y + gap}" width="{bar_w}" height="{row_h - 2 * gap}"'
                    ' rx="3" class="track"/>')
        if answered:
            width, kind = max(STUB, bar_w * share), "good" if share >= 0.5 else "bad"
            body.append(f'<rect x="{name_w}" y="{y + gap}" width="{width:.1f}" '
                        f'height="{row_h - 2 * gap}" rx="3" '
                        f'class="{kind}{" stub" if not right else ""}"/>')
        body.append(f'<text x="{WIDTH}" y="{y + 15}" text-anchor="end" class="value">'
                    f"{right}/{answered}</text>")
    return _svg(height, body, label)


def day_columns(days: Sequence[tuple[str, int]], label: str) -> str:
    """One column per (day label, count): the review forecast. Every other day is labelled
    (the first and the last inside the chart, never cut off), each column carries its count."""
    height, base, top, edge = 120, 96, 14, 16
    peak = max((n for _, n in days), default=0) or 1
    step = (WIDTH - 2 * edge) / max(1, len(days))
    body = [f'<line x1="0" y1="{base}" x2="{WIDTH}" y2="{base}" class="rule"/>']
    for i, (day, n) in enumerate(days):
        x = edge + i * step
        h = (base - top) * n / peak
        if n:
            body.append(f'<rect x="{x + 2:.1f}" y="{base - h:.1f}" width="{step - 4:.1f}" '
                        f'height="{h:.1f}" rx="2" class="due"/>')
            body.append(f'<text x="{x + step / 2:.1f}" y="{base - h - 3:.1f}" '
                        f'text-anchor="middle" class="value">{n}</text>')
        if i % 2 == 0:
            body.append(f'<text x="{x + step / 2:.1f}" y="{base + 16}" text-anchor="middle" '
                        f'class="axis">{escape(day)}</text>')
    return _svg(height, body, label)


def streak_calendar(days: Sequence[tuple[str, int, int]], first_weekday: int, label: str,
                    weekdays: Sequence[str] = ()) -> str:
    """A week-column grid of (date, answered, right), oldest first; `first_weekday` is the
    first day's weekday (0 Monday). A day with reviews is filled, darker with more. Rows are
    labelled with `weekdays` (Monday first; Monday, Wednesday and Friday shown), and the
    first and last days with their dates (MM-DD)."""
    cell, pad, left, head = 16, 3, 34 if weekdays else 0, 14
    weeks = (first_weekday + len(days) + 6) // 7
    height = 7 * cell + 4 + head
    x0 = left + max(0, (WIDTH - left - weeks * cell) // 2)
    peak = max((n for _, n, _ in days), default=0) or 1
    body = [f'<text x="0" y="{head + r * cell + 12}" class="axis">{escape(weekdays[r])}</text>'
            for r in (0, 2, 4) if len(weekdays) == 7]
    for i, (day, answered, right) in enumerate(days):
        slot = first_weekday + i
        x, y = x0 + (slot // 7) * cell, head + (slot % 7) * cell
        if i in (0, len(days) - 1):  # the first and the last day: MM-DD
            anchor = "start" if i == 0 else "end"
            body.append(f'<text x="{x + (0 if i == 0 else cell - pad)}" y="10" '
                        f'text-anchor="{anchor}" class="axis">{escape(day[5:])}</text>')
        level = 0 if not answered else 1 + min(3, 3 * answered // peak)
        body.append(f'<rect x="{x}" y="{y}" width="{cell - pad}" height="{cell - pad}" rx="3" '
                    f'class="day l{level}"><title>{escape(day)}: {right}/{answered}</title>'
                    "</rect>")
    return _svg(height, body, label)


def score_line(scores: Sequence[tuple[int, int]], label: str, dates: Sequence[str] = ()
               ) -> str:
    """A learner's attempts at one quiz as (score, total) points, oldest first: a y axis
    from 0 to the total, each point's score, and the dates of the first and last attempts."""
    height, top, base, left, right, inset = 84, 14, 62, 22, 12, 14
    if not scores:
        return _svg(height, [], label)
    total = max(t for _, t in scores) or 1
    span = WIDTH - left - right - 2 * inset  # points clear of the axis and its labels
    step = span / (len(scores) - 1) if len(scores) > 1 else 0
    body = [f'<line x1="{left}" y1="{base}" x2="{WIDTH}" y2="{base}" class="rule"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{base}" class="rule"/>',
            f'<text x="{left - 4}" y="{base + 4}" text-anchor="end" class="axis">0</text>',
            f'<text x="{left - 4}" y="{top + 4}" text-anchor="end" class="axis">{total}</text>']
    points = []
    for i, (score, _) in enumerate(scores):
        x = left + inset + (i * step if len(scores) > 1 else span / 2)
        points.append((x, base - (base - top) * score / total, score))
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in points)
    body.append(f'<polyline points="{path}" class="line" fill="none"/>')
    for x, y, score in points:
        body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" class="dot"/>')
        body.append(f'<text x="{x:.1f}" y="{y - 5:.1f}" text-anchor="middle" class="value">'
                    f"{score}</text>")
    if dates:
        ends = [(0, "start"), (len(points) - 1, "end")] if len(points) > 1 else [(0, "middle")]
        for i, anchor in ends:
            body.append(f'<text x="{points[i][0]:.1f}" y="{base + 16}" text-anchor="{anchor}" '
                        f'class="axis">{escape(dates[i])}</text>')
    return _svg(height, body, label)


__all__ = ["accuracy_bars", "day_columns", "escape", "score_line", "streak_calendar"]
