"""Quality checks that do not stop a quiz from loading: `quizbot validate` prints them as
warnings. A hard quiz should not be answerable from the shape of its options alone: these
are the cues a smart learner who does not know the subject would use, as far as a program
can see them."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from itertools import combinations, pairwise

from bot.domain.quiz.computed import options_of
from bot.domain.quiz.model import Question, Quiz

REPEAT_WORDS = 4  # an option sharing this many consecutive words with its question
LONGEST_SHARE = Fraction(1, 4)  # the right option may be the longest in at most this share
CONVERGE_MIN, CONVERGE_MARGIN = 5, 2  # shared word pairs: at least, and ahead of the next
TAKEAWAY_CHARS = 140  # a takeaway longer than this is no longer read at a glance
MIRROR = 0.7  # two options sharing this share of their content words are near copies
_WORD = re.compile(r"\w+(?:[-'’.]\w+)*")
_CLAUSE = re.compile(r"[;:؛]|, (?:and|while|but) ")
_TOKEN = re.compile(r"\w+")
# Punctuation a reader sees at a glance; a comma between digits is part of a number (3,100).
_MARKS = (("semicolon", re.compile(r"[;؛]")), ("colon", re.compile(r":")),
          ("comma", re.compile(r"[,،](?!\d)")))
_PLAIN = re.compile(r"[^\W\d_]+")
# A number not glued to Latin letters ("1F1B" and "3D" are names, "12Ψ" is a number).
_NUMBER = re.compile(
    r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?![A-Za-z])(?:\s*/\s*(\d[\d,]*(?:\.\d+)?))?")
# Function words that say nothing about the answer, per language; content words are the rest.
STOP_WORDS = {
    "en": set("""about above after again against also among another because been before
        being both does down during each either every from have having here into itself just
        like more most much must next none once only other over same since such than that
        their them then there these they this those though through under until very what
        when where which while whole will with within without would your""".split()),  # noqa: SIM905
    "ur": set("""اور یا کہ ہے ہیں تھا تھی تھے کا کی کے کو سے میں پر نہیں بھی ہی یہ وہ جو ایک
        ہر تو تک لیے کر کرتا کرتی کرتے کرنا ہوتا ہوتی ہوتے ہونا ہو گا گی گے جاتا جاتی جاتے
        رہتا رہتی رہتے اس ان جس جن اپنے اپنی اپنا کیا کیوں کیسے کون سا سی والا والی والے بار
        جب اب پھر ساتھ بعد پہلے لیکن مگر بلکہ چاہیے سکتا سکتی سکتے دیتا دیتی دیتے لیتا لیتی
        لیتے ہوئے جیسے یعنی کیونکہ تاکہ اگر کسی کوئی کچھ سب تمام گنا حصہ طرح دو تین چار""".split()),  # noqa: SIM905
}
_ABSOLUTE = {
    "en": re.compile(r"\b(?:always|never|only|nothing|none|cannot|impossible)\b", re.I),
    "ur": re.compile(r"ہمیشہ|کبھی نہیں|کبھی بھی|صرف|کچھ نہیں|ناممکن"),
}


def quality_warnings(quiz: Quiz) -> list[str]:
    """One `file:line: message` per cue: the right option is the longest too often (per
    language), an option repeats its question's wording, and per question the cues below."""
    warnings = []
    total = len(quiz.questions)
    most = longest_allowed(total)
    for lang in quiz.languages:
        longest = sum(_right_is_longest(q, lang) for q in quiz.questions)
        if total >= 3 and longest > most:  # in 1 or 2 questions chance alone explains it
            warnings.append(
                f"{quiz.source}:1: ({lang}) the right option is the longest in {longest} of "
                f"{total} questions (at most {most}); a learner can pick it without knowing "
                "the answer")
    for i, q in enumerate(quiz.questions):
        if q.computed is not None and q.options == options_of(q.computed):
            continue  # templates ("{value}" twice is no near copy): its draws are checked
        for j, option in enumerate(q.options):
            for lang in quiz.languages:
                shared = _shared_run(q.text.get(lang), option.text.get(lang))
                if shared:
                    warnings.append(
                        f"{quiz.source}:{option.line or q.line}: questions[{i}].options[{j}] "
                        f"({lang}) repeats the question's wording ({shared!r})")
                    break
        for lang in quiz.languages:
            warnings += [f"{quiz.source}:{q.line}: questions[{i}] ({lang}) {cue}"
                         for cue in question_cues(q, lang)]
    return warnings


