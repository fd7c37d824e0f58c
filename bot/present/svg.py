"""Small SVG charts for the dashboard, drawn on the server: no script, no CDN.

Each chart is one `<svg>` string with a viewBox (it scales to a phone's width) and class
names instead of colours, so the page's stylesheet themes it (light, dark, Telegram's
theme). Every piece of text goes through `escape`: labels may come from quiz files.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape as _xml_escape

WIDTH = 320


def escape(text: str) -> str:
    """Text safe inside an SVG element or a double-quoted attribute."""
    return _xml_escape(text, {'"': "&quot;"})


def _svg(height: int, body: list[str], label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
            f'direction="ltr" role="img" aria-label="{escape(label)}" class="chart">'
            f"<title>{escape(label)}</title>{''.join(body)}</svg>")


def accuracy_bars(rows: Sequence[tuple[str, int, int]], label: str) -> str:
    """One horizontal bar per (name, answered, right): the share right, and "right/answered"."""
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
            body.append(f'<rect x="{name_w}" y="{y + gap}" width="{bar_w * share:.1f}" '
                        f'height="{row_h - 2 * gap}" rx="3" '
                        f'class="{"good" if share >= 0.5 else "bad"}"/>')
        body.append(f'<text x="{WIDTH}" y="{y + 15}" text-anchor="end" class="value">'
                    f"{right}/{answered}</text>")
    return _svg(height, body, label)


def day_columns(days: Sequence[tuple[str, int]], label: str) -> str:
    """One column per (day label, count): the review forecast."""
    height, base, top = 120, 96, 14
    peak = max((n for _, n in days), default=0) or 1
    step = WIDTH / max(1, len(days))
    body = [f'<line x1="0" y1="{base}" x2="{WIDTH}" y2="{base}" class="rule"/>']
    for i, (day, n) in enumerate(days):
        x = i * step
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


def streak_calendar(days: Sequence[tuple[str, int, int]], first_weekday: int, label: str) -> str:
    """A week-column grid of (date, answered, right), oldest first; `first_weekday` is the
    first day's weekday (0 Monday). A day with reviews is filled, darker with more."""
    cell, pad = 16, 3
    weeks = (first_weekday + len(days) + 6) // 7
    height = 7 * cell + 4
    x0 = max(0, (WIDTH - weeks * cell) // 2)
    peak = max((n for _, n, _ in days), default=0) or 1
    body = []
    for i, (day, answered, right) in enumerate(days):
        slot = first_weekday + i
        x, y = x0 + (slot // 7) * cell, (slot % 7) * cell
        level = 0 if not answered else 1 + min(3, 3 * answered // peak)
        body.append(f'<rect x="{x}" y="{y}" width="{cell - pad}" height="{cell - pad}" rx="3" '
                    f'class="day l{level}"><title>{escape(day)}: {right}/{answered}</title>'
                    "</rect>")
    return _svg(height, body, label)


def score_line(scores: Sequence[tuple[int, int]], label: str) -> str:
    """A learner's attempts at one quiz as (score, total) points, oldest first."""
    height, top, base = 60, 6, 54
    if not scores:
        return _svg(height, [], label)
    step = WIDTH / max(1, len(scores) - 1) if len(scores) > 1 else 0
    points = []
    for i, (score, total) in enumerate(scores):
        x = i * step if len(scores) > 1 else WIDTH / 2
        y = base - (base - top) * (score / total if total else 0)
        points.append((x, y))
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    body = [f'<polyline points="{path}" class="line" fill="none"/>']
    body += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" class="dot"/>' for x, y in points]
    return _svg(height, body, label)


__all__ = ["accuracy_bars", "day_columns", "escape", "score_line", "streak_calendar"]
