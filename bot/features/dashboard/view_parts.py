"""What the dashboard's two views share: quiz titles, question labels, accuracy rows and
charts, dates, the text direction (pure functions; `pages` calls them)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import yaml

from bot.domain.product_limits import HELP_NAMED, WEAKEST_LISTED
from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import shown_text
from bot.present import svg
from bot.present.i18n import is_rtl, person, strip_isolates
from bot.present.render import content_text
from bot.store.commands.dashboard_sql import Answered


def quiz_members(t: Callable[..., str], quizzes: Mapping[str, Quiz], quiz_id: str,
                 bests: list[tuple[int, int | None]], lang: str,
                 gone: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A quiz's line in the group's members summary: how many played it, their mean best.

    `bests` are (score, questions of the attempt it came from): each counts as its share
    of its own questions, the mean shown out of the quiz's, so a short round's 4 of 5 is
    17.6 of 22, not 4 of 22 pulling the group's mean down."""
    title = title_of(quizzes, quiz_id, lang, gone)
    total = len(quizzes[quiz_id].questions) if quiz_id in quizzes else None
    if total:
        mean = round(total * sum(b / (n or total) for b, n in bests) / len(bests), 1)
    else:  # the quiz is no longer loaded: its bests as they are
        mean = round(sum(b for b, _ in bests) / len(bests), 1)
    return {"quiz": quiz_id, "title": title, "members": len(bests), "mean_best": mean,
            "total": total, "line": t("dashboard.mean_best", title=title, members=len(bests),
                                      mean=mean, total=total)}


def right_at_most(right: int, answered: int, z: float = 1.96) -> float:
    """The most a question's share right could plausibly be, given `right` of `answered`:
    Wilson's score interval's upper bound (95 %). Few answers leave it high: 0 of 1 is
    0.79, 0 of 3 is 0.56, 182 of 301 (60 %) is 0.66."""
    p, zz = right / answered, z * z
    spread = z * math.sqrt(p * (1 - p) / answered + zz / (4 * answered * answered))
    return (p + zz / (2 * answered) + spread) / (1 + zz / answered)


def weakest(t: Callable[..., str], questions: list[dict[str, Any]],
            platform: str = "telegram") -> dict[str, Any]:
    """The group's worst-answered questions that someone got wrong, weakest first,
    WEAKEST_LISTED of them, and how many more there are: what an organiser goes over next,
    not every question in file order. Weakest by `right_at_most`, not the bare share: in
    a group of 300 the question 182 of them got wrong comes before one a single member
    answered wrong once (0 % of 1); of equals, the one answered most. `next`: what to do
    about it, a round of the weakest question's quiz ("" with nothing wrong)."""
    wrong = sorted((q for q in questions if q["wrong"]),
                   key=lambda q: (right_at_most(q["correct"], q["answered"]), -q["answered"],
                                  q["quiz"], q["order"]))
    shown = wrong[:WEAKEST_LISTED]
    more = len(wrong) - len(shown)
    return {"text": t("dashboard.weakest"),
            "questions": [{**q, "line": t("dashboard.weak_row", quiz=q["quiz_title"],
                                          label=q["label"], right=q["correct"],
                                          answered=q["answered"],
                                          percent=round(100 * q["correct"] / q["answered"]))}
                          for q in shown],
            "more": more, "more_text": t("dashboard.more", count=more) if more else "",
            "next": next_step(t, shown[0], platform) if shown else ""}


def next_step(t: Callable[..., str], question: dict[str, Any], platform: str) -> str:
    """"Next: go over <quiz> together", with the command that starts its round in the group
    (Discord: /round start, its quiz chosen there)."""
    title = question["quiz_title"]
    if platform == "discord":
        return t("dashboard.weak_next_server", title=title)
    # One left-to-right piece, the slash in front in Urdu, and (the page keeps an isolated
    # command on one line) never "/round" at a line's end and its quiz on the next.
    command = f"\u2066/round {question['quiz']}\u2069"
    return t("dashboard.weak_next", title=title, command=command)


def needs_help(t: Callable[..., str], rows: Iterable[dict[str, Any]], lang: str,
               separator: str) -> str:
    """A group admin's first-screen line: the HELP_NAMED members with the lowest share
    right (the member table's first rows, weakest first; each member once, full marks left
    out), so who may need help is read before the charts; "" when nobody is below full.
    The score in brackets: "ali92 (1/8)", never "ali92 1/8"."""
    named: dict[str, str] = {}
    for r in rows:
        if r["total"] and r["best"] < r["total"] and r["user_id"] not in named:
            if is_rtl(lang):  # name and score one piece, in the name's own direction
                named[r["user_id"]] = f'\u2068{strip_isolates(person(lang, r["name"]))} ' \
                                      f'({r["score"]})\u2069'
            else:
                named[r["user_id"]] = f'{person(lang, r["name"])} ({r["score"]})'
            if len(named) == HELP_NAMED:
                break
    if not named:
        return ""
    return t("dashboard.needs_help", members=separator.join(named.values()))


