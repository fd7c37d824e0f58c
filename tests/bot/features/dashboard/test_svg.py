"""Server-drawn SVG charts: well-formed XML, every label escaped, shapes that follow the data."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from bot.present import svg

NS = "{http://www.w3.org/2000/svg}"


def test_labels_from_quiz_files_are_escaped_and_the_chart_parses() -> None:
    drawn = svg.accuracy_bars([('<script>alert("x")</script>', 4, 3), ("Q2", 0, 0)],
                              'title & "quotes"')
    root = ET.fromstring(drawn)  # raises on anything not well-formed
    assert "<script>" not in drawn
    assert root.get("aria-label") == 'title & "quotes"' and root.get("direction") == "ltr"
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert texts == ['<script>alert("x")</script>', "3/4", "Q2", "0/0"]
    bars = [r for r in root.iter(f"{NS}rect") if r.get("class") in ("good", "bad")]
    assert len(bars) == 1 and bars[0].get("class") == "good"  # 3/4 right; 0/0 has no bar


def test_forecast_columns_scale_to_the_busiest_day() -> None:
    root = ET.fromstring(svg.day_columns([("12-01", 4), ("12-02", 0), ("12-03", 2)], "due"))
    heights = [float(r.get("height", 0)) for r in root.iter(f"{NS}rect")]
    assert len(heights) == 2 and heights[0] == 2 * heights[1]


def test_calendar_starts_on_the_right_weekday_and_marks_review_days() -> None:
    days = [(f"2026-11-{d:02d}", 3 if d % 2 else 0, 1) for d in range(1, 15)]
    week = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    root = ET.fromstring(svg.streak_calendar(days, 6, "streak", week))  # the 1st: a Sunday
    cells = list(root.iter(f"{NS}rect"))
    assert len(cells) == 14
    assert cells[0].get("y") == str(14 + 6 * 16)  # Sunday's row, under the date labels
    labels = [t.text for t in root.iter(f"{NS}text")]
    assert labels == ["Mon", "Wed", "Fri", "11-01", "11-14"]
    assert [c.get("class") for c in cells[:2]] == ["day l4", "day l0"]


def test_a_question_never_right_shows_a_red_stub_not_an_empty_track() -> None:
    root = ET.fromstring(svg.accuracy_bars([("Q1", 3, 0), ("Q2", 2, 2)], "accuracy"))
    stub, full = [r for r in root.iter(f"{NS}rect") if r.get("class") != "track"]
    assert stub.get("class") == "bad stub" and float(stub.get("width", 0)) >= svg.STUB
    assert full.get("class") == "good"
    assert [t.text for t in root.iter(f"{NS}text")][1] == "0/3"


def test_score_line_has_an_axis_values_and_dates() -> None:
    root = ET.fromstring(svg.score_line([(5, 8), (7, 8), (6, 8)], "scores",
                                        ["11-02", "11-09", "11-20"]))
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert texts[:2] == ["0", "8"]  # the y axis runs to the total
    assert texts[2:5] == ["5", "7", "6"] and texts[-2:] == ["11-02", "11-20"]
