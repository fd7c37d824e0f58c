"""The quiz engine: sessions, answers, review, stats, leaderboards, languages.

Platform-neutral: it takes plain values (an `Actor`, a session id, an option index) and
returns frozen results from `bot.domain.results`. It imports nothing from telegram or discord.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Protocol

from bot.app.metrics import Observer
from bot.domain.errors import (
    ContentError,
    NoActiveSession,
    NotAdmin,
    NothingToReview,
    QuizInProgress,
    ReloadFailed,
    UnknownQuiz,
    UnsupportedLanguage,
)
from bot.domain.learning import Memory
from bot.domain.payloads import AnswerPayload, Payload, RoundPayload
from bot.domain.pipeline import timeline
from bot.domain.quiz import Question, Quiz
from bot.domain.results import (
    Actor,
    AnswerOutcome,
    AnswerResult,
    LanguageSet,
    Leaderboard,
    LeaderboardRow,
    MissedQuestion,
    NotYours,
    PressOutcome,
    QuestionPrompt,
    QuestionStat,
    QuizInfo,
    ResetCancelled,
    ResetDone,
    SessionKind,
    StaleAnswer,
    Summary,
    UnknownButton,
    UserStats,
)
from bot.domain.round_results import PressOutcome as RoundPressOutcome
from bot.features.review import Study
from bot.store.protocol import AnswerRow, NewAnswer, NewSession, SessionRow, Store, Write

GLOBAL, CHAT = "global", "chat"


class RoundPresser(Protocol):
    """Where a round's lettered buttons go (`bot.features.rounds.Rounds`)."""

    async def press(self, actor: Actor, round_id: int, qindex: int, option: int,
                    ) -> RoundPressOutcome: ...


class NothingMissed(NothingToReview):
    """The last attempt had no wrong answers."""

    key = "error.perfect_nothing_to_review"


