"""Spaced review: FSRS memory cards, ratings, the cross-quiz "due" quiz, days and streaks.

Pure functions and one small wrapper around `fsrs.Scheduler`; no I/O. The store keeps a
card as `fsrs.Card` JSON plus its due time, and moves it inside the transaction that
records the answer, through `Memory.updater` (a pure function of the stored card).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from fsrs import Card, Rating, Scheduler

from bot.domain.quiz import Question, Quiz, Text
from bot.domain.stats_results import Wait

DUE_QUIZ = "*"  # quiz id of a spaced-review session: its questions come from every quiz
SEP = "/"  # a due session's question ids are "<quiz id>/<question id>"
DAY = 86400.0
MAX_OFFSET = 14 * 60  # UTC-12:00 .. UTC+14:00 are the offsets in use
MIN_OFFSET = -12 * 60

_HHMM = re.compile(r"(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)")
_OFFSET = re.compile(r"(?:UTC|GMT)?(?P<sign>[+-])(?P<h>\d{1,2})(?::?(?P<m>[0-5]\d))?",
                     re.IGNORECASE)

Updater = Callable[[str | None], tuple[str, float]]
# A wrong answer marked "sure" (a misconception, not a gap) comes back within this step
# (seconds), sooner than FSRS's own (re)learning step; FSRS schedules it from there on.
SURE_MISS_STEP = 60.0


def rating_for(correct: bool, sure: bool | None, *, typed: bool = False) -> Rating:
    """Wrong is Again; right is Good, or Hard when the learner said it was a guess.

    A number typed right (recalled and worked out with no options to recognise) is one step
    more: Easy, or Good when marked a guess."""
    if not correct:
        return Rating.Again
    if typed:
        return Rating.Good if sure is False else Rating.Easy
    return Rating.Hard if sure is False else Rating.Good


class Memory:
    """FSRS with the parameters quizbot uses; fuzzing off so every process agrees."""

    def __init__(self, scheduler: Scheduler | None = None) -> None:
        self.scheduler = scheduler or Scheduler(enable_fuzzing=False)

    def review(self, card_json: str | None, rating: Rating, at: float) -> Card:
        """The card after a review with `rating` at epoch second `at` (a new card if None)."""
        when = datetime.fromtimestamp(at, UTC)
        card = (Card.from_json(card_json) if card_json is not None
                else Card(card_id=int(at * 1000), due=when))
        reviewed, _log = self.scheduler.review_card(card, rating, when)
        return reviewed

    def updater(self, rating: Rating, at: float, *, sooner: bool = False) -> Updater:
        """A pure function for the store: stored card JSON (or None) -> (new JSON, due time).
        `sooner` (a confident miss): due within SURE_MISS_STEP, whatever FSRS's step."""
        def update(card_json: str | None) -> tuple[str, float]:
            card = self.review(card_json, rating, at)
            if sooner:
                card.due = min(card.due, datetime.fromtimestamp(at + SURE_MISS_STEP, UTC))
            return card.to_json(), card.due.timestamp()

        return update

    def retrievability(self, card_json: str, at: float) -> float:
        """The chance the learner recalls this card at `at`, as FSRS estimates it."""
        card = Card.from_json(card_json)
        return float(self.scheduler.get_card_retrievability(
            card, datetime.fromtimestamp(at, UTC)))


# --- the due quiz: questions of every quiz, ids qualified by their quiz ----------------------

def qualify(quiz_id: str, question_id: str) -> str:
    return f"{quiz_id}{SEP}{question_id}"


def unqualify(qualified: str) -> tuple[str, str]:
    """(quiz id, question id) of a due session's question id."""
    quiz_id, _, question_id = qualified.partition(SEP)
    return quiz_id, question_id


def due_quiz(quizzes: Mapping[str, Quiz], titles: Mapping[str, str],
             topics: tuple[tuple[str, Text], ...] = ()) -> Quiz:
    """One virtual quiz holding every question of every quiz under a qualified id, and the
    names of `topics` (a practice session of one topic runs on it and is named by it)."""
    questions: list[Question] = [replace(q, id=qualify(quiz.id, q.id))
                                 for quiz in sorted(quizzes.values(), key=lambda z: z.id)
                                 for q in quiz.questions]
    languages = tuple(sorted({lang for quiz in quizzes.values() for lang in quiz.languages}))
    title = Text(tuple(sorted(titles.items())))
    return Quiz(id=DUE_QUIZ, title=title, description=title, difficulty="mixed",
                languages=languages, questions=tuple(questions), topics=topics)


# --- time of day, offsets, days, streaks ----------------------------------------------------

def parse_time(text: str) -> int | None:
    """"19:30" -> minutes after midnight; None if it is not a time of day."""
    m = _HHMM.fullmatch(text.strip())
    return int(m["h"]) * 60 + int(m["m"]) if m else None


def parse_offset(text: str) -> int | None:
    """"+05:00", "-0330", "UTC+5" -> minutes east of UTC; None if not an offset in use."""
    raw = text.strip()
    if raw.upper() in {"UTC", "GMT", "Z"}:
        return 0
    m = _OFFSET.fullmatch(raw)
    if not m:
        return None
    minutes = (int(m["h"]) * 60 + int(m["m"] or 0)) * (-1 if m["sign"] == "-" else 1)
    return minutes if MIN_OFFSET <= minutes <= MAX_OFFSET else None


def format_time(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def format_offset(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    return f"UTC{sign}{format_time(abs(minutes))}"


def local_day(at: float, offset: int) -> int:
    """The learner's calendar day (days since 1970-01-01 in their offset) at epoch `at`."""
    return math.floor((at + offset * 60) / DAY)


def day_label(day: int) -> str:
    """"03-14" for a local day number (month-day, as a chart axis shows it)."""
    return (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(days=day)).strftime("%m-%d")


def next_occurrence(now: float, minute_of_day: int, offset: int) -> float:
    """The first epoch second strictly after `now` at local time `minute_of_day`."""
    local_midnight = local_day(now, offset) * DAY - offset * 60
    at = local_midnight + minute_of_day * 60
    while at <= now:
        at += DAY
    return at


def streak(days: Iterable[int], today: int) -> int:
    """Days in a row with a review, ending today (or yesterday: today is not over yet)."""
    have = set(days)
    day = today if today in have else today - 1
    count = 0
    while day in have:
        count += 1
        day -= 1
    return count


def wait_of(seconds: float) -> Wait:
    """A rounded-up duration: 0-59 min in minutes, under 2 days in hours, else days."""
    seconds = max(0.0, seconds)
    if seconds < 3600:
        return Wait("minutes", max(1, math.ceil(seconds / 60)))
    if seconds < 2 * DAY:
        return Wait("hours", math.ceil(seconds / 3600))
    return Wait("days", math.ceil(seconds / DAY))
