"""The finished summary in the terminal, which folds nothing: every missed question once,
in full, with no "…and N more" and no second copy below."""

from __future__ import annotations

import pytest

from adapters.terminal.play import UNFOLDED, card_text
from bot.domain.quiz import Quiz
from bot.domain.results import Actor, MissedQuestion, SessionKind, Summary
from bot.present.i18n import Catalogue, strip_isolates
from bot.present.plan import Planner
from bot.present.render import PLAIN


def all_missed(quiz: Quiz, lang: str) -> Summary:
    return Summary(1, quiz.id, quiz.title.get(lang), lang, SessionKind.FULL, 0,
                   len(quiz.questions),
                   tuple(MissedQuestion(i, q.id, q.text.get(lang),
                                        q.options[q.correct].text.get(lang))
                         for i, q in enumerate(quiz.questions)), best_score=0)


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_every_missed_question_is_printed_once_in_full(catalogue: Catalogue,
                                                       quizzes: dict[str, Quiz], lang: str):
    quiz = quizzes["parallelism-deep"]  # 22 questions: over one chat card when all are missed
    summary = all_missed(quiz, lang)
    me = Actor("terminal", "me", None, "me")
    card = Planner(catalogue, UNFOLDED, shared_chats=False).summary(summary, me)
    text = strip_isolates(card_text(card))
    assert card.detail == ""
    for miss in summary.missed:
        assert text.count(strip_isolates(miss.text)) == 1, miss.question_id
    more = strip_isolates(catalogue.t(lang, "summary.missed_more", count=9)).split("9")[0]
    assert more not in text
    # a chat app folds the full list away and names three in the body: the same summary
    chat = Planner(catalogue, PLAIN, shared_chats=False).summary(summary, me)
    assert chat.detail and strip_isolates(summary.missed[5].text) not in chat.body