def longest_allowed(total: int) -> int:
    """In how many of `total` questions the right option may be the longest: LONGEST_SHARE
    of them, but never fewer than 1 (in a quiz of 3 to 7, "at most 0" would flag the one
    question in which chance alone makes it so, and ask for what no quiz needs)."""
    return max(1, int(LONGEST_SHARE * total))


def takeaway_warnings(quiz: Quiz) -> list[str]:
    """Each question should lead with one line a learner keeps: its `takeaway`, short
    enough to read at a glance on a phone."""
    out = []
    for i, q in enumerate(quiz.questions):
        where = f"{quiz.source}:{q.line}: questions[{i}]"
        if q.takeaway is None:
            out.append(f"{where} has no takeaway (the one line shown before the explanation)")
            continue
        out += [f"{where}.takeaway ({lang}) is {len(text)} characters; keep it to "
                f"{TAKEAWAY_CHARS}" for lang, text in q.takeaway.values
                if len(text) > TAKEAWAY_CHARS]
    return out


def question_cues(q: Question, lang: str) -> Iterator[str]:
    """What points at the right option of one question in one language."""
    stem = _content(q.text.get(lang), lang)
    options = [o.text.get(lang) for o in q.options]
    words = [_content(o, lang) for o in options]
    others = set().union(*(w for k, w in enumerate(words) if k != q.correct))
    echo = sorted((words[q.correct] & stem) - others)
    if echo:
        yield (f"only the right option shares {', '.join(map(repr, echo))} with the "
               "question; give a wrong option the same word")
    absolute = _ABSOLUTE.get(lang)
    if absolute and not absolute.search(options[q.correct]):
        found = sorted({m.group(0).lower() for k, o in enumerate(options) if k != q.correct
                        for m in absolute.finditer(o)})
        if found:
            yield (f"absolute words ({', '.join(map(repr, found))}) appear only in wrong "
                   "options; word the right one as firmly or soften them")
    pair = _scaled_pair(q, lang)
    if pair:
        yield pair
    mirror = _mirror_pair(words, q.correct)
    if mirror is not None:
        yield (f"options[{mirror[0]}] and options[{mirror[1]}] are near copies of each other "
               "and one is right; make every option as close, or none")
    if _converges(options, q.correct):
        yield ("the right option shares the most phrases and numbers with the others (each "
               "wrong option differs from it in one part); vary the wrong options more")
    elif _majority_in_every_part(options, q.correct):
        yield ("every part of the right option is the most common value of that part among "
               "the options; let each wrong option miss more than one part (a 2 x 2 design)")
    firsts = [o.split()[0].lower() if o.split() else "" for o in options]
    wrong_firsts = {f for k, f in enumerate(firsts) if k != q.correct}
    if len(options) >= 4 and len(wrong_firsts) == 1 and firsts[q.correct] not in wrong_firsts:
        yield (f"every wrong option starts with {wrong_firsts.pop()!r} and the right one does "
               "not; start the options alike, or vary them")
    apart = _punctuated_apart(options, q.correct)
    if apart:
        yield (f"only the right option {apart} and every wrong option agrees; punctuate the "
               "options alike, or vary them")
    swapped = _swapped_pair(options, q.correct, lang)
    if swapped is not None:
        yield (f"options[{swapped[0]}] and options[{swapped[1]}] swap the same claims between "
               "their clauses and one is right; a learner picks from the mirror pair")


def _content(text: str, lang: str) -> set[str]:
    stop = STOP_WORDS.get(lang, set())
    shortest = 4 if lang == "en" else 3
    return {w for w in (m.group(0).lower() for m in _PLAIN.finditer(text))
            if len(w) >= shortest and w not in stop}


def _value(text: str) -> Fraction | None:
    """The number an option leads with ("7/24 ≈ 29%" is 7/24, "About 0.36 GB" is 0.36)."""
    match = _NUMBER.search(text)
    if match is None:
        return None
    top = Fraction(match.group(1).replace(",", ""))
    if match.group(2) is None:
        return top
    bottom = Fraction(match.group(2).replace(",", ""))
    return top / bottom if bottom else None


