"""Helpers shared by tests: find answers through the quiz file, not through the engine."""

from __future__ import annotations

from bot.domain.quiz import Quiz
from bot.domain.results import QuestionPrompt


def right_option(quizzes: dict[str, Quiz], prompt: QuestionPrompt) -> int:
    """The shown index of the right answer, found through the quiz file, not the engine."""
    question = quizzes[prompt.quiz_id].question(prompt.question_id)
    assert question is not None
    text = question.options[question.correct].text.get(prompt.lang)
    return prompt.options.index(text)


def wrong_option(quizzes: dict[str, Quiz], prompt: QuestionPrompt) -> int:
    return (right_option(quizzes, prompt) + 1) % len(prompt.options)
