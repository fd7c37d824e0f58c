"""Quality checks that do not stop a quiz from loading: `quizbot validate` prints them as
warnings. A hard quiz should not be answerable from the shape of its options alone."""

from __future__ import annotations

import re

from bot.domain.quiz.model import Question, Quiz

REPEAT_WORDS = 4  # an option sharing this many consecutive words with its question
_WORD = re.compile(r"\w+(?:[-'’.]\w+)*")


def quality_warnings(quiz: Quiz) -> list[str]:
    """One `file:line: message` per problem: the right option is the longest in most
    questions (per language), or an option repeats its question's wording."""
    warnings = []
    total = len(quiz.questions)
    for lang in quiz.languages:
        longest = sum(_right_is_longest(q, lang) for q in quiz.questions)
        if total >= 3 and 2 * longest > total:
            warnings.append(
                f"{quiz.source}:1: ({lang}) the right option is the longest in {longest} of "
                f"{total} questions; a learner can pick it without knowing the answer")
    for i, q in enumerate(quiz.questions):
        for j, option in enumerate(q.options):
            for lang in quiz.languages:
                shared = _shared_run(q.text.get(lang), option.text.get(lang))
                if shared:
                    warnings.append(
                        f"{quiz.source}:{option.line or q.line}: questions[{i}].options[{j}] "
                        f"({lang}) repeats the question's wording ({shared!r})")
                    break
    return warnings


def _right_is_longest(q: Question, lang: str) -> bool:
    right = len(q.options[q.correct].text.get(lang))
    return all(right > len(o.text.get(lang)) for k, o in enumerate(q.options) if k != q.correct)


def _shared_run(question: str, option: str) -> str | None:
    """The first run of REPEAT_WORDS consecutive words the option takes from the question."""
    asked = [w.lower() for w in _WORD.findall(question)]
    said = [w.lower() for w in _WORD.findall(option)]
    grams = {tuple(asked[k:k + REPEAT_WORDS]) for k in range(len(asked) - REPEAT_WORDS + 1)}
    for k in range(len(said) - REPEAT_WORDS + 1):
        if tuple(said[k:k + REPEAT_WORDS]) in grams:
            return " ".join(said[k:k + REPEAT_WORDS])
    return None
