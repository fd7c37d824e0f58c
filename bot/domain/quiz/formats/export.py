"""A quiz made ready for the formats teachers use, in one language: each question as plain
multiple choice, or (Moodle XML only) a computed question as Moodle's `calculatedmulti`
where it maps; otherwise one drawn version of it, with a note saying so. The writers are
`gift.write`, `moodle_xml.write` and `table.write`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bot.domain.quiz.computed import DrawFailed, draw, drawn_text
from bot.domain.quiz.formats.calculated import Calculated, Unmapped, to_calculated
from bot.domain.quiz.model import Question, Quiz

EXPORT_FORMATS = ("gift", "moodle-xml", "csv")
DRAWN_SEED = 0  # the numbers of "one drawn version": the same on every export


@dataclass(slots=True)
class Plain:
    id: str
    text: str
    options: list[tuple[str, str]]  # (text, why_not)
    correct: int
    explanation: str
    category: str = ""
    image: Path | None = None


@dataclass(slots=True)
class Prepared:
    quiz: Quiz
    lang: str
    questions: list[Plain | Calculated] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # one line per question not kept as is


def prepare(quiz: Quiz, lang: str, *, calculated: bool) -> Prepared:
    """`quiz` in `lang`; `calculated`: the target has Moodle's calculatedmulti."""
    out = Prepared(quiz, lang)
    for q in quiz.questions:
        category = quiz.topic_name(q.topics[0], lang) if q.topics else ""
        if q.computed is not None and calculated:
            try:
                out.questions.append(to_calculated(q, lang, category))
                continue
            except Unmapped as exc:
                why = str(exc)
        elif q.computed is not None:
            why = "the format has no computed questions"
        if q.computed is not None:
            try:
                q = draw(q, DRAWN_SEED)
            except DrawFailed as exc:
                out.notes.append(f"{q.id}: left out: no numbers could be drawn ({exc})")
                continue
            out.notes.append(f"{q.id}: exported as one drawn version ({drawn_text(q.drawn)}): "
                             f"{why}")
        out.questions.append(_plain(q, lang, category))
    return out


def left_out(quiz: Quiz, lang: str) -> list[str]:
    """What no export format carries, said once for the whole quiz: the other languages,
    takeaways, references and every topic but the first (the category)."""
    out = [f"only the {lang!r} text is written; --lang {other} writes the {other!r} one"
           for other in quiz.languages if other != lang]
    counted = {"the takeaway": sum(q.takeaway is not None for q in quiz.questions),
               "the references": sum(bool(q.references) for q in quiz.questions),
               "every topic but the first (the category)":
                   sum(len(q.topics) > 1 for q in quiz.questions)}
    out += [f"left out (no export format carries it): {what} of {n} "
            f"question{'s' if n > 1 else ''}" for what, n in counted.items() if n]
    return out


def _plain(q: Question, lang: str, category: str) -> Plain:
    return Plain(q.id, q.text.get(lang),
                 [(o.text.get(lang), o.why_not.get(lang) if o.why_not else "")
                  for o in q.options],
                 q.correct, q.explanation.get(lang), category, q.image)
