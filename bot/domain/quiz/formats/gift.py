"""GIFT, Moodle's text format for questions (https://docs.moodle.org/en/GIFT_format).

What is read, as the specification gives it: questions separated by blank lines; `//`
comment lines; `::title::` (-> the question's id); `$CATEGORY: a/b` (-> its category); a
`[html]`, `[markdown]`, `[plain]` or `[moodle]` marker before a text; the answers between
`{` and `}`: `=right`, `~wrong`, `~%50%partial` (only 100% is the key), `#feedback` after an
answer, `####general feedback` at the end; `{T}`/`{TRUE}`/`{F}`/`{FALSE}` with their two
feedbacks; text after the answers (a missing-word question, shown as a blank); escapes
`\\~ \\= \\# \\{ \\} \\: \\\\` and `\\n`. Essay (`{}`), numerical (`{#...}`), short answer
(only `=`) and matching (`->`) questions are listed as skipped. No maintained Python GIFT
parser exists (pygiftparser's last release was 2017, without `####` or markers), so this
is one small parser written from the page.
"""

from __future__ import annotations

import re

from bot.domain.quiz.formats import numerical
from bot.domain.quiz.formats.draft import (
    TRUE_FALSE,
    Draft,
    DraftOption,
    DraftQuestion,
    category_name,
    html_text,
    tidy,
)
from bot.domain.quiz.formats.export import Plain, Prepared, Typed

_ESCAPES = {"~": "~", "=": "=", "#": "#", "{": "{", "}": "}", ":": ":", "\\": "\\", "n": "\n"}
_MARKER = re.compile(r"\s*\[(html|markdown|plain|moodle)\]", re.IGNORECASE)
_WEIGHT = re.compile(r"%(-?\d+(?:\.\d+)?)%")
_TRUE = {"t": True, "true": True, "f": False, "false": False}
BLANK = "_____"
_MARKED_HTML = re.compile(r"\[(html|moodle)\]", re.IGNORECASE)
_IMG = re.compile(r"<img\b", re.IGNORECASE)


def find(text: str, chars: str, start: int = 0) -> int:
    """Index of the first unescaped character of `chars` from `start`, or -1."""
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] in chars:
            return i
        i += 1
    return -1


def unescape(text: str) -> str:
    """The text with GIFT's backslash escapes resolved."""
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), text,
                  flags=re.DOTALL)


def plain(text: str, html: bool = False) -> str:
    """One GIFT text: its format marker read (without one, `html` says: an answer or a
    feedback is in its question's format, as Moodle reads and writes them), escapes
    resolved, HTML made plain."""
    marker = _MARKER.match(text)
    body = text[marker.end():] if marker else text
    if (marker.group(1).lower() in ("html", "moodle")) if marker else html:
        return html_text(unescape(body))[0]
    return tidy(unescape(body))


def read(text: str, source: str, lang: str = "en") -> Draft:
    """Every question of a GIFT file."""
    draft = Draft(source)
    category = ""
    for line, block in _blocks(text):
        if block.lstrip().startswith("$CATEGORY:"):
            head, _, rest = block.strip().partition("\n")
            category = category_name(head.split(":", 1)[1])
            draft.title = draft.title or category.rsplit("/", 1)[-1].strip()
            if not rest.strip():
                continue
            block, line = rest, line + 1
        _question(block, f"{source}:{line}", category, draft, lang)
    return draft


