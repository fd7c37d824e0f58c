"""The engine's spaced-review commands: due review, settings, reminders, progress.

A mixin of `bot.features.sessions.Engine` (kept apart so each module stays small); every method is
one engine command taking an `Actor` and returning a frozen result from `bot.domain.results`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.domain import learning
from bot.domain.errors import BadReminder, NothingDue
from bot.domain.quiz import Question, Quiz
from bot.domain.results import (
    Actor,
    DayStat,
    Progress,
    QuestionPrompt,
    QuestionStat,
    SessionKind,
    SettingsView,
)
from bot.store.learning import LearnerSettings, NewJob, NewReview, reminder_key, review_key
from bot.store.protocol import SessionRow

if TYPE_CHECKING:
    from bot.store.protocol import NewSession, Store

REMIND = "remind"  # job kinds of daily reminders: "remind:<platform>"
DUE_BATCH = 10  # questions in one spaced-review session
HISTORY_DAYS = 14


class Study:
    """Spaced review on top of the engine's sessions and answer path."""

    store: Store
    clock: Callable[[], float]
    memory: learning.Memory
    _quizzes: dict[str, Quiz]
    _rng: random.Random
    _due_titles: Mapping[str, str]
    _due_cache: tuple[dict[str, Quiz], Quiz] | None

    # provided by Engine
    async def language(self, actor: Actor) -> str:
        raise NotImplementedError

    def _new_session(self, actor: Actor, quiz: Quiz, kind: SessionKind,
                     questions: tuple[Question, ...] | list[Question]) -> NewSession:
        raise NotImplementedError

    def _prompt(self, quiz: Quiz, row: SessionRow, position: int, lang: str,
                *, resumed: bool = False) -> QuestionPrompt:
        raise NotImplementedError

    # --- the due quiz -----------------------------------------------------------------

    def due_quiz(self) -> Quiz:
        """Every question of every quiz under a qualified id (rebuilt after a reload)."""
        if self._due_cache is None or self._due_cache[0] is not self._quizzes:
            self._due_cache = (self._quizzes,
                               learning.due_quiz(self._quizzes, self._due_titles))
        return self._due_cache[1]

    def session_quiz(self, quiz_id: str) -> Quiz | None:
        """The quiz a stored session runs on (the due quiz for spaced review)."""
        return self.due_quiz() if quiz_id == learning.DUE_QUIZ else self._quizzes.get(quiz_id)

    def review_of(self, row: SessionRow, question_id: str, position: int, correct: bool,
                  sure: bool | None) -> NewReview:
        """The card update an answer in this session makes, keyed by the answer."""
        quiz_id, qid = row.quiz_id, question_id
        if row.kind == SessionKind.DUE:
            quiz_id, qid = learning.unqualify(question_id)
        now = self.clock()
        rating = learning.rating_for(correct, sure)
        return NewReview(review_key(row.id, position), row.platform, row.user_id, quiz_id, qid,
                         correct, sure, int(rating), now, self.memory.updater(rating, now),
                         utc_offset=row.utc_offset)

    # --- commands -----------------------------------------------------------------------

    async def review_due(self, actor: Actor) -> QuestionPrompt:
        """A session over the learner's due questions, most overdue first (resumed if one
        is unfinished); NothingDue says when the next falls due."""
        lang = await self.language(actor)
        quiz = self.due_quiz()
        row = await self.store.active_session(actor.platform, actor.user_id, quiz.id)
        if row is not None and quiz.fits(row.question_ids, row.option_orders):
            return self._prompt(quiz, row, row.position, lang,
                                                         resumed=row.position > 0)
        now = self.clock()
        due = await self.store.due_cards(actor.platform, actor.user_id, now, DUE_BATCH * 3)
        questions = [q for c in due
                     if (q := quiz.question(learning.qualify(c.quiz_id, c.question_id)))]
        if not questions:
            count, first = await self.store.next_due(actor.platform, actor.user_id)
            if not count or first is None:
                raise NothingDue()
            wait = learning.wait_of(first - now)
            raise NothingDue(wait.unit, wait.amount)
        new = self._new_session(actor, quiz, SessionKind.DUE, [])
        new = replace(new, question_ids=tuple(q.id for q in questions[:DUE_BATCH]),
                      option_orders=tuple(self._shuffled(q) for q in questions[:DUE_BATCH]))
        row = await self.store.start_session(new, replace=True)
        return self._prompt(quiz, row, 0, lang)

    def _shuffled(self, question: Question) -> tuple[int, ...]:
        order = list(range(len(question.options)))
        self._rng.shuffle(order)
        return tuple(order)

    async def settings(self, actor: Actor) -> SettingsView:
        """The learner's confidence and reminder settings."""
        lang = await self.language(actor)
        s = await self.store.learner_settings(actor.platform, actor.user_id)
        return _view(lang, s)

    async def set_confidence(self, actor: Actor, on: bool) -> SettingsView:
        """Ask (or stop asking) "sure or guess" with every answer."""
        lang = await self.language(actor)
        s = await self.store.learner_settings(actor.platform, actor.user_id)
        s = replace(s, confidence=on)
        await self.store.save_settings(s)
        return _view(lang, s)

    async def remind(self, actor: Actor, at: str, offset: str | None = None) -> SettingsView:
        """A daily reminder at local time `at` ("19:30"), at `offset` ("+05:00") or the
        stored one; sent only on days something is due."""
        minute = learning.parse_time(at)
        minutes_east = None if offset is None else learning.parse_offset(offset)
        if minute is None or (offset is not None and minutes_east is None):
            raise BadReminder()
        lang = await self.language(actor)
        s = await self.store.learner_settings(actor.platform, actor.user_id)
        # Reminders go to the learner's private chat (DM), never into a group they typed in.
        s = replace(s, remind_at=minute, chat_id=None,
                    utc_offset=s.utc_offset if minutes_east is None else minutes_east)
        due_at = learning.next_occurrence(self.clock(), minute, s.utc_offset)
        job = NewJob(reminder_kind(actor.platform), reminder_key(actor.platform, actor.user_id),
                     due_at,
                     {"platform": actor.platform, "user_id": actor.user_id})
        await self.store.save_settings(s, job=job)
        return _view(lang, s)

    async def remind_off(self, actor: Actor) -> SettingsView:
        """No more reminders (the offset stays for next time)."""
        lang = await self.language(actor)
        s = await self.store.learner_settings(actor.platform, actor.user_id)
        s = replace(s, remind_at=None)
        await self.store.save_settings(s, cancel_job=reminder_key(actor.platform, actor.user_id))
        return _view(lang, s)

    async def progress(self, actor: Actor, *, member: Actor | None = None) -> Progress:
        """Due count, streak, retention, calibration, accuracy per question, history."""
        lang = await self.language(actor)
        who = member or actor
        now = self.clock()
        s = await self.store.learner_settings(who.platform, who.user_id)
        today = learning.local_day(now, s.utc_offset)
        cards = await self.store.cards(who.platform, who.user_id)
        due_now = sum(c.due_at <= now for c in cards)
        upcoming = [c.due_at for c in cards if c.due_at > now]
        next_due = learning.wait_of(min(upcoming) - now) if upcoming and not due_now else None
        retention = (sum(self.memory.retrievability(c.card, now) for c in cards) / len(cards)
                     if cards else None)
        totals = await self.store.review_totals(who.platform, who.user_id)
        per: dict[tuple[str, str], list[int]] = {}
        sure, guess = [0, 0], [0, 0]
        for t in totals:
            acc = per.setdefault((t.quiz_id, t.question_id), [0, 0])
            acc[0] += t.answered
            acc[1] += t.correct
            if t.sure is not None:
                bucket = sure if t.sure else guess
                bucket[0] += t.answered
                bucket[1] += t.correct
        questions = tuple(
            QuestionStat(learning.qualify(quiz.id, q.id), q.text.get(lang),
                         *per[(quiz.id, q.id)])
            for quiz in sorted(self._quizzes.values(), key=lambda z: z.id)
            for q in quiz.questions if (quiz.id, q.id) in per)
        since = today - HISTORY_DAYS + 1
        days = {d.day: d for d in await self.store.review_days(who.platform, who.user_id,
                                                               since - 400)}
        history = tuple(DayStat(learning.day_label(day), days[day].answered if day in days
                                else 0, days[day].correct if day in days else 0)
                        for day in range(since, today + 1))
        return Progress(lang, who.display_name, len(cards), due_now, next_due,
                        learning.streak(days, today), retention, sure[0], sure[1], guess[0],
                        guess[1], questions, history)


def reminder_kind(platform: str) -> str:
    """The job kind of a platform's reminders: only a process that runs it claims them."""
    return f"{REMIND}:{platform}"


def _view(lang: str, s: LearnerSettings) -> SettingsView:
    return SettingsView(lang, s.confidence,
                        None if s.remind_at is None else learning.format_time(s.remind_at),
                        learning.format_offset(s.utc_offset))

