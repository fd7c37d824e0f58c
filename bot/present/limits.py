"""Platform message limits, checked on the rendered text of every question at load time."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

from bot.domain.platforms import PLATFORMS, card_limit
from bot.domain.results import AnswerResult, QuestionPrompt, SessionKind
from bot.present.i18n import LRI, PDI, Catalogue, is_rtl, titled
from bot.present.render import answered_body, feedback_text, question_header, question_text

if TYPE_CHECKING:
    from bot.domain.quiz import Question, Quiz

# A question goes out as one card (a Telegram message, a Discord embed), and so does the
# answered question, which carries the explanation (the plan edits the question into it).
QUESTION_LIMIT = card_limit()
FEEDBACK_LIMIT = card_limit()


@cache
def _catalogue() -> Catalogue:
    return Catalogue.load()


def sample_prompt(quiz: Quiz, question: Question, lang: str) -> QuestionPrompt:
    """The question as the engine would show it (option order does not change the size)."""
    return QuestionPrompt(
        session_id=1, quiz_id=quiz.id, quiz_title=quiz.title.get(lang), lang=lang,
        kind=SessionKind.FULL, position=len(quiz.questions) - 1, total=len(quiz.questions),
        question_id=question.id, text=question.text.get(lang),
        options=tuple(o.text.get(lang) for o in question.options), resumed=True,
    )


def worst_feedback(quiz: Quiz, question: Question, lang: str) -> AnswerResult:
    """The longest explanation message this question can produce: wrong, longest why-not."""
    prompt = sample_prompt(quiz, question, lang)
    wrong = [i for i in range(len(question.options)) if i != question.correct]
    chosen = max(wrong, key=lambda i: len(_why(question, i, lang) or ""))
    return AnswerResult(
        session_id=1, lang=lang, question=prompt, chosen=chosen, correct=question.correct,
        is_correct=False, explanation=question.explanation.get(lang),
        rationale=_why(question, chosen, lang), references=question.references,
        answered=1, score=0, next=None, summary=None,
    )


def _why(question: Question, index: int, lang: str) -> str | None:
    why = question.options[index].why_not
    return why.get(lang) if why else None


def answered_size(cat: Catalogue, result: AnswerResult) -> int:
    """Characters of the answered-question message: header, marked options, explanation."""
    return (len(question_header(cat, result.question)) + 2 + len(answered_body(cat, result))
            + 2 + len(feedback_text(cat, result)))


def check_rendered_sizes(quiz: Quiz, catalogue: Catalogue | None = None) -> list[str]:
    """One problem per question and language whose rendered text is over a platform limit."""
    cat = catalogue or _catalogue()
    problems = []
    for i, question in enumerate(quiz.questions):
        where = f"{quiz.source}:{question.line}: questions[{i}]"
        for lang in quiz.languages:
            size = len(question_text(cat, sample_prompt(quiz, question, lang)))
            if size > QUESTION_LIMIT:
                problems.append(
                    f"{where} ({lang}) renders to {size} characters with its options; "
                    f"one Telegram message / Discord embed holds {QUESTION_LIMIT}")
            size = answered_size(cat, worst_feedback(quiz, question, lang))
            if size > FEEDBACK_LIMIT:
                problems.append(
                    f"{where}.explanation ({lang}) renders to {size} characters with the "
                    f"question, its why_not and references; one Telegram message / Discord "
                    f"embed holds {FEEDBACK_LIMIT}")
    return problems


# What a reply lists (an upload's problems): the first 20, each cut to 300 characters, and
# in all half of the smallest plain message a chat app takes (Discord's 2,000) less the
# words around them, since escaping for Markdown may double every character.
SHOWN_LINES, LINE_CHARS = 20, 300
LIST_CHARS = (min(p.content_limit for p in PLATFORMS.values() if p.chat_app) - 200) // 2


AND_MORE = " and {more} more"  # after the lines `grouped` names; in chat, admin.and_more


def listing(lines: list[str], more: str = AND_MORE) -> str:
    """`lines` as one message's list: the same thing said of several lines once (`grouped`,
    `more` naming how many more lines), at most SHOWN_LINES, then "… +N"."""
    out: list[str] = []
    used = 0
    lines = grouped(lines, more)
    for line in lines[:SHOWN_LINES]:
        line = line if len(line) <= LINE_CHARS else line[:LINE_CHARS - 1] + "…"
        if used + len(line) + 3 > LIST_CHARS:
            break
        out.append(f"• {line}")
        used += len(line) + 3
    rest = len(lines) - len(out)
    return "\n".join(out + ([f"… +{rest}"] if rest else []))


def named_quizzes(lang: str, quizzes: Iterable[tuple[str, str]]) -> str:
    """Quizzes an admin picks from by id, as (id, title): the title leads, the id they type
    beside it ("Photosynthesis (photosynthesis)"), one a line (`listing`); in a
    right-to-left text each in its own direction."""
    rtl = is_rtl(lang)
    return listing([f"{titled(lang, title)} ({LRI}{quiz_id}{PDI})" if rtl
                    else f"{titled(lang, title)} ({quiz_id})" for quiz_id, title in quizzes])


_AT = re.compile(r"(.+?):(\d+): (.*)", re.DOTALL)  # "week3.csv:12: what is wrong"
GROUP_SHOWN = 3  # line numbers named when one thing is said of several lines


def grouped(lines: list[str], more: str = AND_MORE) -> list[str]:
    """`lines` with the same message about several lines of one file said once, where the
    first of them stood ("week3.csv:2, 3, 4 and 27 more: no general feedback ..."): thirty
    alike warnings filled a reply and hid the one that differed."""
    lines_of: dict[tuple[str, str], list[str]] = {}
    order: list[tuple[str, str] | str] = []
    for line in lines:
        found = _AT.fullmatch(line)
        if found is None:
            order.append(line)
            continue
        key = (found.group(1), found.group(3))
        if key not in lines_of:
            lines_of[key] = []
            order.append(key)
        lines_of[key].append(found.group(2))
    out = []
    for item in order:
        if isinstance(item, str):
            out.append(item)
            continue
        numbers, rest = lines_of[item], len(lines_of[item]) - GROUP_SHOWN
        out.append(f"{item[0]}:{', '.join(numbers[:GROUP_SHOWN])}"
                   f"{more.format(more=rest) if rest > 0 else ''}: {item[1]}")
    return out
