"""The sampling of computed questions, part of loading a quiz (so `validate`, `run`, `check`,
`play` and /reload give one verdict): many seeded draws per question, every draw whose
template fails, whose answer leaves its bounds or whose options cannot be made distinct
reported with file:line.

The work is bounded: SAMPLES first tries per question (each within the question's
formula-part limit), and full draws (up to MAX_TRIES tries) only for the first DRAW_CHECKS
rejected seeds, stopping at the first that finds no usable draw: a constraint no numbers
meet costs MAX_TRIES tries, not SAMPLES x MAX_TRIES."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from bot.domain.quiz.computed import MAX_TRIES, DrawFailed, Rejected, attempt, draw, draw_key
from bot.domain.quiz.model import Question, Quiz
from bot.domain.quiz.quality import quality_warnings

SAMPLES = 200
MAX_REJECTED = 0.5  # a question whose draws are mostly thrown away is badly declared
DRAW_CHECKS = 10  # rejected seeds drawn in full (the rest succeed with near certainty)
CHECK_SAMPLES = 20  # drawn versions of the quiz the size check reads
CUE_SAMPLES = 40  # drawn versions of the quiz the cue checks read
CUE_SHARE = 0.25  # a cue in more than this share of draws is the question's, not chance
_DIGITS = re.compile(r"\d[\d,.]*")


def sample_problems(quiz: Quiz, samples: int = SAMPLES, *, seed: int = 0,
                    check: Callable[[Quiz], list[str]] | None = None) -> list[str]:
    """One `file:line: message` per problem found in `samples` draws of each computed
    question (seeds seed .. seed+samples-1; deterministic). `check` (the presentation's
    size check) also reads CHECK_SAMPLES drawn versions of the quiz: filled numbers can
    make a text longer than its template."""
    problems: list[str] = []
    for i, q in enumerate(quiz.questions):
        if q.computed is not None:
            problems.extend(_question_problems(quiz, i, q, samples, seed))
    if check is not None and not problems and any(q.computed for q in quiz.questions):
        for s in range(seed, seed + CHECK_SAMPLES):
            try:
                drawn = replace(quiz, questions=tuple(draw(q, s) for q in quiz.questions))
            except DrawFailed as exc:
                return [f"{quiz.source}:{exc.rejected.line}: no usable draw in {MAX_TRIES} "
                        f"tries for seed {s}: {exc.rejected.reason}"]
            problems.extend(p for p in check(drawn) if p not in problems)
    return problems


def _question_problems(quiz: Quiz, index: int, q: Question, samples: int,
                       seed: int) -> list[str]:
    where = f"questions[{index}] ({q.id})"
    fatal: dict[tuple[int, str], int] = {}
    first: dict[tuple[int, str], str] = {}
    rejected: Counter[tuple[int, str]] = Counter()
    failed: dict[int, str] = {}
    checked = 0
    for s in range(seed, seed + samples):
        got = attempt(q, draw_key(s, q.id))  # the first try, as a learner would get it
        if not isinstance(got, Rejected):
            continue
        key = (got.line, "fatal" if got.fatal else "")
        first.setdefault(key, got.reason)
        if got.fatal:
            fatal[key] = fatal.get(key, 0) + 1
            continue
        rejected[key] += 1
        if checked < DRAW_CHECKS and not failed:
            checked += 1
            try:
                draw(q, s)
            except DrawFailed as exc:
                failed[exc.rejected.line] = exc.rejected.reason
    out = [f"{quiz.source}:{line}: {where}: {first[(line, kind)]} (in {n} of {samples} draws)"
           for (line, kind), n in sorted(fatal.items())]
    out += [f"{quiz.source}:{line}: {where}: no usable draw in {MAX_TRIES} tries: {reason}"
            for line, reason in sorted(failed.items())
            if (line, "fatal") not in fatal]  # already said, with how often
    total = sum(rejected.values())
    if total > MAX_REJECTED * samples and not failed:
        (line, kind), n = rejected.most_common(1)[0]
        out.append(f"{quiz.source}:{line}: {where}: {total} of {samples} draws are thrown away "
                   f"(most often: {first[(line, kind)]}, {n} times); narrow the parameters "
                   "or add a constraint")
    return out


def _cue(warning: str) -> str:
    """A quality warning with its numbers masked: the numbers differ per draw, the cue not."""
    head, _, tail = warning.partition(") ")
    return head + ") " + _DIGITS.sub("#", tail)


def drawn_warnings(quiz: Quiz, samples: int = CUE_SAMPLES) -> list[str]:
    """The quality checks (`bot.domain.quiz.quality`) on drawn versions of a quiz with
    computed questions: a cue found in more than CUE_SHARE of the draws is reported once,
    with how often (the templates alone show no numbers to check)."""
    if not any(q.computed is not None for q in quiz.questions):
        return []
    seen: Counter[str] = Counter()
    first: dict[str, str] = {}
    # a cue the undrawn quiz shows is `quality_warnings`' to report: said once, not again
    # with "(in 40 of 40 draws)" as if the numbers made it
    told = {_cue(w) for w in quality_warnings(quiz)}
    for seed in range(samples):
        try:
            drawn = replace(quiz, questions=tuple(draw(q, seed) for q in quiz.questions))
        except DrawFailed:
            continue  # sample_problems reports it
        for warning in quality_warnings(drawn):
            key = _cue(warning)
            if key in told:
                continue
            seen[key] += 1
            first.setdefault(key, warning)
    return [f"{first[key]} (in {n} of {samples} draws)"
            for key, n in seen.items() if n > CUE_SHARE * samples]
