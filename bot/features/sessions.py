"""Solo sessions: a learner's run through a quiz, their answers, stats and leaderboards.

A service composed into the engine (`bot.features.engine`). Platform-neutral: it takes
plain values (an `Actor`, a session id, an option index) and returns frozen results from
`bot.domain.results`.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bot.domain.errors import NoActiveSession, NothingToReview, QuizInProgress
from bot.domain.numeric import TypedError
from bot.domain.observer import Observer
from bot.domain.pipeline import timeline
from bot.domain.quiz import Question, Quiz
from bot.domain.quiz.computed import draw, seed_of, shown_text
from bot.domain.results import (
    Actor,
    AnswerOutcome,
    AnswerResult,
    CatalogueEntry,
    MissedQuestion,
    NextStep,
    NotYours,
    QuestionPrompt,
    QuizList,
    SessionKind,
    StaleAnswer,
    Summary,
    TypedOutcome,
    TypedRefused,
)
from bot.domain.rights import owns
from bot.domain.stats_results import (
    Leaderboard,
    LeaderboardRow,
    QuestionStat,
    TopicLine,
    UserStats,
    ranked,
)
from bot.features.library import (
    Library,
    keep_since,
    last_seeds,
    new_session,
    opened,
    prompt,
    question_at,
    topic_shown,
    typed_choice,
    typed_shown,
    typed_unit,
)
from bot.features.review import SpacedReview
from bot.store.commands import learning_sql, sessions_sql
from bot.store.commands.report_sql import Scope, accuracy
from bot.store.protocol import Store
from bot.store.rows import AnswerRow, NewAnswer, NewSession, SessionRow, Write

GLOBAL, CHAT = "global", "chat"


class NothingMissed(NothingToReview):
    """The last attempt had no wrong answers."""

    key = "error.perfect_nothing_to_review"


class Sessions:
    """Solo quizzes on top of a `Store`: start, resume, answer, review what was missed."""

    def __init__(self, library: Library, store: Store, spaced: SpacedReview, *,
                 rng: random.Random, clock: Callable[[], float],
                 shuffle_questions: bool = False, observer: Observer | None = None) -> None:
        self.library, self.store, self.spaced, self.clock = library, store, spaced, clock
        self._rng = rng
        self._shuffle_questions = shuffle_questions
        self._observer = observer

    # --- sessions --------------------------------------------------------------------------

    async def start(self, actor: Actor, quiz_id: str | None = None, *,
                    unfinished: bool = False) -> QuestionPrompt:
        """Resume the user's unfinished session of the quiz, or start a new one. With
        `unfinished` and no quiz named, in a private chat: the quiz of the latest unfinished
        attempt there, else the default (a chat's /quiz "continues where you left off",
        whichever quiz that was)."""
        if quiz_id is None and unfinished and actor.chat_id is None:
            quiz_id = await self._unfinished_quiz(actor)
        quiz = self.library.quiz(quiz_id)
        lang = await self.library.language(actor)
        new = self._new_session(actor, quiz, SessionKind.FULL, quiz.questions)
        row = await self.store.write(sessions_sql.start_session, new, replace=False)
        if row.kind != SessionKind.FULL or not quiz.fits(row.question_ids, row.option_orders):
            row = await self.store.write(sessions_sql.start_session, new, replace=True)
        if row.seed == new.seed:
            self._started(actor)
        return opened(quiz, row, lang, new, now=new.started_at)

    async def _unfinished_quiz(self, actor: Actor, *, or_finished: bool = False) -> str | None:
        """The quiz of the user's latest unfinished full attempt in a private chat (with
        `or_finished`, else of their latest finished one), if it is still served."""
        row = await self.store.read(sessions_sql.open_session, actor.platform, actor.user_id,
                                    SessionKind.FULL.value)
        if row is None and or_finished:
            row = await self.store.read(sessions_sql.last_finished, actor.platform, actor.user_id)
        return row.quiz_id if row is not None and row.quiz_id in self.library.quizzes else None

    async def restart(self, actor: Actor, quiz_id: str | None = None) -> QuestionPrompt:
        """Abandon any unfinished session (kept in history) and start the quiz afresh."""
        quiz = self.library.quiz(quiz_id)
        lang = await self.library.language(actor)
        new = self._new_session(actor, quiz, SessionKind.FULL, quiz.questions)
        row = await self.store.write(sessions_sql.start_session, new, replace=True,
                                     keep_since=keep_since(new.started_at))
        if row.seed == new.seed:
            self._started(actor)
        return opened(quiz, row, lang, new, now=new.started_at)

    async def review_missed(self, actor: Actor, quiz_id: str | None = None) -> QuestionPrompt:
        """A session over the questions missed in the user's last finished attempt."""
        quiz = self.library.quiz(quiz_id)
        lang = await self.library.language(actor)
        row = await self.store.read(sessions_sql.active_session,
                                    actor.platform, actor.user_id, quiz.id)
        if row is not None and quiz.fits(row.question_ids, row.option_orders):
            if row.kind == SessionKind.REVIEW:
                return opened(quiz, row, lang, now=self.clock())
            if row.position > 0:
                raise QuizInProgress(number=row.position + 1, total=len(row.question_ids))
        last = await self.store.read(sessions_sql.last_finished,
                                     actor.platform, actor.user_id, quiz.id)
        if last is None:
            raise NothingToReview()
        missed = {a.question_id for a in await self.store.read(sessions_sql.answers,
                                                               last.id) if not a.correct}
        questions = [q for q in quiz.questions if q.id in missed]
        if not questions:
            raise NothingMissed()
        new = self._new_session(actor, quiz, SessionKind.REVIEW, questions)
        row = await self.store.write(sessions_sql.start_session, new, replace=True,
                                     keep_since=keep_since(new.started_at))
        if row.seed == new.seed:
            self._started(actor)
        return opened(quiz, row, lang, new, now=new.started_at)

    async def current(self, actor: Actor, quiz_id: str | None = None) -> QuestionPrompt:
        """The question the user's unfinished session is at; NoActiveSession if none."""
        quiz = self.library.quiz(quiz_id)
        lang = await self.library.language(actor)
        row = await self.store.read(sessions_sql.active_session,
                                    actor.platform, actor.user_id, quiz.id)
        if row is None or not quiz.fits(row.question_ids, row.option_orders):
            raise NoActiveSession()
        return prompt(quiz, row, row.position, lang, resumed=True)

    def _started(self, actor: Actor) -> None:
        if self._observer is not None:  # metrics hook (issue 14)
            self._observer.session_started(actor.platform)

    def _new_session(self, actor: Actor, quiz: Quiz, kind: SessionKind,
                     questions: tuple[Question, ...] | list[Question]) -> NewSession:
        return new_session(actor, quiz, kind, list(questions), self._rng, now=self.clock(),
                           shuffle=quiz.shuffle_questions or self._shuffle_questions)

    # --- answers ---------------------------------------------------------------------------

    async def answer(self, actor: Actor, session_id: int, position: int, option: int,
                     sure: bool | None = None) -> AnswerOutcome:
        """Record the learner's choice (a shown option index) for question `position`.

        Who may answer and whether it counts are decided here and in the store's
        `record_answer`, nowhere else: only the session's owner; only the current question of
        an active session; a position counts once (a repeat returns the stored answer,
        marked duplicate). The answer is committed before this returns, with the learner's
        memory card for the question moved in the same transaction (`sure`: the confidence
        mark, None when not asked).
        """
        outcome = await self._answer(actor, session_id, position, sure, option, None)
        assert not isinstance(outcome, TypedRefused)  # only a typed answer is refused
        return outcome

    async def answer_typed(self, actor: Actor, session_id: int, position: int, text: str,
                           sure: bool | None = None) -> TypedOutcome:
        """Record a number typed for computed question `position`, through the same rules as
        a tap (`answer`): within the question's tolerance of the answer it is right; near a
        named mistake it is that mistake; else wrong. Text that is no number in the
        question's unit is refused (TypedRefused) and nothing is recorded."""
        return await self._answer(actor, session_id, position, sure, None, text)

    async def typed_target(self, actor: Actor) -> tuple[int, int] | None:
        """(session id, position) of the computed question open in the actor's private chat,
        which a number typed there answers; None when there is none (the text is no answer;
        in a group, typing is not answering)."""
        if actor.chat_id is not None:
            return None
        row = await self.store.read(sessions_sql.open_session, actor.platform, actor.user_id)
        if row is None:
            return None
        quiz = self.library.session_quiz(row.quiz_id)
        if (quiz is None or not quiz.fits(row.question_ids, row.option_orders)
                or typed_unit(quiz, row, row.position) is None):
            return None
        return row.id, row.position

    async def _answer(self, actor: Actor, session_id: int, position: int, sure: bool | None,
                      option: int | None, text: str | None) -> TypedOutcome:
        row, previous = await self.store.read(sessions_sql.session_and_answer, session_id, position)
        if row is None:
            return StaleAnswer(session_id, await self.library.language(actor), None)
        if not owns(actor, row.platform, row.user_id):
            return NotYours(session_id, await self.library.language(actor))
        lang = self.library.resolve_language(row.lang, actor.locale)
        quiz = self.library.session_quiz(row.quiz_id)
        if quiz is None:  # taken out (an installed quiz removed)
            return StaleAnswer(session_id, lang, None, removed=row.active)
        if not quiz.fits(row.question_ids, row.option_orders):  # replaced under the attempt
            changed = ((quiz.id, quiz.title.get(lang))
                       if row.active and row.kind == SessionKind.FULL else None)
            return StaleAnswer(session_id, lang, None, changed=changed)
        if previous is not None:
            return await self._result(quiz, row, previous, lang)
        if not row.active or position != row.position:
            return StaleAnswer(session_id, lang, self._where(quiz, row, lang))
        question = question_at(quiz, row, position)
        typed: float | None = None
        if text is None:
            if option is None or not 0 <= option < len(row.option_orders[position]):
                return StaleAnswer(session_id, lang, self._where(quiz, row, lang))
            chosen = row.option_orders[position][option]
        else:
            picked = typed_choice(quiz, row, position, text)
            if isinstance(picked, TypedError):
                return TypedRefused(session_id, lang, picked.key, tuple(picked.fields.items()))
            if picked is None:  # not a computed question: only a tap answers it
                return StaleAnswer(session_id, lang, self._where(quiz, row, lang))
            chosen, typed = picked
        finished = position + 1 == len(row.question_ids)
        correct = chosen == question.correct
        now = self.clock()  # one reading stamps the answer and its review
        recorded = await self.store.write(sessions_sql.record_answer, NewAnswer(
            session_id=session_id, position=position, question_id=question.id, chosen=chosen,
            correct=correct, finished=finished, typed=typed, answered_at=now,
            review=self.spaced.review_of(row, question.id, position, correct, sure, now,
                                         typed=typed is not None)))
        if recorded.outcome == Write.STALE:  # moved on meanwhile (another process, a reset)
            moved = await self.store.read(sessions_sql.get_session, session_id)
            return StaleAnswer(session_id, lang, self._where(quiz, moved, lang))
        assert recorded.answer is not None
        if recorded.outcome == Write.REPEAT:
            return await self._result(quiz, row, recorded.answer, lang)
        if self._observer is not None:  # metrics hook (issue 14)
            self._observer.answer_recorded(row.platform, recorded.answer.correct)
            if finished:
                self._observer.session_finished(row.platform)
        return await self._result(quiz, row, recorded.answer, lang, score=recorded.score,
                                  sure=sure)

    def _where(self, quiz: Quiz, row: SessionRow | None, lang: str) -> QuestionPrompt | None:
        """The question an active session is at, if it still fits the quiz."""
        if row is None or not row.active or not quiz.fits(row.question_ids, row.option_orders):
            return None
        return prompt(quiz, row, row.position, lang)

    async def _result(self, quiz: Quiz, row: SessionRow, answer: AnswerRow, lang: str,
                      *, score: int | None = None, sure: bool | None = None) -> AnswerResult:
        """What an answer shows: `score` is the session's score right after this answer was
        recorded (`row` is the session as read before it); None for a repeat, whose `row`
        is the session as it stands."""
        duplicate = score is None
        shown_score = row.score if duplicate else score  # the running score in the prompts
        question = question_at(quiz, row, answer.position)
        order = row.option_orders[answer.position]
        is_last = answer.position + 1 == len(row.question_ids)
        picked = answer.chosen >= 0  # TYPED_OTHER: a typed number that is no option
        why_not = question.options[answer.chosen].why_not if picked else None
        summary = await self._summary(quiz, row, lang) if is_last else None
        if score is None:  # a repeat: report the score as it stood right after that answer
            answers = await self.store.read(sessions_sql.answers, row.id)
            score = sum(a.correct for a in answers if a.position <= answer.position)
        return AnswerResult(
            session_id=row.id, lang=lang,
            question=prompt(quiz, row, answer.position, lang, score=shown_score),
            chosen=order.index(answer.chosen) if picked else -1,
            correct=order.index(question.correct),
            is_correct=answer.correct, explanation=question.explanation.get(lang),
            rationale=why_not.get(lang) if why_not and not answer.correct else None,
            references=question.references, answered=answer.position + 1, score=score,
            next=None if is_last else prompt(quiz, row, answer.position + 1, lang,
                                             score=shown_score),
            summary=summary, duplicate=duplicate, image=question.image,
            timeline=(timeline(question.schedule, as_pictured=True) if question.schedule
                      else None), sure=sure,
            schedule=question.schedule,
            takeaway=question.takeaway.get(lang) if question.takeaway else None,
            typed=typed_shown(quiz, row, answer.position, answer.typed, lang))

    async def _summary(self, quiz: Quiz, row: SessionRow, lang: str) -> Summary:
        answers = await self.store.read(sessions_sql.answers, row.id)
        missed = []
        for a in answers:
            if not a.correct and (q := quiz.question(a.question_id)) is not None:
                q = draw(q, seed_of(row.seed, row.id))
                missed.append(MissedQuestion(a.position, q.id, q.text.get(lang),
                                             q.options[q.correct].text.get(lang)))
        best = None
        if row.kind == SessionKind.FULL:
            best = await self.store.read(sessions_sql.best_score,
                                         quiz.id, row.platform, row.user_id)
        step: NextStep | None = None
        topics: tuple[TopicLine, ...] = ()
        if row.kind != SessionKind.DUE or row.topic is not None:  # a topic's practice too
            totals = await self.store.read(learning_sql.review_totals,
                                           row.platform, row.user_id)  # read once
            known = await self.spaced.mastery(row.platform, row.user_id, totals=totals)
            step = await self.spaced.next_step(row.platform, row.user_id, quiz, lang,
                                               missed=bool(missed), known=known)
        if row.kind != SessionKind.DUE:
            topics = await self.spaced.topic_map(row.platform, row.user_id, lang,
                                                 {t for q in quiz.questions for t in q.topics},
                                                 totals=totals, known=known)
        due = None  # a spaced review's summary says when to come back
        if row.kind == SessionKind.DUE and row.topic is None:
            due = await self.spaced.next_due(row.platform, row.user_id)
        return Summary(
            session_id=row.id, quiz_id=quiz.id, quiz_title=quiz.title.get(lang), lang=lang,
            kind=row.kind, score=sum(a.correct for a in answers), total=len(row.question_ids),
            missed=tuple(missed), best_score=best[0] if best else None,
            best_total=best[1] if best else None, next_step=step, topics=topics,
            topic=topic_shown(quiz, row, lang), next_due=due)

    # --- stats, leaderboards, reset ------------------------------------------------------------

    async def stats(self, actor: Actor, quiz_id: str | None = None, *,
                    member: Actor | None = None) -> UserStats:
        """Attempts, best and last score, accuracy per question, for the user or `member`;
        no quiz named, in a private chat: the one /quiz continues there, else the one last
        finished (not the default quiz, never played, after another was finished)."""
        if quiz_id is None and member is None and actor.chat_id is None:
            quiz_id = await self._unfinished_quiz(actor, or_finished=True)
        quiz = self.library.quiz(quiz_id)
        lang = await self.library.language(actor)
        who = member or actor
        attempts, best, last = await self.store.read(sessions_sql.attempts,
                                                     who.platform, who.user_id, quiz.id)
        last_total = await self.store.read(sessions_sql.last_total,
                                           who.platform, who.user_id, quiz.id)
        top = await self.store.read(sessions_sql.best_score, quiz.id, who.platform, who.user_id)
        best, best_total = top if top is not None else (best, None)  # the boards' best
        per_question = {r.question_id: (r.answered, r.correct) for r in await self.store.read(
            accuracy, Scope(platform=who.platform, user_id=who.user_id, quiz_id=quiz.id))}
        seeds = await last_seeds(self.store, who, (quiz,))  # computed questions: the last numbers
        questions = tuple(
            QuestionStat(q.id, shown_text(q, lang, seeds.get(quiz.id)),
                         *per_question.get(q.id, (0, 0)))
            for q in quiz.questions)
        own = (who.platform, who.user_id) == (actor.platform, actor.user_id)
        return UserStats(lang, quiz.id, quiz.title.get(lang), who.display_name, attempts, best,
                         last, len(quiz.questions), questions, own=own,
                         best_total=best_total, last_total=last_total)

    async def catalogue(self, actor: Actor) -> QuizList:
        """Every quiz, easiest level first, with the learner's best full score on each and
        how far an unfinished attempt got."""
        lang = await self.library.language(actor)
        entries = []
        for quiz in self.library.ordered():
            best = await self.store.read(sessions_sql.best_score,
                                         quiz.id, actor.platform, actor.user_id)
            row = await self.store.read(sessions_sql.active_session,
                                        actor.platform, actor.user_id, quiz.id)
            going = row is not None and row.kind == SessionKind.FULL and quiz.fits(
                row.question_ids, row.option_orders)
            top, out_of = best or (None, None)
            entries.append(CatalogueEntry(self.library.quiz_info(lang, quiz.id), top, out_of,
                                          row.position if going and row else None))
        return QuizList(lang, tuple(entries), self.library.default_id)

    async def leaderboard(self, actor: Actor, quiz_id: str | None = None, *,
                          scope: str = CHAT, limit: int = 10) -> Leaderboard:
        """Best scores in the actor's chat (or globally), ties broken by earlier finish."""
        quiz = self.library.quiz(quiz_id)
        lang = await self.library.language(actor)
        if scope == CHAT and actor.chat_id:
            key = f"{actor.platform}:{actor.chat_id}"
        else:
            scope, key = GLOBAL, ""
        rows = await self.store.read(sessions_sql.best, quiz.id, key, limit)
        return Leaderboard(lang, quiz.id, quiz.title.get(lang), scope, ranked(
            LeaderboardRow(0, r.display_name, r.platform, r.user_id, r.score,
                           r.total, r.finished_at) for r in rows), len(quiz.questions))

    async def reset(self, actor: Actor) -> int:
        """Delete the user's sessions, answers and scores; return how many sessions went."""
        return await self.store.write(sessions_sql.reset_user, actor.platform, actor.user_id)


