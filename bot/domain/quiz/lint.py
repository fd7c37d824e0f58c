"""Warnings about what a quiz says, beside the cue checks of `bot.domain.quiz.quality`:
computed questions whose key sits at the same rank in most draws or whose options crowd
together, answers one question gives away in another, explanations too long to read, and a
question or option given twice.
`quizbot validate` prints them with file:line; none stops a quiz from loading."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from itertools import combinations, pairwise

from bot.domain.quiz.computed import DrawFailed, drawn_text, drawn_values
from bot.domain.quiz.computed import draw as draw_question
from bot.domain.quiz.model import Question, Quiz
from bot.domain.quiz.quality import STOP_WORDS

RANK_SAMPLES = 200  # draws read per computed question (as `sampling.SAMPLES`)
RANK_SHARE = 0.6  # the key at the same rank in more than this share of draws is a cue
EXPLANATION_CHARS = 700  # past this an explanation is skimmed; the takeaway carries the point
LENGTH_SAMPLES = 20  # draws of a computed question whose longest explanation is measured
LEAK_SPREAD = 2  # a phrase found in more other questions than this is shared vocabulary
_WORD = re.compile(r"[^\W_]+(?:[-'’.][^\W_]+)*")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
CLAIM_SAMPLES = 200  # draws of a computed question whose comparisons are read
# "57.4 GB, far over an 80 GB GPU": a number, a comparison word and a number of the same
# unit within a few words (English, the quiz's source language).
_AMOUNT = r"(\d[\d,]*(?:\.\d+)?)\s?(TB|GB|MB|KB|ms|µs|s|%)"
_CLAIM = re.compile(
    _AMOUNT + r"(?![\w/])[^.;:\d]{0,30}?\b(far over|over|above|more than|exceeds?|beyond|"
    r"under|below|less than|within|fits? (?:in|on|within))\b[^.;:\d]{0,15}?"
    r"(\d[\d,]*(?:\.\d+)?)\s?\2(?![\w/])")
_OVER = ("far over", "over", "above", "more than", "exceed", "exceeds", "beyond")
# A number ("0.36", "7/39", "12,288"); leak_warnings keeps the distinctive ones.
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?(?:/\d+)?)(?![\w])")


def lint_warnings(quiz: Quiz) -> list[str]:
    """Every warning of this module for one quiz."""
    return (computed_warnings(quiz) + claim_warnings(quiz) + leak_warnings(quiz)
            + explanation_warnings(quiz) + repeat_warnings(quiz))


# --- computed questions: the key's rank and the gap between options -----------------------

def computed_warnings(quiz: Quiz, samples: int = RANK_SAMPLES) -> list[str]:
    """Per computed question, across `samples` seeded draws: the answer's rank among the
    option values must vary (the same rank in more than RANK_SHARE of draws lets a learner
    who replays pick it without computing), and any two options must differ by at least
    the question's `min_gap` (relative)."""
    out = []
    for i, q in enumerate(quiz.questions):
        if q.computed is not None:
            out += [f"{quiz.source}:{line}: questions[{i}] ({q.id}): {message}"
                    for line, message in _draw_cues(q, samples)]
    return out


def _draw_cues(q: Question, samples: int) -> Iterator[tuple[int, str]]:
    c = q.computed
    assert c is not None
    ranks: Counter[int] = Counter()
    close: Counter[tuple[int, int]] = Counter()
    example: dict[tuple[int, int], str] = {}
    n = 0
    for seed in range(samples):
        try:
            env, values = drawn_values(q, seed)
        except DrawFailed:
            continue  # `sample_problems` reports it
        n += 1
        ranks[sum(v < values[0] for v in values)] += 1
        for a, b in combinations(range(len(values)), 2):
            gap = _gap(values[a], values[b])
            if gap < c.min_gap:
                close[(a, b)] += 1
                example.setdefault((a, b), f"{values[a]:.4g} and {values[b]:.4g}, "
                                           f"{gap:.1%} apart, with {drawn_text(env)}")
    # fixed numbers (`params: {}`) are one version, like a question with written options
    if n and c.params and ranks.most_common(1)[0][1] > RANK_SHARE * n:
        rank, times = ranks.most_common(1)[0]
        place = ("the smallest" if rank == 0 else "the largest" if rank == len(c.choices) - 1
                 else f"number {rank + 1} from the smallest")
        yield (q.line, f"the answer is {place} of the {len(c.choices)} options in {times} of "
               f"{n} draws (at most {RANK_SHARE:.0%}); a learner who replays picks it without "
               "computing: add a mistake whose side of the answer depends on the draw (a slip "
               "drawn as an under- or an over-count, p and m swapped)")
    for (a, b), times in sorted(close.items()):
        first, second = c.choices[a], c.choices[b]
        yield (second.line, f"options {first.name!r} and {second.name!r} are less than "
               f"{100 * c.min_gap:g}% apart in {times} of {n} draws (e.g. {example[(a, b)]}); "
               "move them apart, add a `where`, or declare a smaller `min_gap`")


