"""The schedule pictures read right for an Urdu learner: title and legend in Urdu, letters
joined, right to left, in a font that has every glyph; the caption's schedule names in Urdu
(the names that are names, GPipe or 1F1B, stay Latin)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from bot.domain.pipeline import ScheduleSpec, timeline
from bot.domain.quiz import default_content_dir
from bot.domain.results import AnswerResult, QuestionPrompt, SessionKind
from bot.present import diagrams, render, visual
from bot.present.i18n import Catalogue
from bot.present.plan import Planner
from tests.bot.present.drawn_text import Drawn, drawn, missing_glyphs

NAIVE, ZBH1 = ScheduleSpec("naive", 4, 1), ScheduleSpec("zbh1", 4, 8)


def test_a_font_without_urdu_draws_boxes_so_the_check_can_fail() -> None:
    assert missing_glyphs("فارورڈ", visual.font(22))  # Noto Sans: no Arabic script


@pytest.mark.parametrize("spec", [NAIVE, ZBH1], ids=lambda s: s.name)
def test_an_urdu_schedule_picture_draws_the_urdu_locales_words(catalogue: Catalogue,
                                                                drawn: Drawn,
                                                                spec: ScheduleSpec) -> None:
    words = diagrams.words_in(catalogue, "ur", spec)
    diagrams.render(spec, words)
    texts = [t for t, _ in drawn]
    legend = [catalogue.t("ur", f"picture.{k}") for k in ("forward", "backward", "idle")]
    if spec.kind == "zbh1":
        legend.append(catalogue.t("ur", "picture.weight"))
    for word in legend:  # each joined and right to left, as the picture draws it
        assert any(visual.shaped(word) in t for t in texts), word
    assert not any(english in t for t in texts for english in ("forward", "backward", "idle"))
    for text, font in drawn:
        assert not missing_glyphs(text, font), text
    arabic = [t for t in texts if visual.has_arabic_script(t)]
    assert arabic and all(any("\ufb50" <= ch <= "\ufeff" for ch in t) or len(t) < 3
                          for t in arabic)  # letters in their joined forms


def test_urdu_is_joined_and_laid_right_to_left() -> None:
    # ف ا ر و ر ڈ: feh joins alef (initial, final), the rest stand alone; the last letter
    # is drawn leftmost
    assert visual.shaped("فارورڈ") == "ڈرور\ufe8e\ufed3"
    assert visual.shaped("خالی وقت (ببل)").startswith("(")  # brackets mirrored
    assert visual.shaped("p=4 m=1") == "p=4 m=1"  # Latin as it is
    assert visual.shaped("سادہ  p=4").startswith("p=4")  # a Latin run keeps its order


def test_english_words_are_the_shipped_pictures_and_urdu_ones_are_drawn(catalogue: Catalogue
                                                                        ) -> None:
    for kind in diagrams.TITLES:
        spec = ScheduleSpec(kind, 4, 8, 2) if kind == "interleaved" else ScheduleSpec(kind, 4, 8)
        assert diagrams.words_in(catalogue, "en", spec) == diagrams.SHIPPED, kind
        assert diagrams.words_in(catalogue, "ur", spec).rtl


def _answer(lang: str, spec: ScheduleSpec, image: Path) -> AnswerResult:
    p = QuestionPrompt(session_id=1, quiz_id="parallelism", quiz_title="Parallelism", lang=lang,
                       kind=SessionKind.FULL, position=0, total=8, question_id="bubble",
                       text="?", options=("a", "b"))
    return AnswerResult(session_id=1, lang=lang, question=p, chosen=0, correct=0,
                        is_correct=True, explanation="…", rationale=None, references=(),
                        answered=1, score=1, next=None, summary=None, image=image,
                        schedule=spec)


def test_an_urdu_answer_sends_its_schedule_drawn_in_urdu(catalogue: Catalogue) -> None:
    shipped = default_content_dir() / "img" / f"{NAIVE.name}.png"
    plan = Planner(catalogue, render.PLAIN, shared_chats=False)
    english = plan.answered(_answer("en", NAIVE, shipped))
    assert english.image == shipped and english.schedule is None  # the shipped file
    urdu = plan.answered(_answer("ur", NAIVE, shipped))
    assert urdu.image is None and urdu.schedule == NAIVE
    png = urdu.png()
    assert png is not None
    with Image.open(io.BytesIO(png[1])) as sent:
        assert diagrams.pixels(sent) == diagrams.pixels(
            diagrams.render(NAIVE, diagrams.words_in(catalogue, "ur", NAIVE)))
    assert "سادہ" in urdu.caption and "Naive" not in urdu.caption


def test_the_caption_names_the_schedule_in_the_learners_language(catalogue: Catalogue) -> None:
    assert "Naive" in render.schedule_caption(catalogue, "en", NAIVE)
    urdu = render.schedule_caption(catalogue, "ur", NAIVE)
    assert "سادہ" in urdu and "Naive" not in urdu
    assert "GPipe" in render.schedule_caption(catalogue, "ur", ScheduleSpec("gpipe", 4, 4))
    assert "ZB-H1" in render.schedule_caption(catalogue, "ur", ZBH1)


__all__ = ["drawn"]  # the fixture


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_the_legend_names_the_idle_mark_the_timeline_draws(catalogue: Catalogue,
                                                           lang: str) -> None:
    """A text timeline draws an idle slot as "..", and its legend said "...: idle", an
    ellipsis nobody finds in the rows above it."""
    cells = timeline(ScheduleSpec("gpipe", 4, 4)).split()
    idle = next(cell for cell in cells if set(cell) == {"."})
    legend = catalogue.t(lang, "picture.legend")
    assert f"· {idle}: " in legend and "..." not in legend