class Engine(Study):
    """Runs quizzes for any platform on top of a `Store` (spaced review: `bot.features.review`)."""

    def __init__(
        self,
        store: Store,
        quizzes: Mapping[str, Quiz],
        *,
        languages: tuple[str, ...] = ("en", "ur"),
        default_lang: str = "en",
        default_quiz: str | None = None,
        shuffle_questions: bool = False,
        admins: Mapping[str, frozenset[str]] | None = None,
        rng: random.Random | None = None,
        reload: Callable[[], Mapping[str, Quiz]] | None = None,
        observer: Observer | None = None,  # metrics hook (issue 14)
        clock: Callable[[], float] = time.time,
        memory: Memory | None = None,
        due_titles: Mapping[str, str] | None = None,
    ) -> None:
        if not quizzes:
            raise ValueError("the engine needs at least one quiz")
        if default_quiz is not None and default_quiz not in quizzes:
            raise UnknownQuiz(quiz=default_quiz)
        self.store = store
        self._quizzes = dict(quizzes)
        self.languages = languages
        self.default_lang = default_lang
        self._default_quiz = default_quiz
        self._shuffle_questions = shuffle_questions
        self._admins = {k: frozenset(map(str, v)) for k, v in (admins or {}).items()}
        self._rng = rng or random.Random()
        self._reload = reload
        self._observer = observer
        self.clock = clock  # epoch seconds; tests pass a simulated clock
        self.memory = memory or Memory()
        self._due_titles = dict(due_titles or {"en": "Spaced review"})
        self._due_cache = None
        self.rounds: RoundPresser | None = None  # set by the composition root

    # --- quizzes and languages ----------------------------------------------------------------

    def quiz(self, quiz_id: str | None = None) -> Quiz:
        """The quiz with this id, or the default one."""
        quiz_id = quiz_id or self._default_quiz or min(self._quizzes)
        try:
            return self._quizzes[quiz_id]
        except KeyError:
            raise UnknownQuiz(quiz=quiz_id) from None

    def quiz_infos(self, lang: str) -> tuple[QuizInfo, ...]:
        """Every quiz, titled in `lang`, sorted by id."""
        return tuple(self.quiz_info(lang, quiz_id) for quiz_id in sorted(self._quizzes))

    def quiz_info(self, lang: str, quiz_id: str | None = None) -> QuizInfo:
        """One quiz (the default one if not named), titled in `lang`."""
        quiz = self.quiz(quiz_id)
        return QuizInfo(quiz.id, quiz.title.get(lang), quiz.description.get(lang),
                        quiz.difficulty, len(quiz.questions), quiz.languages)

    def resolve_language(self, chosen: str | None, locale: str | None) -> str:
        """The user's choice, else their app's language if we ship it, else the default."""
        if chosen in self.languages:
            return chosen
        hint = (locale or "").split("-")[0].split("_")[0].lower()
        return hint if hint in self.languages else self.default_lang

    async def language(self, actor: Actor) -> str:
        """The language to talk to this user in (registers the user on first contact)."""
        chosen = await self.store.touch_user(actor.platform, actor.user_id, actor.display_name)
        return self.resolve_language(chosen, actor.locale)

    async def set_language(self, actor: Actor, lang: str) -> str:
        """Persist the user's language; raise UnsupportedLanguage for one we do not ship."""
        if lang not in self.languages:
            raise UnsupportedLanguage(lang=lang)
        await self.store.touch_user(actor.platform, actor.user_id, actor.display_name)
        await self.store.set_language(actor.platform, actor.user_id, lang)
        return lang

    def is_admin(self, actor: Actor) -> bool:
        """True when the config lists this user as an admin on their platform."""
        return actor.user_id in self._admins.get(actor.platform, frozenset())

    async def reload(self, actor: Actor) -> tuple[QuizInfo, ...]:
        """Admin only: re-read quiz files. Unfinished sessions whose questions vanished restart.

        Files that do not validate change nothing: ReloadFailed lists their problems.
        """
        if not self.is_admin(actor) or self._reload is None:
            raise NotAdmin()
        try:
            quizzes = dict(self._reload())
        except ContentError as exc:
            raise ReloadFailed(problems="\n".join(exc.problems[:10])) from exc
        self._quizzes = quizzes  # the due quiz follows: its cache is keyed by this dict
        return self.quiz_infos(await self.language(actor))

    # --- sessions --------------------------------------------------------------------------

    async def start(self, actor: Actor, quiz_id: str | None = None) -> QuestionPrompt:
        """Resume the user's unfinished session of the quiz, or start a new one."""
        quiz = self.quiz(quiz_id)
        lang = await self.language(actor)
        new = self._new_session(actor, quiz, SessionKind.FULL, quiz.questions)
        row = await self.store.start_session(new, replace=False)
        if row.kind != SessionKind.FULL or not quiz.fits(row.question_ids, row.option_orders):
            row = await self.store.start_session(new, replace=True)
        if row.position == 0 and row.question_ids == new.question_ids:
            self._started(actor)
        return self._prompt(quiz, row, row.position, lang,
                                                     resumed=row.position > 0)

    async def restart(self, actor: Actor, quiz_id: str | None = None) -> QuestionPrompt:
        """Abandon any unfinished session (kept in history) and start the quiz afresh."""
        quiz = self.quiz(quiz_id)
        lang = await self.language(actor)
        new = self._new_session(actor, quiz, SessionKind.FULL, quiz.questions)
        row = await self.store.start_session(new, replace=True)
        self._started(actor)
        return self._prompt(quiz, row, 0, lang)

    async def review(self, actor: Actor, quiz_id: str | None = None) -> QuestionPrompt:
        """A session over the questions missed in the user's last finished attempt."""
        quiz = self.quiz(quiz_id)
        lang = await self.language(actor)
        row = await self.store.active_session(actor.platform, actor.user_id, quiz.id)
        if row is not None and quiz.fits(row.question_ids, row.option_orders):
            if row.kind == SessionKind.REVIEW:
                return self._prompt(quiz, row, row.position, lang,
                                                             resumed=row.position > 0)
            if row.position > 0:
                raise QuizInProgress(number=row.position + 1, total=len(row.question_ids))
        last = await self.store.last_finished(actor.platform, actor.user_id, quiz.id)
        if last is None:
            raise NothingToReview()
        missed = {a.question_id for a in await self.store.answers(last.id) if not a.correct}
        questions = [q for q in quiz.questions if q.id in missed]
        if not questions:
            raise NothingMissed()
        new = self._new_session(actor, quiz, SessionKind.REVIEW, questions)
        row = await self.store.start_session(new, replace=True)
        self._started(actor)
        return self._prompt(quiz, row, 0, lang)

    async def current(self, actor: Actor, quiz_id: str | None = None) -> QuestionPrompt:
        """The question the user's unfinished session is at; NoActiveSession if none."""
        quiz = self.quiz(quiz_id)
        lang = await self.language(actor)
        row = await self.store.active_session(actor.platform, actor.user_id, quiz.id)
        if row is None or not quiz.fits(row.question_ids, row.option_orders):
            raise NoActiveSession()
        return self._prompt(quiz, row, row.position, lang,
                                                     resumed=True)

    def _started(self, actor: Actor) -> None:
        if self._observer is not None:  # metrics hook (issue 14)
            self._observer.session_started(actor.platform)

    def _new_session(self, actor: Actor, quiz: Quiz, kind: SessionKind,
                     questions: tuple[Question, ...] | list[Question]) -> NewSession:
        order = list(questions)
        if quiz.shuffle_questions or self._shuffle_questions:
            self._rng.shuffle(order)
        option_orders = []
        for q in order:
            perm = list(range(len(q.options)))
            self._rng.shuffle(perm)
            option_orders.append(tuple(perm))
        return NewSession(actor.platform, actor.user_id, actor.chat_id, quiz.id, kind,
                          tuple(q.id for q in order), tuple(option_orders))

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
        row, previous = await self.store.session_and_answer(session_id, position)
        if row is None:
            return StaleAnswer(session_id, await self.language(actor), None)
        if (row.platform, row.user_id) != (actor.platform, actor.user_id):
            return NotYours(session_id, await self.language(actor))
        lang = self.resolve_language(row.lang, actor.locale)
        quiz = self.session_quiz(row.quiz_id)
        if quiz is None or not quiz.fits(row.question_ids, row.option_orders):
            return StaleAnswer(session_id, lang, None)
        if previous is not None:
            return await self._result(quiz, row, previous, lang, duplicate=True)
        if (not row.active or position != row.position
                or not 0 <= option < len(row.option_orders[position])):
            return StaleAnswer(session_id, lang, self._where(quiz, row, lang))
        question = _question(quiz, row, position)
        chosen = row.option_orders[position][option]
        finished = position + 1 == len(row.question_ids)
        correct = chosen == question.correct
        recorded = await self.store.record_answer(NewAnswer(
            session_id=session_id, position=position, question_id=question.id, chosen=chosen,
            correct=correct, finished=finished, quiz_id=quiz.id,
            platform=row.platform, user_id=row.user_id, chat_id=row.chat_id,
            total=len(row.question_ids), kind=row.kind,
            review=self.review_of(row, question.id, position, correct, sure)))
        if recorded.outcome == Write.STALE:  # moved on meanwhile (another process, a reset)
            now = await self.store.get_session(session_id)
            return StaleAnswer(session_id, lang, self._where(quiz, now, lang))
        assert recorded.answer is not None
        if recorded.outcome == Write.REPEAT:
            return await self._result(quiz, row, recorded.answer, lang, duplicate=True)
        if self._observer is not None:  # metrics hook (issue 14)
            self._observer.answer_recorded(row.platform, recorded.answer.correct)
            if finished:
                self._observer.session_finished(row.platform)
        after = replace(row, position=position + 1, score=recorded.score,
                        status="finished" if finished else "active")
        return await self._result(quiz, after, recorded.answer, lang, duplicate=False,
                                  sure=sure)

    def _where(self, quiz: Quiz, row: SessionRow | None, lang: str) -> QuestionPrompt | None:
        """The question an active session is at, if it still fits the quiz."""
        if row is None or not row.active or not quiz.fits(row.question_ids, row.option_orders):
            return None
        return self._prompt(quiz, row, row.position, lang)

    async def _result(self, quiz: Quiz, row: SessionRow, answer: AnswerRow, lang: str,
                      *, duplicate: bool, sure: bool | None = None) -> AnswerResult:
        question = _question(quiz, row, answer.position)
        order = row.option_orders[answer.position]
        is_last = answer.position + 1 == len(row.question_ids)
        why_not = question.options[answer.chosen].why_not
        score = row.score if not duplicate else None
        summary = await self._summary(quiz, row, lang) if is_last else None
        if score is None:  # a repeat: report the score as it stood right after that answer
            answers = await self.store.answers(row.id)
            score = sum(a.correct for a in answers if a.position <= answer.position)
        return AnswerResult(
            session_id=row.id, lang=lang,
            question=self._prompt(quiz, row, answer.position, lang),
            chosen=order.index(answer.chosen), correct=order.index(question.correct),
            is_correct=answer.correct, explanation=question.explanation.get(lang),
            rationale=why_not.get(lang) if why_not and not answer.correct else None,
            references=question.references, answered=answer.position + 1, score=score,
            next=None if is_last else self._prompt(quiz, row, answer.position + 1, lang),
            summary=summary, duplicate=duplicate, image=question.image,
            timeline=timeline(question.schedule) if question.schedule else None, sure=sure)

    async def _summary(self, quiz: Quiz, row: SessionRow, lang: str) -> Summary:
        answers = await self.store.answers(row.id)
        missed = []
        for a in answers:
            if not a.correct and (q := quiz.question(a.question_id)) is not None:
                missed.append(MissedQuestion(a.position, q.id, q.text.get(lang),
                                             q.options[q.correct].text.get(lang)))
        best = None
        if row.kind == SessionKind.FULL:
            best = await self.store.best_of(quiz.id, row.platform, row.user_id)
        return Summary(
            session_id=row.id, quiz_id=quiz.id, quiz_title=quiz.title.get(lang), lang=lang,
            kind=row.kind, score=sum(a.correct for a in answers), total=len(row.question_ids),
            missed=tuple(missed), best_score=best)

    def _prompt(self, quiz: Quiz, row: SessionRow, position: int, lang: str,
                *, resumed: bool = False) -> QuestionPrompt:
        question = _question(quiz, row, position)
        return QuestionPrompt(
            session_id=row.id, quiz_id=quiz.id, quiz_title=quiz.title.get(lang), lang=lang,
            kind=row.kind, position=position, total=len(row.question_ids),
            question_id=question.id, text=question.text.get(lang),
            options=tuple(question.options[i].text.get(lang)
                          for i in row.option_orders[position]),
            resumed=resumed, confidence=row.confidence)

    # --- buttons ----------------------------------------------------------------------------

    async def press(self, actor: Actor, data: Payload | None) -> PressOutcome:
        """Any button of ours, decoded by `bot.domain.payloads`: the one place that decides who may
        press what. An answer belongs to its session's owner (checked in `answer`); every
        other button names its owner in the payload; anyone else gets `NotYours`."""
        if isinstance(data, AnswerPayload):
            return await self.answer(actor, data.session_id, data.position, data.option,
                                     sure=data.sure)
        if data is None:
            return UnknownButton(await self.language(actor))
        if isinstance(data, RoundPayload):  # anyone in the chat may press a round's button
            if self.rounds is None:
                return UnknownButton(await self.language(actor))
            return await self.rounds.press(actor, data.round_id, data.qindex, data.option)
        if data.owner and data.owner != actor.user_id:
            return NotYours(0, await self.language(actor))
        arg = data.arg or None
        if data.action == "start":
            return await self.start(actor, arg)
        if data.action == "retry":
            return await self.restart(actor, arg)
        if data.action == "review":
            return await self.review(actor, arg)
        if data.action == "due":
            return await self.review_due(actor)
        if data.action == "conf":
            return await self.set_confidence(actor, data.arg == "on")
        if data.action == "lang":
            return LanguageSet(await self.set_language(actor, data.arg), self.quiz().id)
        if data.action == "reset":
            choice = data.arg.partition("-")[0]  # q1 buttons said "yes-<user id>"
            if choice == "yes":
                return ResetDone(await self.language(actor), await self.reset(actor))
            return ResetCancelled(await self.language(actor))
        return UnknownButton(await self.language(actor))

    # --- stats, leaderboards, reset ------------------------------------------------------------

    async def stats(self, actor: Actor, quiz_id: str | None = None, *,
                    member: Actor | None = None) -> UserStats:
        """Attempts, best and last score, accuracy per question, for the user or `member`."""
        quiz = self.quiz(quiz_id)
        lang = await self.language(actor)
        who = member or actor
        attempts, best, last = await self.store.attempts(who.platform, who.user_id, quiz.id)
        per_question = await self.store.question_stats(who.platform, who.user_id, quiz.id)
        questions = tuple(
            QuestionStat(q.id, q.text.get(lang), *per_question.get(q.id, (0, 0)))
            for q in quiz.questions)
        own = (who.platform, who.user_id) == (actor.platform, actor.user_id)
        return UserStats(lang, quiz.id, quiz.title.get(lang), who.display_name, attempts, best,
                         last, len(quiz.questions), questions, own=own)

    async def leaderboard(self, actor: Actor, quiz_id: str | None = None, *,
                          scope: str = CHAT, limit: int = 10) -> Leaderboard:
        """Best scores in the actor's chat (or globally), ties broken by earlier finish."""
        quiz = self.quiz(quiz_id)
        lang = await self.language(actor)
        if scope == CHAT and actor.chat_id:
            key = f"{actor.platform}:{actor.chat_id}"
        else:
            scope, key = GLOBAL, ""
        rows = await self.store.best(quiz.id, key, limit)
        return Leaderboard(lang, quiz.id, quiz.title.get(lang), scope, tuple(
            LeaderboardRow(i, r.display_name or r.user_id, r.platform, r.user_id, r.score,
                           r.total, r.finished_at)
            for i, r in enumerate(rows, 1)))

    async def reset(self, actor: Actor) -> int:
        """Delete the user's sessions, answers and scores; return how many sessions went."""
        return await self.store.reset_user(actor.platform, actor.user_id)


def _question(quiz: Quiz, row: SessionRow, position: int) -> Question:
    question = quiz.question(row.question_ids[position])
    assert question is not None  # Quiz.fits() was checked
    return question