def accuracy_rows(quizzes: Mapping[str, Quiz], answers: list[Answered], lang: str
                  ) -> list[dict[str, Any]]:
    """Each question the learner answered, per quiz in file order: how often, how often
    right, its text (a computed one with the numbers of the latest answer)."""
    per: dict[tuple[str, str], list[int]] = {}
    seeds: dict[tuple[str, str], int] = {}  # computed questions: the latest numbers
    for a in answers:
        seeds.setdefault((a.quiz_id, a.question_id), a.seed)  # newest first
        acc = per.setdefault((a.quiz_id, a.question_id), [0, 0])
        acc[0] += 1
        acc[1] += a.correct
    out = []
    for quiz_id, quiz in sorted(quizzes.items()):
        for n, q in enumerate(quiz.questions, 1):
            if (quiz_id, q.id) in per:
                answered, right = per[(quiz_id, q.id)]
                text = shown_text(q, lang, seeds[(quiz_id, q.id)])
                out.append({"quiz": quiz_id, "id": q.id, "label": label(quiz_id, n),
                            "text": content_text(lang, text),
                            "answered": answered, "correct": right})
    return out


def label(quiz_id: str, number: int) -> str:
    """A question's label under its quiz's title: Q1, Q2, ... in file order."""
    return f"Q{number}"


def charts(quizzes: Mapping[str, Quiz], questions: list[dict[str, Any]], lang: str
           ) -> list[dict[str, str]]:
    """One accuracy chart per quiz (Q1, Q2, ... in file order)."""
    out = []
    for quiz_id in sorted({q["quiz"] for q in questions}):
        title = title_of(quizzes, quiz_id, lang)
        mine = [(q["label"], q["answered"], q["correct"]) for q in questions
                if q["quiz"] == quiz_id]
        out.append({"quiz": quiz_id, "title": title, "chart": svg.accuracy_bars(mine, title)})
    return out


def title_of(quizzes: Mapping[str, Quiz], quiz_id: str, lang: str,
             gone: Mapping[str, str] | None = None) -> str:
    """The quiz's title in `lang`; a quiz no longer loaded: its name in `gone`
    (`gone_titles`), its id only where none was looked up."""
    quiz = quizzes.get(quiz_id)
    return quiz.title.get(lang) if quiz else (gone or {}).get(quiz_id, quiz_id)


def gone_titles(ids: Iterable[str], files: Mapping[str, str], lang: str, fallback: str,
                numbered: Callable[[str, int], str]) -> dict[str, str]:
    """A name for each quiz no longer loaded: the title its stored file gave it (an
    installed quiz since removed; `quizzes_sql.stored_files`), else `fallback` ("a removed
    quiz"), never its internal id. Two that would share a name are told apart by a number
    ("A removed quiz (1)", "(2)"), counted in the order of their ids, so a page and its
    member table, given the same quizzes, number them alike."""
    names = {quiz_id: _file_title(files.get(quiz_id, ""), lang) or fallback
             for quiz_id in sorted(ids)}
    shared = Counter(names.values())
    seen: Counter[str] = Counter()
    for quiz_id, name in names.items():
        if shared[name] > 1:
            seen[name] += 1
            names[quiz_id] = numbered(name, seen[name])
    return names


def _file_title(text: str, lang: str) -> str | None:
    try:
        data = yaml.safe_load(text) if text else None
    except yaml.YAMLError:
        return None
    title = data.get("title") if isinstance(data, dict) else None
    if isinstance(title, dict):  # {en: ..., ur: ...}: the reader's, else the first given
        title = title.get(lang) or next((v for v in title.values() if v), None)
    return title if isinstance(title, str) and title.strip() else None


def direction(lang: str) -> str:
    """The page's text direction for `lang`."""
    return "rtl" if is_rtl(lang) else "ltr"


def day_text(day: int) -> str:
    """Day number (days since 1970-01-01) as YYYY-MM-DD."""
    return (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(days=day)).strftime("%Y-%m-%d")


def ago(t: Callable[..., str], seconds: float) -> str:
    """How long ago, in words of the reader's language, rounded down: "just now" under a
    minute, then minutes, hours under a day, else days ("3 days ago")."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return t("dashboard.ago_now")
    for unit, size in (("minutes", 60), ("hours", 3600)):
        if seconds < size * (60 if unit == "minutes" else 24):
            return t(f"dashboard.ago_{unit}", amount=int(seconds // size))
    return t("dashboard.ago_days", amount=int(seconds // 86400))


def time_text(at: float) -> str:
    """A timestamp as "YYYY-MM-DD HH:MM UTC"."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")


__all__ = ["accuracy_rows", "ago", "charts", "day_text", "direction", "label", "needs_help",
           "quiz_members",
           "time_text", "title_of", "weakest"]