def _gap(a: float, b: float) -> float:
    """How far apart two values are, relative to the larger one (0 for equal ones)."""
    top = max(abs(a), abs(b))
    return abs(a - b) / top if top else 0.0


# --- words that agree with the numbers --------------------------------------------------

def claim_warnings(quiz: Quiz, samples: int = CLAIM_SAMPLES) -> list[str]:
    """A comparison the text makes between two amounts of one unit ("57.4 GB, far over an
    80 GB GPU") that the numbers contradict: in an explanation or option as written, or in
    any of `samples` draws of a computed question (say it with `{if answer > 80: ...|...}`)."""
    out = []
    lang = quiz.languages[0]
    for i, q in enumerate(quiz.questions):
        drawn = [q] if q.computed is None else list(_draws(q, samples))
        wrong: Counter[str] = Counter()
        for d in drawn:
            texts = [d.explanation.get(lang), *(o.text.get(lang) for o in d.options)]
            for claim in (c for t in texts for c in _false_claims(t)):
                wrong[claim] += 1
        for claim, n in sorted(wrong.items()):
            times = f" in {n} of {len(drawn)} draws" if q.computed is not None else ""
            out.append(f"{quiz.source}:{q.line}: questions[{i}] ({q.id}) says {claim!r}"
                       f"{times}, which its numbers contradict; say it with a condition "
                       "({if answer > 80: over|within})")
    return out


def _draws(q: Question, samples: int) -> Iterator[Question]:
    for seed in range(samples):
        try:
            yield draw_question(q, seed)
        except DrawFailed:
            continue


def _false_claims(text: str) -> Iterator[str]:
    for m in _CLAIM.finditer(text):
        first, second = (float(m.group(k).replace(",", "")) for k in (1, 4))
        over = m.group(3).startswith(_OVER)
        if (first <= second) if over else (first > second):
            yield re.sub(r"\d[\d,]*(?:\.\d+)?", "#", m.group(0))


# --- answers given away in other questions -------------------------------------------------

def leak_warnings(quiz: Quiz) -> list[str]:
    """A key's distinctive number (with a decimal point or a fraction bar, or 100 and up)
    or phrase (two adjacent content words) that is in none of its wrong options and not in
    its own question, stated in another question's options or explanation: a learner who
    has read that question knows the answer. Phrases are compared in the quiz's first
    language (the others translate it), numbers in every one; a phrase found in more than
    LEAK_SPREAD other questions is the subject's vocabulary, not a leak."""
    found: dict[tuple[int, int], set[str]] = {}
    for n, lang in enumerate(quiz.languages):
        phrases = n == 0
        said = [_units(_shown(q, lang), lang, phrases=phrases) for q in quiz.questions]
        for i, q in enumerate(quiz.questions):
            texts = [o.text.get(lang) for k, o in enumerate(q.options) if k != q.correct]
            known = set().union(*(_units(_plain(t), lang, phrases=phrases)
                                  for t in [q.text.get(lang), *texts]))
            key = _units(_plain(q.options[q.correct].text.get(lang)), lang, phrases=phrases)
            for unit in key - known:
                where = [j for j, seen in enumerate(said) if j != i and unit in seen]
                for j in where if len(where) <= LEAK_SPREAD else ():
                    found.setdefault((j, i), set()).add(unit)
    out = []
    for (j, i), leaked in sorted(found.items()):
        other, q = quiz.questions[j], quiz.questions[i]
        out.append(f"{quiz.source}:{other.line}: questions[{j}] ({other.id}) gives away the "
                   f"answer of questions[{i}] ({q.id}): its options or explanation say "
                   f"{', '.join(map(repr, sorted(leaked)))}, as that key does")
    return out


