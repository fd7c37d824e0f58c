"""A finished session's summary: the point first (score, best, what to do next), each
missed question in one line, and every missed question in full as the card's detail
(folded where the platform can: Telegram's expandable quote, a Discord embed field)."""

from __future__ import annotations

from bot.domain.platforms import card_limit
from bot.domain.results import Summary
from bot.present.clipping import clip
from bot.present.i18n import Catalogue
from bot.present.render import (
    PLAIN,
    Markup,
    content_text,
    number_in,
    progress_bar,
    topic_map_lines,
)

SUMMARY_TOPICS = 3  # topics a finished summary lists (its quiz's weakest; /stats has all)
MISSED_SHOWN = 3  # missed questions named in the body, one line each; all are in the detail
MISSED_LINE = 60  # characters of a missed question's text in its one line


def summary_text(cat: Catalogue, summary: Summary, m: Markup = PLAIN) -> str:
    """The summary's body (`summary_parts`)."""
    return summary_parts(cat, summary, m)[0]


def summary_parts(cat: Catalogue, summary: Summary, m: Markup = PLAIN) -> tuple[str, str]:
    """(body, detail): the body leads with the score, the best score and the next step, then
    names up to MISSED_SHOWN missed questions in a line each with the right answer, then the
    topics; the detail repeats every missed question in full (a computed question's numbers
    are in its text), as many as one card holds, then "…and N more". Where nothing folds
    (`m.folds` false: the terminal) the body lists every missed question in full instead,
    and there is no detail."""
    lang, topic = summary.lang, content_text(summary.lang, summary.topic or "")
    key = "summary.topic_title" if summary.topic is not None else (
        "summary.review_title" if summary.kind in ("review", "due") else "summary.title")
    lines = [m.bold(m.escape(cat.t(lang, key, title=summary.quiz_title, score=summary.score,
                                   total=summary.total, topic=topic))),
             progress_bar(summary.score, summary.total)]
    if not summary.missed:
        lines.append(m.escape(cat.t(lang, "summary.perfect")))
    if summary.best_score is not None and summary.kind == "full":
        lines.append(m.escape(cat.t(lang, "summary.best", best=summary.best_score,
                                    total=summary.best_total or summary.total)))
    if (due := summary.next_due) is not None:  # spaced review: when to come back
        key = "summary.more_due" if due[0] == "now" else f"error.nothing_due_{due[0]}"
        lines += ["", m.escape(cat.t(lang, key, amount=due[1]))]
    if (step := summary.next_step) is not None:
        key = "summary.next_topic" if step.kind == "topic" else "summary.next_quiz"
        lines += ["", m.bold(m.escape(cat.t(lang, key, name=step.name, percent=step.percent)))]
    if summary.missed and not m.folds:  # one list, in full: no card limit, no fold
        lines += ["", m.escape(cat.t(lang, "summary.missed")), _detail(cat, summary, m, None)]
    elif summary.missed:
        lines += ["", m.escape(cat.t(lang, "summary.missed"))]
        lines += [m.escape(cat.t(lang, "summary.missed_line",
                                 number=number_in(lang, miss.position + 1),
                                 text=content_text(lang, clip(miss.text, MISSED_LINE)),
                                 answer=content_text(lang, miss.correct_option)))
                  for miss in summary.missed[:MISSED_SHOWN]]
        if len(summary.missed) > MISSED_SHOWN:
            lines.append(m.escape(cat.t(lang, "summary.missed_below",
                                        count=len(summary.missed) - MISSED_SHOWN)))
    if summary.topics:
        lines += ["", m.escape(cat.t(lang, "summary.topics"))]
        lines += topic_map_lines(cat, lang, summary.topics[:SUMMARY_TOPICS], m)
    body = "\n".join(lines)
    whole = not m.folds or (len(summary.missed) <= MISSED_SHOWN and all(
        len(miss.text) <= MISSED_LINE for miss in summary.missed))  # the body says it all
    return body, "" if whole else _detail(cat, summary, m, card_limit() - len(body) - 2)


def _detail(cat: Catalogue, summary: Summary, m: Markup, room: int | None) -> str:
    """Every missed question in full with its right answer, as many as `room` holds (a
    22-question quiz with most missed is over one card, 4,096), then "…and N more";
    `room` None: all of them."""
    lang = summary.lang
    items = [m.escape(cat.t(lang, "summary.missed_item", number=number_in(lang, miss.position + 1),
                            text=miss.text, answer=miss.correct_option))
             for miss in summary.missed]
    if room is None:
        return "\n\n".join(items)
    more = m.escape(cat.t(lang, "summary.missed_more", count=len(items)))
    room -= len(more) + 2
    shown = 0
    while shown < len(items) and len(items[shown]) + 2 <= room:
        room -= len(items[shown]) + 2
        shown += 1
    if shown < len(items):
        items[shown:] = [m.escape(cat.t(lang, "summary.missed_more", count=len(items) - shown))]
    return "\n\n".join(items)
