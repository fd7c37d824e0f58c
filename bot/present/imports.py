"""What teachers' own quizzes make the bot say: how the welcome and /help count what is on
offer, and what an upload is told (in the uploader's language)."""

from __future__ import annotations

from bot.domain.results import QuizCount
from bot.present.i18n import Catalogue


def offer(cat: Catalogue, lang: str, quizzes: QuizCount, built_in: str) -> str:
    """What is on offer, true whatever was added: quizbot's own quizzes on parallelism
    (`built_in`, the key saying so), then the ones added here (which may be on any
    subject), or only those."""
    if not quizzes.built_in:
        return cat.t(lang, "offer.own", count=quizzes.own)
    return cat.t(lang, built_in, count=quizzes.built_in) + (
        cat.t(lang, "offer.own_too", count=quizzes.own) if quizzes.own else "")