def _shown(q: Question, lang: str) -> str:
    """What a learner reads of a question besides its stem: options and explanation."""
    return _plain(" ".join([*(o.text.get(lang) for o in q.options), q.explanation.get(lang)]))


def _plain(text: str) -> str:
    """A text without the placeholders of a computed question's template."""
    return _PLACEHOLDER.sub(" ", text)


def _units(text: str, lang: str, *, phrases: bool) -> set[str]:
    """The distinctive numbers of a text and, with `phrases`, its adjacent content-word
    pairs, as leak_warnings compares them."""
    numbers = {m.group(1).replace(",", "") for m in _NUMBER.finditer(text)}
    numbers = {n for n in numbers if "." in n or "/" in n or float(n) >= 100}
    if not phrases:
        return numbers
    words = [w.lower() for w in _WORD.findall(text)]
    stop = STOP_WORDS.get(lang, set())
    shortest = 4 if lang == "en" else 3

    def content(w: str) -> bool:
        return len(w) >= shortest and w not in stop and not w[0].isdigit()
    return numbers | {f"{a} {b}" for a, b in pairwise(words) if content(a) and content(b)}


# --- explanations --------------------------------------------------------------------------

def explanation_warnings(quiz: Quiz) -> list[str]:
    """An explanation past EXPLANATION_CHARS in any language (Urdu counted the same); a
    computed question's as drawn, its longest over LENGTH_SAMPLES draws."""
    out = []
    for i, q in enumerate(quiz.questions):
        for lang in quiz.languages:
            size = _longest_explanation(q, lang)
            if size > EXPLANATION_CHARS:
                out.append(f"{quiz.source}:{q.line}: questions[{i}].explanation ({lang}) is "
                           f"{size} characters; keep it to {EXPLANATION_CHARS} (the takeaway "
                           "carries the point)")
    return out


def _longest_explanation(q: Question, lang: str) -> int:
    if q.computed is None:
        return len(q.explanation.get(lang))
    sizes = []
    for seed in range(LENGTH_SAMPLES):
        try:
            sizes.append(len(draw_question(q, seed).explanation.get(lang)))
        except DrawFailed:
            continue
    return max(sizes, default=0)


# --- the same question or option twice ------------------------------------------------------

def repeat_warnings(quiz: Quiz) -> list[str]:
    """A question asked twice, word for word with the same options (two sheets merged, a row
    pasted twice: learners answer it twice), and an option given twice in one question (a
    learner who picks the copy of the key is marked wrong)."""
    out = []
    seen: dict[tuple[str, ...], Question] = {}
    for i, q in enumerate(quiz.questions):
        if q.computed is not None:  # drawn afresh: its text is a template
            continue
        asked = tuple(_said(t.get(lang)) for lang in quiz.languages
                      for t in (q.text, *(o.text for o in q.options)))
        first = seen.setdefault(asked, q)
        if first is not q:
            out.append(f"{quiz.source}:{q.line}: questions[{i}] ({q.id}) repeats the question "
                       f"at line {first.line}, options and all: learners would answer it "
                       "twice; remove one")
        for lang in quiz.languages:
            given: dict[str, int] = {}
            for j, option in enumerate(q.options):
                k = given.setdefault(_said(option.text.get(lang)), j)
                if k != j:
                    key = (" and one of them is the right answer: a learner who picks the "
                           "other is marked wrong" if q.correct in (j, k) else "")
                    out.append(f"{quiz.source}:{option.line}: questions[{i}].options[{j}] "
                               f"({lang}) is the same as options[{k}]{key}; remove one or "
                               "reword it")
    return out


def _said(text: str) -> str:
    """A text as compared for repeats: spacing aside (case is meaning: CO is not Co)."""
    return " ".join(text.split())
