"""A quiz made ready for the formats teachers use, in one language: each question as plain
multiple choice, or (Moodle XML only) a computed question as Moodle's `calculatedmulti`
where it maps; otherwise one drawn version of it, with a note saying so. The writers are
`gift.write`, `moodle_xml.write` and `table.write`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bot.domain.quiz.computed import DrawFailed, draw, drawn_text, drawn_values
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
class Typed:
    """A typed-number question with fixed numbers (`params: {}` and `absolute_tolerance`, as
    Moodle's numerical and GIFT's {#...} import to): written back as one."""

    id: str
    text: str
    answers: list[tuple[str, float, float, str]]  # (value, tolerance, fraction, feedback)
    explanation: str
    unit: str = ""  # the word its options show after the number ("nm")
    category: str = ""
    image: Path | None = None


@dataclass(slots=True)
class Prepared:
    quiz: Quiz
    lang: str
    questions: list[Plain | Calculated | Typed] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # one line per question not kept as is


def prepare(quiz: Quiz, lang: str, *, calculated: bool, typed: bool = False) -> Prepared:
    """`quiz` in `lang`; `calculated`: the target has Moodle's calculatedmulti; `typed`: it
    has typed-number questions (Moodle's numerical, GIFT's {#...})."""
    out = Prepared(quiz, lang)
    for q in quiz.questions:
        category = quiz.topic_name(q.topics[0], lang) if q.topics else ""
        fixed = q.computed is not None and q.computed.absolute is not None \
            and not q.computed.choices[0].value.names
        if fixed and typed:
            try:
                out.questions.append(_typed(q, lang, category))
                continue
            except DrawFailed as exc:
                out.notes.append(f"{q.id}: left out: no numbers could be drawn ({exc})")
                continue
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


def _typed(q: Question, lang: str, category: str) -> Typed:
    """A typed-number question with a fixed answer: the answer at 100% within its absolute
    tolerance, each fixed named mistake at 0% (exactly) with its why-not (buttons of ours,
    drawn per attempt, are not the teacher's and are left out)."""
    c = q.computed
    assert c is not None and c.absolute is not None
    drawn = draw(q, DRAWN_SEED)
    _env, values = drawn_values(q, DRAWN_SEED)
    answers = [(f"{float(v):.15g}", c.absolute if k == 0 else 0.0, 100.0 if k == 0 else 0.0,
                "" if k == 0 or o.why_not is None else o.why_not.get(lang))
               for k, (v, o, choice) in enumerate(zip(values, drawn.options, c.choices,
                                                      strict=True))
               if not choice.value.names]
    source = dict(c.choices[0].text)[lang].source
    word = source[source.rfind("}") + 1:].strip()
    return Typed(q.id, drawn.text.get(lang), answers, drawn.explanation.get(lang), word,
                 category, q.image)


def _plain(q: Question, lang: str, category: str) -> Plain:
    return Plain(q.id, q.text.get(lang),
                 [(o.text.get(lang), o.why_not.get(lang) if o.why_not else "")
                  for o in q.options],
                 q.correct, q.explanation.get(lang), category, q.image)