def _scaled_pair(q: Question, lang: str) -> str | None:
    """An option that is another times or over a number of the question, with the right
    option in the only such pair: a learner picks from the pair."""
    factors = {Fraction(m.group(1).replace(",", "")) for m in _NUMBER.finditer(q.text.get(lang))
               if m.group(2) is None} - {Fraction(0), Fraction(1)}
    values = [_value(o.text.get(lang)) for o in q.options]
    pairs = []
    for (a, va), (b, vb) in combinations(enumerate(values), 2):
        if not va or not vb:
            continue
        for n in factors:
            if abs(va * n - vb) <= vb / 50 or abs(vb * n - va) <= va / 50:
                pairs.append((a, b, n))
    keyed = [p for p in pairs if q.correct in p[:2]]
    if keyed and len(keyed) == len(pairs):
        a, b, n = keyed[0]
        return (f"options[{a}] and options[{b}] differ by a factor of {n} from the question, "
                "and one is right; give the factor to a wrong pair too, or to none")
    return None


def _mirror_pair(words: list[set[str]], correct: int) -> tuple[int, int] | None:
    """The one pair of options far more alike than the rest, when it holds the right one."""
    close = [(a, b) for a, b in combinations(range(len(words)), 2)
             if words[a] and words[b]
             and len(words[a] & words[b]) >= MIRROR * len(words[a] | words[b])]
    if len(close) == 1 and correct in close[0]:
        return close[0]
    return None


def _converges(options: list[str], correct: int) -> bool:
    """The right option as the meeting point of the others: it shares clearly more word
    pairs and numbers with them than any wrong option does."""
    grams = []
    for o in options:
        w = [t.lower() for t in _TOKEN.findall(o)]
        grams.append(set(pairwise(w))
                     | {(t,) for t in w if any(c.isdigit() for c in t)})
    score = [sum(len(g & h) for h in grams if h is not g) for g in grams]
    best = max(s for k, s in enumerate(score) if k != correct)
    return score[correct] >= CONVERGE_MIN and score[correct] >= best + CONVERGE_MARGIN


def _majority_in_every_part(options: list[str], correct: int) -> bool:
    """Options of parts ("GPipe 8, 1F1B 4"; "bubble 7/71; 128 GB") where, part by part, the
    right option's value is the one most options give: a learner votes slot by slot."""
    for sep in ("; ", ", ", "؛ ", "، "):
        parts = [o.split(sep) for o in options]
        size = len(parts[correct])
        if size < 2 or any(len(p) != size for p in parts):
            continue
        counts = [Counter(p[n].strip().lower() for p in parts) for n in range(size)]
        if all(c[parts[correct][n].strip().lower()] >= 2
               and all(k == parts[correct][n].strip().lower()
                       or v < c[parts[correct][n].strip().lower()] for k, v in c.items())
               for n, c in enumerate(counts)):
            return True
    return False


def _swapped_pair(options: list[str], correct: int, lang: str) -> tuple[int, int] | None:
    """Two options "X does P; Y does Q" and "X does Q; Y does P", one of them right."""
    clauses = [[_content(c, lang) for c in _CLAUSE.split(o)] for o in options]
    for a, b in combinations(range(len(options)), 2):
        if correct not in (a, b) or min(len(clauses[a]), len(clauses[b])) < 2:
            continue
        (a0, a1), (b0, b1) = clauses[a][:2], clauses[b][:2]
        # Words that changed clause: in A's first and B's second (or the reverse) only.
        if len((a0 & b1) - a1 - b0) >= 2 or len((a1 & b0) - a0 - b1) >= 2:
            return a, b
    return None


def _punctuated_apart(options: list[str], correct: int) -> str | None:
    """How punctuation sets the right option apart ('has a semicolon', 'lacks a comma'): it
    alone has, or alone lacks, the mark, while every wrong option agrees."""
    if len(options) < 4:
        return None
    for name, mark in _MARKS:
        has = [bool(mark.search(o)) for o in options]
        wrong = {h for k, h in enumerate(has) if k != correct}
        if len(wrong) == 1 and has[correct] not in wrong:
            return f"{'has' if has[correct] else 'lacks'} a {name}"
    return None


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
