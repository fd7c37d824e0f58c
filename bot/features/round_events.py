"""Round rows to what the chat sees: a stored round and its answers become the question
and reveal events (`bot.domain.round_results`) a platform's planner renders."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from bot.domain.quiz import Question, Quiz
from bot.domain.quiz.computed import draw, seed_of
from bot.domain.round_results import RoundQuestion, RoundReveal, Standing
from bot.features.round_scores import daily_notes, standings_of, team_standings
from bot.store.round_rows import RoundAnswer, RoundPost, RoundRow


class Quizzes(Protocol):
    def quiz(self, quiz_id: str | None = None) -> Quiz:
        """The quiz with this id, or the default one."""


class RoundEvents:
    """Builds round events from rows; quizzes come from `engine` (a reload may drop one)."""

    def __init__(self, engine: Quizzes) -> None:
        self.engine = engine

    def quiz(self, row: RoundRow) -> Quiz | None:
        try:
            return self.engine.quiz(row.quiz_id)
        except Exception:  # the quiz file went away in a reload
            return None

    def drawn(self, quiz: Quiz | None, row: RoundRow, qindex: int) -> Question | None:
        """The round's question `qindex`, with the round's numbers (one draw for all)."""
        question = quiz.question(row.question_ids[qindex]) if quiz else None
        return None if question is None else draw(question, seed_of(row.seed, row.id))

    def question(self, row: RoundRow, qindex: int, deadline: float) -> RoundQuestion:
        quiz = self.quiz(row)
        question = self.drawn(quiz, row, qindex)
        lang = row.lang
        if quiz is None or question is None:
            text, options = row.question_ids[qindex], tuple("?" for _ in row.option_orders[qindex])
            title = row.quiz_id
        else:
            text = question.text.get(lang)
            options = tuple(question.options[i].text.get(lang) for i in row.option_orders[qindex])
            title = quiz.title.get(lang)
        return RoundQuestion(row.id, row.platform, row.chat_id, lang, title, row.host_name,
                             qindex, row.total, text, options, row.seconds, deadline,
                             row.untimed, row.kind == "daily")

    @staticmethod
    def standings(row: RoundRow, answers: tuple[RoundAnswer, ...]) -> tuple[Standing, ...]:
        return standings_of(answers, row.scoring, row.seconds, timed=not row.untimed)

    def reveal(self, reveal: RoundPost, *, stopped: bool = False) -> RoundReveal:
        row, qindex, revealed_at = reveal.round, reveal.qindex, reveal.revealed_at or 0.0
        quiz = self.quiz(row)
        standings = self.standings(row, reveal.answers)
        teams = (team_standings(standings, reveal.members, row.teams) if row.teams else ())
        base = RoundReveal(
            round_id=row.id, platform=row.platform, chat_id=row.chat_id, lang=row.lang,
            quiz_title=quiz.title.get(row.lang) if quiz else row.quiz_id, question=None,
            correct=-1, counts=(), right=(), explanation="", standings=standings,
            message_ref=reveal.message_ref, final=reveal.final,
            stopped=stopped or row.status == "stopped", next_at=row.next_open_at,
            revealed_at=revealed_at, last_qindex=row.position, scoring=row.scoring,
            untimed=row.untimed, teams=teams, quiz_id=row.quiz_id,
            joined=len(reveal.members), idle=row.ended_idle,
            lobby_ref=row.lobby_ref if row.status != "active" else None,
            daily=(daily_notes(reveal.history, revealed_at)
                   if reveal.history is not None else None))
        if reveal.deadline is None:  # a stop between questions: the standings alone
            return base
        order = row.option_orders[qindex]
        question = self.drawn(quiz, row, qindex)
        here = [a for a in reveal.answers if a.qindex == qindex]
        counts = [0] * len(order)
        for a in here:
            if a.chosen in order:
                counts[order.index(a.chosen)] += 1
        right = tuple(a.display_name
                      for a in sorted(here, key=lambda a: a.elapsed) if a.correct)
        return replace(
            base, question=self.question(row, qindex, reveal.deadline),
            correct=order.index(question.correct) if question else -1, counts=tuple(counts),
            right=right, explanation=question.explanation.get(row.lang) if question else "",
            takeaway=question.takeaway.get(row.lang) if question and question.takeaway else "")