def _blocks(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each question: lines between blank lines, comments dropped."""
    out: list[tuple[int, str]] = []
    lines: list[str] = []
    start = 0
    for n, raw in enumerate(text.splitlines(), 1):
        if raw.lstrip().startswith("//"):
            continue
        if raw.strip():
            start = start or n
            lines.append(raw)
            # a question ends at its closing brace's line only when a blank line follows;
            # a blank line inside {...} does not end it
            continue
        if lines and _open(lines):
            lines.append(raw)
            continue
        if lines:
            out.append((start, "\n".join(lines)))
        lines, start = [], 0
    if lines:
        out.append((start, "\n".join(lines)))
    return out


def _open(lines: list[str]) -> bool:
    """True when the text so far has a `{` without its `}`."""
    text = "\n".join(lines)
    i = find(text, "{")
    return i >= 0 and find(text, "}", i) < 0


def _question(block: str, where: str, category: str, draft: Draft, lang: str) -> None:
    name = ""
    body = block.strip()
    if body.startswith("::"):
        end = body.find("::", 2)
        if end < 0:
            draft.problems.append(f"{where}: '::' opens a title that is not closed with '::'")
            return
        name, body = unescape(body[2:end]).strip(), body[end + 2:]
    open_ = find(body, "{")
    if open_ < 0:
        draft.skip(where, "description", "no answers in {...}",
                   name=name or plain(body))
        return
    close = find(body, "}", open_ + 1)
    again = find(body, "{", open_ + 1)
    if close < 0 or 0 <= again < close:  # an unclosed '{' swallowed the next question
        draft.problems.append(f"{where}: '{{' opens the answers but no '}}' closes them; "
                              "close them with '}' (a literal brace is written '\\{')")
        return
    before, answers, after = body[:open_], body[open_ + 1:close].strip(), body[close + 1:]
    if find(after, "{") >= 0:  # not a missing word: the next question, glued on
        draft.problems.append(f"{where}: another question follows its answers without a "
                              "blank line; put a blank line between two questions")
        return
    # text after the answers: a missing-word question, the answers fill the blank
    text = plain(f"{before.rstrip()} {BLANK} {after.lstrip()}".strip() if after.strip()
                 else before)
    q = DraftQuestion(where, name, text, category=category)
    marker = _MARKER.match(before)
    html = marker is not None and marker.group(1).lower() in ("html", "moodle")
    if _MARKED_HTML.search(body) and _IMG.search(body):
        draft.warnings.append(f"{where}: a picture (<img>) is left out: GIFT files carry "
                              "none; import the Moodle XML export, which does")
    general = find(answers, "#")
    while general >= 0 and not answers.startswith("####", general):
        general = find(answers, "#", general + 1)
    if general >= 0:
        q.general = plain(answers[general + 4:], html)
        answers = answers[:general].strip()
    if not answers:
        draft.skip(where, "essay", name=name or text)
    elif answers.startswith("#"):
        _numerical(answers[1:], q, draft, html)
    elif _true_false(answers, q, lang, html):
        draft.questions.append(q)
    else:
        _choices(answers, q, draft, html)


def _true_false(answers: str, q: DraftQuestion, lang: str, html: bool) -> bool:
    word, *feedback = [unescape(part).strip() for part in _split(answers, "#")]
    if word.lower() not in _TRUE or len(feedback) > 2:
        return False
    truth = _TRUE[word.lower()]
    wrong_feedback, right_feedback = [*feedback, "", ""][:2]
    yes, no = TRUE_FALSE.get(lang, TRUE_FALSE["en"])
    q.options = [DraftOption(yes, "", 100.0 if truth else 0.0),
                 DraftOption(no, "", 0.0 if truth else 100.0)]
    q.options[0 if not truth else 1].feedback = plain(wrong_feedback, html)
    q.options[0 if truth else 1].feedback = plain(right_feedback, html)
    return True


def _choices(answers: str, q: DraftQuestion, draft: Draft, html: bool) -> None:
    starts = [i for i in range(len(answers)) if answers[i] in "=~" and _unescaped(answers, i)]
    if not starts or (starts[0] != 0 and answers[:starts[0]].strip()):
        draft.problems.append(f"{q.where}: the answers must start with '=' or '~', got "
                              f"{answers[:30]!r}")
        return
    parts = [(answers[i], answers[i + 1:j]) for i, j in zip(starts, [*starts[1:], None],
                                                            strict=True)]
    # as Moodle decides: a '~' makes it multiple choice ("F -> B" is then an option's
    # text); only '=' answers with '->' are matching
    if all(sign == "=" for sign, _ in parts) and any("->" in text for _, text in parts):
        draft.skip(q.where, "matching", name=q.name or q.text)
        return
    if all(sign == "=" for sign, _ in parts):
        draft.skip(q.where, "short answer", "only '=' answers", name=q.name or q.text)
        return
    for sign, raw in parts:
        body, *feedback = _split(raw.strip(), "#")
        weight = _WEIGHT.match(body)
        fraction = float(weight.group(1)) if weight else (100.0 if sign == "=" else 0.0)
        body = body[weight.end():] if weight else body
        q.options.append(DraftOption(plain(body, html), plain("#".join(feedback), html),
                                     fraction))
    glued = [answers[i - 1:].split(None, 1)[0] for i in starts
             if i > 0 and answers[i] == "=" and not answers[i - 1].isspace()]
    if glued and sum(o.fraction == 100 for o in q.options) > 1:
        # "{=C=C double bond ~C-C}": as Moodle reads it, two right answers 'C' and 'C double
        # bond'; the teacher wrote one
        word = glued[0]
        draft.problems.append(f"{q.where}: '=' inside an answer's text ('{word}') starts "
                              "another right answer; write a literal '=' as '\\=' ('"
                              + word.replace("=", "\\=") + "')")
        return
    shares = [o.fraction for o in q.options if o.fraction > 0]
    if len(shares) > 1 and max(shares) < 100:  # as Moodle reads it: several right answers
        draft.skip(q.where, "multiple-answer", "the credit is shared by "
                   f"{len(shares)} answers", name=q.name or q.text)
        return
    draft.questions.append(q)


def _numerical(answers: str, q: DraftQuestion, draft: Draft, html: bool) -> None:
    """`{#3.5:0.1}`, `{#1..5}` or several answers `{#=3.5:0.1#right =%50%3:1#close}`: a
    typed-number question (`bot.domain.quiz.formats.numerical`)."""
    body = answers.strip()
    starts = [i for i in range(len(body)) if body[i] in "=~" and _unescaped(body, i)]
    if not starts or starts[0] != 0:
        parts = [("=", body)]
    else:
        parts = [(body[i], body[i + 1:j]) for i, j in zip(starts, [*starts[1:], None],
                                                          strict=True)]
    out = []
    for sign, raw in parts:
        text, *feedback = _split(raw.strip(), "#")
        weight = _WEIGHT.match(text.strip())
        fraction = float(weight.group(1)) if weight else (100.0 if sign == "=" else 0.0)
        text = text.strip()[weight.end():] if weight else text.strip()
        low, dots, high = text.partition("..")
        value, _, tolerance = text.partition(":")
        if dots and (lo := numerical.number(low)) is not None \
                and (hi := numerical.number(high)) is not None:
            value, tolerance = f"{(lo + hi) / 2:g}", f"{abs(hi - lo) / 2:g}"
        if sign == "~" and not value.strip():  # Moodle writes "any other answer" as ~#...
            value = "*"
        out.append(numerical.NumberAnswer(unescape(value).strip(), tolerance.strip(), fraction,
                                          plain("#".join(feedback), html)))
    numerical.convert(q, out, draft, "numerical")


def _unescaped(text: str, i: int) -> bool:
    backslashes = len(text[:i]) - len(text[:i].rstrip("\\"))
    return backslashes % 2 == 0


def _split(text: str, char: str) -> list[str]:
    """`text` split at each unescaped `char`."""
    out, start = [], 0
    i = find(text, char)
    while i >= 0:
        out.append(text[start:i])
        start = i + 1
        i = find(text, char, start)
    out.append(text[start:])
    return out


# --- writing -----------------------------------------------------------------------------


def escape(text: str) -> str:
    """`text` with GIFT's special characters escaped and line breaks as \\n."""
    out = re.sub(r"([~=#{}:\\])", r"\\\1", text)
    return out.replace("\r", "").replace("\n", "\\n")


def write(prepared: Prepared) -> str:
    """The quiz as GIFT: categories from topics, `::id::` titles, per-option feedback and
    `####` general feedback; computed questions as one drawn version (noted)."""
    quiz = prepared.quiz
    out = [f"// {quiz.title.get(prepared.lang)}: exported by quizbot from the quiz "
           f"{quiz.id!r} ({prepared.lang})", ""]
    category = None
    for q in prepared.questions:
        assert isinstance(q, (Plain, Typed))  # no other computed questions: prepared drawn
        if q.image is not None:
            prepared.notes.append(f"{q.id}: its picture is left out (GIFT carries none)")
        wanted = q.category or quiz.title.get(prepared.lang)
        if wanted != category:
            out += [f"$CATEGORY: $course$/top/{wanted.replace(chr(10), ' ')}", ""]
            category = wanted
        if isinstance(q, Typed):
            out += _typed_out(q)
            continue
        out.append(f"::{escape(q.id)}::{escape(q.text)}{{")
        for n, (text, why) in enumerate(q.options):
            feedback = f"#{escape(why)}" if why else ""
            out.append(f"\t{'=' if n == q.correct else '~'}{escape(text)}{feedback}")
        out += [f"\t####{escape(q.explanation)}", "}", ""]
    return "\n".join(out)


def _typed_out(q: Typed) -> list[str]:
    """A typed-number question as GIFT's {#...}: each answer `=%fraction%value:tolerance`."""
    out = [f"::{escape(q.id)}::{escape(q.text)}{{#"]
    for value, tolerance, fraction, why in q.answers:
        weight = "" if fraction == 100 else f"%{fraction:g}%"
        feedback = f"#{escape(why)}" if why else ""
        out.append(f"\t={weight}{value}:{tolerance:g}{feedback}")
    return [*out, f"\t####{escape(q.explanation)}", "}", ""]
