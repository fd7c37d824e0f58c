"""Spaced review: due review, the learner's settings and reminders, progress.

A service composed into the engine (`bot.features.engine`): it shares the quizzes and the
user's language through `Library`, and hands the solo answer path the card update an answer
makes (`review_of`). Every command takes an `Actor` and returns a frozen result from
`bot.domain.results`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from bot.domain import learning
from bot.domain.errors import BadReminder, NothingDue, UnknownTopic
from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import shown_text
from bot.domain.results import Actor, NextStep, QuestionPrompt, SessionKind, SettingsView
from bot.domain.stats_results import DayStat, Progress, QuestionStat, TopicLine
from bot.features.library import Library, keep_since, last_seeds, new_session, opened
from bot.features.mastery import WEAK, Mastery, mastery
from bot.features.progress import retention, standing
from bot.features.topic_map import confident_misses, topic_lines
from bot.store.commands import learning_sql, sessions_sql
from bot.store.protocol import Store
from bot.store.rows import (
    CardRow,
    LearnerSettings,
    NewJob,
    NewReview,
    ReviewTotal,
    SessionRow,
    reminder_key,
    review_key,
)

REMIND = "remind"  # job kinds of daily reminders: "remind:<platform>"
DUE_BATCH = 10  # questions in one spaced-review session
TOPIC_BATCH = 8  # questions in one practice set of a topic (/review topic:NAME)
HISTORY_DAYS = 14


def card_update(memory: learning.Memory, key: str, platform: str, user_id: str, quiz_id: str,
                question_id: str, correct: bool, sure: bool | None, now: float, *,
                typed: bool = False, utc_offset: int | None = None) -> NewReview:
    """The card update one answer makes (a solo answer, a round's lock-in), keyed by the
    answer so it moves the card once: its rating, and a confident miss due sooner."""
    rating = learning.rating_for(correct, sure, typed=typed)
    update = memory.updater(rating, now, sooner=sure is True and not correct)
    return NewReview(key, platform, user_id, quiz_id, question_id, correct, sure, int(rating),
                     now, update, utc_offset=utc_offset)


class SpacedReview:
    """The learner's memory cards: what is due, when to remind, how recall stands."""

    def __init__(self, library: Library, store: Store, *, clock: Callable[[], float],
                 memory: learning.Memory, rng: random.Random) -> None:
        self.library, self.store, self.clock, self.memory = library, store, clock, memory
        self._rng = rng

    def review_of(self, row: SessionRow, question_id: str, position: int, correct: bool,
                  sure: bool | None, now: float, *, typed: bool = False) -> NewReview:
        """The card update an answer in this session makes, keyed by the answer (`typed`: a
        number typed instead of a tap)."""
        quiz_id, qid = row.quiz_id, question_id
        if row.kind == SessionKind.DUE:
            quiz_id, qid = learning.unqualify(question_id)
        return card_update(self.memory, review_key(row.id, position), row.platform,
                           row.user_id, quiz_id, qid, correct, sure, now, typed=typed,
                           utc_offset=row.utc_offset)


    async def next_due(self, platform: str, user_id: str) -> tuple[str, int] | None:
        """When the learner's next question falls due, (unit, amount) as NothingDue says it;
        ("now", 0) when one is due already; None when they have none."""
        count, first = await self.store.read(learning_sql.next_due, platform, user_id)
        if not count or first is None:
            return None
        wait = learning.wait_of(first - self.clock())
        return ("now", 0) if first <= self.clock() else (wait.unit, wait.amount)

    async def review_due(self, actor: Actor) -> QuestionPrompt:
        """A session over the learner's due questions, most overdue first (resumed if one
        is unfinished); NothingDue says when the next falls due."""
        lang = await self.library.language(actor)
        quiz = self.library.due_quiz()
        row = await self.store.read(sessions_sql.active_session,
                                    actor.platform, actor.user_id, quiz.id)
        if row is not None and quiz.fits(row.question_ids, row.option_orders):
            return opened(quiz, row, lang, now=self.clock())
        now = self.clock()
        due = await self.store.read(learning_sql.due_cards,
                                    actor.platform, actor.user_id, now, DUE_BATCH * 3)
        questions = [q for c in due
                     if (q := quiz.question(learning.qualify(c.quiz_id, c.question_id)))]
        if not questions:
            count, first = await self.store.read(learning_sql.next_due,
                                                 actor.platform, actor.user_id)
            if not count or first is None:
                raise NothingDue()
            wait = learning.wait_of(first - now)
            raise NothingDue(wait.unit, wait.amount)
        new = new_session(actor, quiz, SessionKind.DUE, questions[:DUE_BATCH], self._rng,
                          now=now)
        row = await self.store.write(sessions_sql.start_session, new, replace=True,
                                     keep_since=keep_since(new.started_at))
        return opened(quiz, row, lang, new, now=new.started_at)

    async def mastery(self, platform: str, user_id: str, *,
                      totals: Sequence[ReviewTotal] | None = None,
                      cards: Sequence[CardRow] | None = None) -> Mastery:
        """The learner's mastery per question and topic, now (from `totals` and `cards`
        when the caller read them already)."""
        return await mastery(self.store, self.library.topics_of(), self.memory, platform,
                             user_id, self.clock(), totals=totals, cards=cards)

    async def topic_map(self, platform: str, user_id: str, lang: str,
                        only: Iterable[str] | None = None, *,
                        totals: Sequence[ReviewTotal] | None = None,
                        cards: Sequence[CardRow] | None = None,
                        known: Mastery | None = None) -> tuple[TopicLine, ...]:
        """The learner's mastery map with calibration per topic (`topic_map.topic_lines`);
        `totals`, `cards` or their `known` mastery when the caller read them already (the
        dashboard, the finished summary)."""
        if totals is None:
            totals = await self.store.read(learning_sql.review_totals, platform, user_id)
        if known is None:
            known = await self.mastery(platform, user_id, totals=totals, cards=cards)
        return topic_lines(self.library.topics_of(), known, totals,
                           lambda topic: self.library.topic_name(topic, lang), only)

    async def next_step(self, platform: str, user_id: str, quiz: Quiz, lang: str, *,
                        missed: bool, known: Mastery | None = None) -> NextStep | None:
        """After `quiz`: the weakest of its topics (the first its summary lists, a topic's
        practice: of all) when this attempt missed something and that topic is weak, else the
        quiz the content names next, else that weakest topic."""
        if known is None:
            known = await self.mastery(platform, user_id)
        weakest = known.weakest(None if quiz.id == self.library.due_quiz().id
                                else {t for q in quiz.questions for t in q.topics})
        topic = None if weakest is None else NextStep(
            "topic", weakest.topic, self.library.topic_name(weakest.topic, lang),
            round(100 * weakest.score))
        if topic is not None and missed and weakest is not None and weakest.score < WEAK:
            return topic
        if quiz.next and quiz.next in self.library.quizzes:
            return NextStep("quiz", quiz.next, self.library.quizzes[quiz.next].title.get(lang))
        return topic if missed else None

    async def review_topic(self, actor: Actor, topic: str) -> QuestionPrompt:
        """A short set (up to TOPIC_BATCH) of one topic's questions across quizzes: the due
        ones first, then the learner's weakest, then ones never answered; the same topic's
        unfinished set goes on where the learner is (resumed), as /quiz does."""
        topic = topic.strip().lower()
        if topic not in self.library.topics():
            raise UnknownTopic(topic=topic)  # a command shows the topics' names to tap
        lang = await self.library.language(actor)
        now = self.clock()
        quiz = self.library.due_quiz()
        row = await self.store.read(sessions_sql.active_session,
                                    actor.platform, actor.user_id, quiz.id)
        if (row is not None and row.topic == topic and row.position > 0
                and quiz.fits(row.question_ids, row.option_orders)):
            return opened(quiz, row, lang, now=now)  # goes on, as /quiz does
        known = await self.mastery(actor.platform, actor.user_id)
        due = {(c.quiz_id, c.question_id): c.due_at
               for c in await self.store.read(learning_sql.due_cards,
                                              actor.platform, actor.user_id, now, 1000)}

        def rank(key: tuple[str, str]) -> tuple[int, float]:
            if key in due:
                return 0, due[key]
            score = known.questions.get(key)
            return (1, score) if score is not None else (2, 0.0)

        keys = sorted(((z.id, q.id) for z in self.library.ordered() for q in z.questions
                       if topic in q.topics), key=rank)
        questions = [q for key in keys[:TOPIC_BATCH]
                     if (q := quiz.question(learning.qualify(*key))) is not None]
        new = new_session(actor, quiz, SessionKind.DUE, questions, self._rng, now=now,
                          topic=topic)
        row = await self.store.write(sessions_sql.start_session, new, replace=True,
                                     keep_since=keep_since(new.started_at))
        return opened(quiz, row, lang, new, now=new.started_at)

    async def settings(self, actor: Actor) -> SettingsView:
        """The learner's confidence and reminder settings."""
        lang = await self.library.language(actor)
        s = await self.store.read(learning_sql.learner_settings, actor.platform, actor.user_id)
        return _view(lang, s)

    async def set_confidence(self, actor: Actor, on: bool) -> SettingsView:
        """Ask (or stop asking) "sure or guess" with every answer."""
        lang = await self.library.language(actor)
        s = await self.store.read(learning_sql.learner_settings, actor.platform, actor.user_id)
        s = replace(s, confidence=on)
        await self.store.write(learning_sql.save_settings, s)
        return _view(lang, s)

    async def remind(self, actor: Actor, at: str, offset: str | None = None) -> SettingsView:
        """A daily reminder at local time `at` ("19:30"), at `offset` ("+05:00") or the
        stored one; sent only on days something is due."""
        minute = learning.parse_time(at)
        minutes_east = None if offset is None else learning.parse_offset(offset)
        if minute is None or (offset is not None and minutes_east is None):
            raise BadReminder()
        lang = await self.library.language(actor)
        s = await self.store.read(learning_sql.learner_settings, actor.platform, actor.user_id)
        # Reminders go to the learner's private chat (DM), never into a group they typed in.
        s = replace(s, remind_at=minute, chat_id=None, remind_stopped_at=None,
                    utc_offset=s.utc_offset if minutes_east is None else minutes_east)
        due_at = learning.next_occurrence(self.clock(), minute, s.utc_offset)
        job = NewJob(reminder_kind(actor.platform), reminder_key(actor.platform, actor.user_id),
                     due_at,
                     {"platform": actor.platform, "user_id": actor.user_id})
        await self.store.write(learning_sql.save_settings, s, job=job)
        return _view(lang, s)

    async def remind_off(self, actor: Actor) -> SettingsView:
        """No more reminders (the offset stays for next time)."""
        lang = await self.library.language(actor)
        s = await self.store.read(learning_sql.learner_settings, actor.platform, actor.user_id)
        s = replace(s, remind_at=None, remind_stopped_at=None)
        await self.store.write(learning_sql.save_settings,
                               s, cancel=reminder_key(actor.platform, actor.user_id))
        return _view(lang, s)

    async def reminders_stopped(self, actor: Actor) -> str | None:
        """The learner's language, once, after their reminders went off because the platform
        would not deliver them (None: nothing to tell, or told already, by any process)."""
        s = await self.store.read(learning_sql.learner_settings, actor.platform, actor.user_id)
        if s.remind_stopped_at is None or not await self.store.write(
                learning_sql.tell_reminders_stopped, actor.platform, actor.user_id):
            return None
        return await self.library.language(actor)

    async def progress(self, actor: Actor, *, member: Actor | None = None) -> Progress:
        """Due count, streak, retention, calibration, accuracy per question, history."""
        lang = await self.library.language(actor)
        who = member or actor
        now = self.clock()
        s = await self.store.read(learning_sql.learner_settings, who.platform, who.user_id)
        today = learning.local_day(now, s.utc_offset)
        cards = await self.store.read(learning_sql.cards, who.platform, who.user_id)
        totals = await self.store.read(learning_sql.review_totals, who.platform, who.user_id)
        since = today - HISTORY_DAYS + 1
        days = await self.store.read(learning_sql.review_days,
                                     who.platform, who.user_id, since - 400)
        figures = standing(now, s.utc_offset, cards, totals, days)
        per = figures.per_question
        seeds = await last_seeds(self.store, who, self.library.quizzes.values())
        questions = tuple(
            QuestionStat(learning.qualify(quiz.id, q.id),
                         shown_text(q, lang, seeds.get(quiz.id)),
                         *per[(quiz.id, q.id)])
            for quiz in sorted(self.library.quizzes.values(), key=lambda z: z.id)
            for q in quiz.questions if (quiz.id, q.id) in per)
        history = tuple(DayStat(learning.day_label(day), answered, right)
                        for day, answered, right in figures.history(HISTORY_DAYS))
        misses = tuple(
            QuestionStat(learning.qualify(t.quiz_id, t.question_id),
                         shown_text(q, lang, seeds.get(t.quiz_id)), t.answered, t.correct)
            for t in confident_misses(totals)
            if (quiz := self.library.quizzes.get(t.quiz_id)) is not None
            and (q := quiz.question(t.question_id)) is not None)
        played = {quiz_id for quiz_id, _ in per}
        return Progress(lang, who.display_name, figures.cards, figures.due_now,
                        figures.next_due, figures.streak, retention(self.memory, cards, now),
                        *figures.sure, *figures.guess, questions, history,
                        topics=await self.topic_map(who.platform, who.user_id, lang),
                        confident_misses=misses,
                        titles=tuple((quiz.id, quiz.title.get(lang))
                                     for quiz in self.library.quizzes.values()
                                     if quiz.id in played))


def reminder_kind(platform: str) -> str:
    """The job kind of a platform's reminders: only a process that runs it claims them."""
    return f"{REMIND}:{platform}"


def _view(lang: str, s: LearnerSettings) -> SettingsView:
    return SettingsView(lang, s.confidence,
                        None if s.remind_at is None else learning.format_time(s.remind_at),
                        learning.format_offset(s.utc_offset))

