"""Item statistics for a group's organisers: which questions are hard, which tell strong
members from weak ones, and which distractor draws the strong members (a likely bad key).

Classical item analysis over each member's *first* finished attempt of a quiz in the group
(later attempts measure memory of the answers, not the topic):

- difficulty: the share of members who answered the question right;
- discrimination: the upper-lower index D = p(upper) − p(lower), where the upper and lower
  groups are the 27 % of members with the highest and the lowest total score on that attempt
  (at least one member each; ties in the total are broken by user id, so the split is
  stable). D runs from −1 to 1: above 0.3 a question separates well, near 0 it does not,
  below 0 the weaker members do better (suspect the key or the wording);
- per option, the share of the upper and of the lower group who picked it;
- a flag when a distractor is picked by more members of the upper group than the key.

Figures are shown only once ITEM_MIN_LEARNERS members have such an attempt: with fewer, one
member more or less swings every number.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.domain.product_limits import ITEM_MIN_LEARNERS
from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import named_option, shown_text
from bot.domain.quiz.formats.table import csv_cell
from bot.present.reporting import letter
from bot.store.commands.dashboard_sql import AttemptAnswer

GROUP_SHARE = 0.27  # the upper and lower groups (Kelley's 27 %)


@dataclass(frozen=True, slots=True)
class Response:
    """One member's first finished attempt of a quiz: total score and choice per question
    (file index of the option)."""

    user_id: str
    score: int
    chosen: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class OptionStat:
    index: int  # in the quiz file
    key: bool
    picks: int
    upper: float  # share of the upper group who picked it
    lower: float


@dataclass(frozen=True, slots=True)
class ItemStat:
    question_id: str
    answered: int
    difficulty: float  # share right
    discrimination: float  # D = p(upper) − p(lower)
    options: tuple[OptionStat, ...]
    suspect: int | None  # a distractor drawing more of the upper group than the key


def groups(responses: Sequence[Response]) -> tuple[list[Response], list[Response]]:
    """(upper, lower): the GROUP_SHARE of members with the highest and lowest scores."""
    ranked = sorted(responses, key=lambda r: (-r.score, r.user_id))
    size = max(1, round(GROUP_SHARE * len(ranked)))
    return ranked[:size], ranked[-size:]


def item_stats(responses: Sequence[Response], questions: Sequence[tuple[str, int, int]]
               ) -> list[ItemStat]:
    """Figures per question (`questions`: id, number of options, key index, in file order);
    [] when fewer than ITEM_MIN_LEARNERS responses."""
    if len(responses) < ITEM_MIN_LEARNERS:
        return []
    upper, lower = groups(responses)
    out = []
    for qid, count, key in questions:
        answered = [r.chosen[qid] for r in responses if qid in r.chosen]
        if not answered:
            continue
        up = [r.chosen.get(qid) for r in upper]
        low = [r.chosen.get(qid) for r in lower]
        options = tuple(OptionStat(i, i == key, answered.count(i), up.count(i) / len(up),
                                   low.count(i) / len(low)) for i in range(count))
        strongest = max((o for o in options if not o.key), key=lambda o: (o.upper, -o.index),
                        default=None)
        suspect = strongest.index if strongest is not None and \
            strongest.upper > options[key].upper else None
        out.append(ItemStat(qid, len(answered), answered.count(key) / len(answered),
                            options[key].upper - options[key].lower, options, suspect))
    return out


def first_attempts(rows: Sequence[AttemptAnswer]) -> dict[str, list[Response]]:
    """Each member's first finished attempt per quiz, as responses by quiz id (rows come
    oldest attempt first)."""
    first: dict[tuple[str, str], AttemptAnswer] = {}
    chosen: dict[int, dict[str, int]] = {}
    for r in rows:
        if first.setdefault((r.quiz_id, r.user_id), r).session_id != r.session_id:
            continue  # a later attempt
        chosen.setdefault(r.session_id, {})[r.question_id] = r.chosen
    out: dict[str, list[Response]] = {}
    for (quiz_id, user_id), head in first.items():
        out.setdefault(quiz_id, []).append(Response(user_id, head.score,
                                                    chosen[head.session_id]))
    return out


def quiz_items(quiz: Quiz, responses: Sequence[Response]) -> list[ItemStat]:
    """`item_stats` for one quiz, its questions in file order."""
    return item_stats(responses, [(q.id, len(q.options), q.correct) for q in quiz.questions])


def items_view(rows: Sequence[AttemptAnswer], quizzes: Mapping[str, Quiz], lang: str,
               t: Callable[..., str], csv_path: str) -> dict[str, Any]:
    """The admin section of a group's page: per quiz played, the figures of each question
    or why there are none yet."""
    by_quiz = first_attempts(rows)
    out = []
    for quiz_id in sorted(by_quiz):
        quiz = quizzes.get(quiz_id)
        if quiz is None:
            continue
        responses = by_quiz[quiz_id]
        stats = quiz_items(quiz, responses)
        numbers = {q.id: n for n, q in enumerate(quiz.questions, 1)}
        questions = []
        for s in stats:
            q = quiz.questions[numbers[s.question_id] - 1]
            questions.append({
                "label": f"Q{numbers[s.question_id]}", "id": s.question_id,
                "text": shown_text(q, lang, None), "answered": s.answered,
                "difficulty": round(s.difficulty, 3),
                "discrimination": round(s.discrimination, 3),
                "line": t("dashboard.item_row", right=round(100 * s.difficulty),
                          d=f"{s.discrimination:+.2f}"),
                "flag": t("dashboard.item_flag", option=f"{letter(s.suspect)}) "
                          f"{named_option(q, s.suspect, lang)}")
                if s.suspect is not None else None,
                "options": [{"letter": letter(o.index), "text": named_option(q, o.index, lang),
                             "key": o.key, "picks": o.picks, "upper": round(100 * o.upper),
                             "lower": round(100 * o.lower)} for o in s.options]})
        out.append({"quiz": quiz_id, "title": quiz.title.get(lang), "learners": len(responses),
                    "shown": bool(stats),
                    "text": t("dashboard.items_count", members=len(responses)) if stats
                    else t("dashboard.items_wait", min=ITEM_MIN_LEARNERS, members=len(responses)),
                    "questions": questions})
    return {"min": ITEM_MIN_LEARNERS, "method": t("dashboard.items_method", min=ITEM_MIN_LEARNERS),
            "quizzes": out, "csv": csv_path}


ITEM_COLUMNS = ("quiz_id", "quiz_title", "question", "question_id", "members", "difficulty",
                "discrimination", "option", "option_text", "key", "picks", "upper_share",
                "lower_share", "likely_bad_key")


def items_csv(rows: Sequence[AttemptAnswer], quizzes: Mapping[str, Quiz], lang: str) -> str:
    """The same figures as CSV, one row per option (quizzes with too few members left out)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(ITEM_COLUMNS)
    for quiz_id, responses in sorted(first_attempts(rows).items()):
        quiz = quizzes.get(quiz_id)
        if quiz is None:
            continue
        numbers = {q.id: n for n, q in enumerate(quiz.questions, 1)}
        for s in quiz_items(quiz, responses):
            q = quiz.questions[numbers[s.question_id] - 1]
            for o in s.options:
                writer.writerow([csv_cell(c) for c in (
                    quiz_id, quiz.title.get(lang), numbers[s.question_id], s.question_id,
                    s.answered, round(s.difficulty, 3), round(s.discrimination, 3),
                    letter(o.index), named_option(q, o.index, lang), int(o.key), o.picks,
                    round(o.upper, 3), round(o.lower, 3), int(s.suspect == o.index))])
    return buf.getvalue()


__all__ = ["GROUP_SHARE", "ItemStat", "OptionStat", "Response",
           "first_attempts", "groups", "item_stats", "items_csv", "items_view"]
