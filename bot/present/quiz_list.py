"""The catalogue in words: a quiz's line, its button label, /quizzes' text and `quizbot list`."""

from __future__ import annotations

from bot.domain.results import CatalogueEntry, QuizList
from bot.present.clipping import clip_isolated
from bot.present.i18n import Catalogue, is_rtl
from bot.present.render import PLAIN, Markup


def level_name(cat: Catalogue, lang: str, level: str) -> str:
    """A quiz's level in words ("Introduction")."""
    return cat.t(lang, f"level.{level}")


def highlighted(quizzes: QuizList, entry: CatalogueEntry) -> bool:
    """The button to tap: an unfinished attempt's, else (none unfinished) the default quiz's."""
    if any(e.answered is not None for e in quizzes.entries):
        return entry.answered is not None
    return entry.info.id == quizzes.default_id


def catalogue_item(cat: Catalogue, lang: str, entry: CatalogueEntry) -> str:
    """One quiz in the catalogue: "Title · 8 questions · Intermediate · best 7/8"."""
    info = entry.info
    text = cat.t(lang, "catalogue.item", title=info.title, count=info.questions,
                 level=level_name(cat, lang, info.level))
    if entry.best is not None:
        text += cat.t(lang, "catalogue.best", best=entry.best,
                      total=entry.best_total or info.questions)
    if entry.answered is not None:
        text += cat.t(lang, "catalogue.going", number=entry.answered + 1, total=info.questions)
    return text


def catalogue_label(cat: Catalogue, lang: str, entry: CatalogueEntry, limit: int) -> str:
    """A catalogue button: "Title · 8 q · Intermediate · 7/8" (unfinished: "· ▶ 4/8"), at
    most `limit` characters; a long title is cut, never the numbers."""
    info = entry.info
    tail = cat.t(lang, "catalogue.button_tail", count=info.questions,
                 level=level_name(cat, lang, info.level))
    if entry.answered is not None:
        tail += cat.t(lang, "catalogue.button_going", number=entry.answered + 1,
                      total=info.questions)
    elif entry.best is not None:
        tail += cat.t(lang, "catalogue.button_best", best=entry.best,
                      total=entry.best_total or info.questions)
    return clip_isolated(info.title, limit - len(tail), is_rtl(lang)) + tail


def catalogue_text(cat: Catalogue, quizzes: QuizList, m: Markup = PLAIN) -> str:
    """/quizzes: the point (go on with the quiz left unfinished, else tap one), then every
    quiz on its own line (buttons follow)."""
    lang = quizzes.lang
    going = [e for e in quizzes.entries if e.answered is not None]
    if len(going) == 1:
        hint = cat.t(lang, "catalogue.going_hint", title=going[0].info.title,
                     number=(going[0].answered or 0) + 1, total=going[0].info.questions)
    else:
        hint = cat.t(lang, "catalogue.going_many", count=len(going)) if going else cat.t(
            lang, "catalogue.hint")
    lines = [m.bold(m.escape(cat.t(lang, "catalogue.title"))), m.escape(hint), ""]
    lines += [f"• {m.escape(catalogue_item(cat, lang, e))}" for e in quizzes.entries]
    return "\n".join(lines)


def catalogue_lines(cat: Catalogue, quizzes: QuizList) -> list[str]:
    """`quizbot list`: one line per quiz, its id first (what `--quiz` takes)."""
    return [cat.t(quizzes.lang, "catalogue.line", id=e.info.id,
                  item=catalogue_item(cat, quizzes.lang, e)) for e in quizzes.entries]
