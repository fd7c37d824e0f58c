"""What teachers' own quizzes make the bot say: how the welcome and /help count what is on
offer, and what an upload is told (in the uploader's language)."""

from __future__ import annotations

from collections.abc import Iterable

from bot.domain.results import InstallOutcome, QuizCount
from bot.present.i18n import Catalogue
from bot.present.import_texts import said_in
from bot.present.limits import listing


def offer(cat: Catalogue, lang: str, quizzes: QuizCount, built_in: str) -> str:
    """What is on offer, true whatever was added: quizbot's own quizzes on parallelism
    (`built_in`, the key saying so), then the ones added here (which may be on any
    subject), or only those."""
    if not quizzes.built_in:
        return cat.t(lang, "offer.own", count=quizzes.own)
    return cat.t(lang, built_in, count=quizzes.built_in) + (
        cat.t(lang, "offer.own_too", count=quizzes.own) if quizzes.own else "")


def installed_text(cat: Catalogue, lang: str, done: InstallOutcome,
                   group_key: str = "admin.group_next") -> str:
    """An uploaded quiz is served: its title, size and how to start it, how a group makes
    it its quiz for rounds (`group_key`: the platform's words), then warnings."""
    warnings = (cat.t(lang, "admin.install_warnings",
                      warnings=told(cat, lang, done.warnings)) if done.warnings else "")
    key = "admin.unchanged" if done.unchanged else "admin.installed"  # version stands
    if not done.unchanged and done.before is not None:  # a new version: what it changed
        # none of its questions kept: another quiz sent under the same name, most likely
        key = "admin.updated" if done.kept else "admin.replaced"
    was = cat.t(lang, "admin.was", before=done.before) if done.before not in (None,
                                                                              done.title) else ""
    told_done = cat.t(lang, key, title=done.title, count=done.questions, id=done.quiz_id,
                      warnings="", before=done.before, was=was,
                      changes=cat.t(lang, "admin.changes", kept=done.kept, added=done.added,
                                    removed=done.removed))
    group = cat.t(lang, group_key, id=done.quiz_id)
    return f"{told_done}\n{group}{warnings}"


def told(cat: Catalogue, lang: str, messages: Iterable[str]) -> str:
    """An import's problems or warnings as one message's list, in `lang`."""
    return listing([said_in(lang, m) for m in messages], cat.raw(lang, "admin.and_more"))
