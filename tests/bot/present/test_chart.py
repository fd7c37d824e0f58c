"""The /stats chart: each quiz's bars headed by its title in the learner's language (Urdu
joined and right to left, every glyph in the font), never by the quiz's id."""

from __future__ import annotations

import pytest

from bot.domain.stats_results import DayStat, Progress, QuestionStat
from bot.present import visual
from bot.present.chart import progress_png
from tests.bot.present.drawn_text import Drawn, drawn, missing_glyphs

__all__ = ["drawn"]  # the fixture

TITLES = {"en": "Parallelism, deeper", "ur": "متوازیت، مزید گہرائی میں"}


def _progress(lang: str) -> Progress:
    questions = tuple(QuestionStat(f"parallelism-deep/q{i}", "?", 3, i % 4) for i in range(4))
    return Progress(lang, "Ali", 4, 0, None, 1, None, 0, 0, 0, 0, questions,
                    (DayStat("12-01", 3, 2), DayStat("12-02", 2, 1)),
                    titles=(("parallelism-deep", TITLES[lang]),))


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_the_stats_chart_is_headed_by_the_quiz_title(drawn: Drawn, lang: str) -> None:
    progress_png(_progress(lang))
    texts = [t for t, _ in drawn]
    assert visual.shaped(TITLES[lang]) in texts
    assert not any("parallelism-deep" in t for t in texts)  # never the quiz id
    for text, font in drawn:
        assert not missing_glyphs(text, font), text
