"""Every check `quizbot validate` runs on quiz files, in one place: the loader's (which
also checks the rendered sizes and samples the draws of computed questions: the verdict
`run`, `check`, `play` and /reload share), the quality cues and the glossary.
`quizbot import` and an upload in chat run the same ones on what they convert."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.domain.errors import ContentError
from bot.domain.quiz import (
    Quiz,
    default_content_dir,
    load_all,
    quality_warnings,
    takeaway_warnings,
)
from bot.domain.quiz.glossary import (
    Glossary,
    glossary_for,
    glossary_warnings,
    load_glossary,
    strings_warnings,
)
from bot.domain.quiz.lint import lint_warnings
from bot.domain.quiz.sampling import SAMPLES, drawn_warnings
from bot.present.i18n import LOCALES_DIR
from bot.present.limits import check_rendered_sizes


@dataclass(slots=True)
class Checked:
    quizzes: dict[str, Quiz] = field(default_factory=dict)  # the valid ones
    summaries: list[str] = field(default_factory=list)  # one line per valid quiz
    warnings: list[str] = field(default_factory=list)  # do not fail the check
    problems: list[str] = field(default_factory=list)  # each fails it


def check_paths(paths: Sequence[Path], *, ui_strings: bool = True,
                takeaways: bool = True) -> Checked:
    """Every problem and warning in the quiz files under `paths` (`ui_strings`: also the
    UI strings against the glossaries used; `takeaways`: also each missing takeaway)."""
    quizzes, problems = load_all(paths, check=check_rendered_sizes)
    out = Checked(problems=problems)
    glossaries: dict[Path, Glossary] = {}
    for quiz in quizzes.values():  # loaded: its computed questions' draws were sampled
        out.quizzes[quiz.id] = quiz
        drawn = sum(q.computed is not None for q in quiz.questions)
        numbers = f", {drawn} computed ({SAMPLES} draws each)" if drawn else ""
        out.summaries.append(f"{quiz.source}: {quiz.id} ({quiz.level}), "
                             f"{len(quiz.questions)} question"
                             f"{'' if len(quiz.questions) == 1 else 's'}{numbers}, languages "
                             f"{', '.join(quiz.languages)}")
        out.warnings += (quality_warnings(quiz) + drawn_warnings(quiz) + lint_warnings(quiz)
                         + (takeaway_warnings(quiz) if takeaways else []))
        found = glossary_for(Path(quiz.source), default_content_dir())
        if found is not None:
            try:
                glossary = glossaries.setdefault(found, load_glossary(found))
            except ContentError as exc:
                out.problems += [p for p in exc.problems if p not in out.problems]
            else:
                out.warnings += glossary_warnings(glossary, quiz)
    for glossary in glossaries.values() if ui_strings else ():
        for suffix in (".yaml", ".po"):  # the UI strings follow the same vocabulary
            out.warnings += strings_warnings(glossary, LOCALES_DIR / f"{glossary.language}{suffix}")
    return out
