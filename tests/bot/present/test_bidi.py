"""Every Urdu string the bot can show, laid out by a real Unicode bidi algorithm (UAX #9,
python-bidi): each formula, number and Latin run must read intact, left to right.

The isolates are *not* stripped before layout: they are what makes the text read right.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from itertools import pairwise

import pytest
from bidi import get_display

from bot.domain.quiz import Quiz, default_content_dir, load_quizzes
from bot.domain.results import AnswerResult, MissedQuestion, SessionKind, Summary
from bot.domain.stats_results import QuestionStat, UserStats
from bot.present.i18n import LRI, PDI, Catalogue, isolate_latin, strip_isolates
from bot.present.limits import sample_prompt
from bot.present.render import (
    answered_question_text,
    feedback_text,
    question_text,
    stats_text,
)
from bot.present.summary import summary_parts, summary_text

RTL = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff"
CONTROLS = re.compile("[\u2066-\u2069\u200e\u200f\u202a-\u202e]")
# The test's own idea of a left-to-right piece, independent of bot.i18n: a stretch of
# non-RTL text from a letter/digit/opening bracket to a letter/digit/closing bracket/%.
PIECE = re.compile(rf"[A-Za-z0-9(\[][^{RTL}\n\u2066-\u2069]*[A-Za-z0-9)\]%]|[A-Za-z0-9]")
NUMBER_OR_FORMULA = re.compile(r"[0-9=+−×·/^≈%]")
# An option label ("A) ...") belongs to the right-to-left line, not to the option's text:
# in Urdu it stands at the right, whatever the option says.
LABEL = re.compile(r"(?<![A-Za-z0-9])[A-J]\)(?= )")
# So does a list number opening a line ("17. ..."): it stands at the right, apart from the
# text after it, even when that text starts with a digit.
NUMBERING = re.compile(r"^(\s*)\d+\.(?= )")


def visual(line: str) -> str:
    """The line as a right-to-left display shows it, left to right, controls removed."""
    return CONTROLS.sub("", get_display(line, base_dir="R"))


def balanced(piece: str) -> list[str]:
    """The piece split at brackets not closed (or opened) inside it: they belong to the
    Urdu around it ("DeepSeek-V3 (671B" + Urdu + ")" reads as "DeepSeek-V3" and "671B")."""
    cuts: list[int] = []
    opened: list[int] = []
    for i, ch in enumerate(piece):
        if ch in "([{":
            opened.append(i)
        elif ch in ")]}":
            if opened:
                opened.pop()
            else:
                cuts.append(i)
    cuts = sorted(cuts + opened)
    bounds = [-1, *cuts, len(piece)]
    return [part for a, b in pairwise(bounds)
            if (part := piece[a + 1:b].strip(" :;,.=+−×·/≈"))]


def broken_pieces(text: str) -> list[str]:
    """Formulas and numbers of `text` that do not read intact once laid out RTL."""
    broken = []
    for line in text.splitlines():
        shown = visual(line)
        # Two isolates set side by side on purpose ("33%" then "micro-batch شیڈول": a share, then a
        # name) are two pieces: the share stays by its bar, not glued to the name's first word.
        apart = line.replace(f"{PDI} {LRI}", f"{PDI} \u0600{LRI}")
        plain = NUMBERING.sub("\\1\u0600", LABEL.sub("\u0600", strip_isolates(apart)))
        for match in PIECE.finditer(plain):
            for piece in balanced(match.group(0).strip()):
                if NUMBER_OR_FORMULA.search(piece) and piece not in shown:
                    broken.append(piece)
    return broken


def test_the_check_sees_the_old_breakage():
    """Left alone or isolated piecewise, formulas and numbers come out reordered."""
    assert broken_pieces("ببل (p−1)/(m+p−1) حصہ ہے") == ["(p−1)/(m+p−1)"]
    piecewise = f"پر {LRI}3{PDI},{LRI}072{PDI} GPUs اور {LRI}1{PDI},{LRI}000{PDI} ارب"
    assert broken_pieces(piecewise) == ["3,072 GPUs", "1,000"]
    assert "072,3" in visual(piecewise) and "000,1" in visual(piecewise)
    assert broken_pieces(isolate_latin("ببل (p−1)/(m+p−1) حصہ، پر 3,072 GPUs")) == []


# --- everything the bot shows in Urdu ----------------------------------------------------------


def sample_params(template: str) -> dict[str, object]:
    """Plausible values for a UI template's placeholders, numbers with separators."""
    values: dict[str, object] = {
        "number": 3, "total": 8, "count": 12, "score": 7, "best": 8, "last": 6, "rank": 2,
        "attempts": 1_024, "accuracy": 75, "correct": 3, "answered": 4, "letter": "B",
        "letters": "A/B/C/D", "title": "ماڈل اور پائپ لائن متوازیت", "name": "Ali Raza",
        "option": "NVIDIA Megatron-LM", "text": "ببل (p−1)/(m+p−1) ہے، 3,072 GPUs پر",
        "answer": "80 GB", "quiz": "parallelism-deep", "lang": "fr", "ids": "parallelism",
        "problems": "content/x.yaml:42: questions[3].correct is 5",
        "amount": 3, "due": 4, "cards": 1_024, "days": 5, "m": 8, "hours": 8,  # plural counts
    }
    names = {n for _, n, _, _ in string.Formatter().parse(template) if n}
    return {n: values.get(n, "x1") for n in names}


def ui_strings(catalogue: Catalogue) -> Iterator[tuple[str, str]]:
    for key in sorted(catalogue.keys("ur")):
        raw = catalogue.raw("ur", key)
        yield key, catalogue.t("ur", key, **sample_params(raw))


def content_messages(catalogue: Catalogue, quiz: Quiz) -> Iterator[tuple[str, str]]:
    """Each question, its answered form and its feedback for every choice, as rendered."""
    summary = summary_parts(catalogue, Summary(
        1, quiz.id, quiz.title.get("ur"), "ur", SessionKind.FULL, 7, len(quiz.questions),
        tuple(MissedQuestion(i, q.id, q.text.get("ur"), q.options[q.correct].text.get("ur"))
              for i, q in enumerate(quiz.questions)), best_score=7))
    yield f"{quiz.id}.title", summary[0]
    yield f"{quiz.id}.missed", summary[1]
    yield f"{quiz.id}.description", isolate_latin(quiz.description.get("ur"))
    yield f"{quiz.id}.stats", stats_text(catalogue, UserStats(
        "ur", quiz.id, quiz.title.get("ur"), "Ali", 2, 7, 6, len(quiz.questions),
        tuple(QuestionStat(q.id, q.text.get("ur"), 4, 3) for q in quiz.questions)))
    for q in quiz.questions:
        prompt = sample_prompt(quiz, q, "ur")
        yield q.id, question_text(catalogue, prompt)
        for chosen, option in enumerate(q.options):
            result = AnswerResult(
                session_id=1, lang="ur", question=prompt, chosen=chosen, correct=q.correct,
                is_correct=chosen == q.correct, explanation=q.explanation.get("ur"),
                rationale=option.why_not.get("ur") if option.why_not else None,
                references=q.references, answered=1, score=0, next=None, summary=None)
            yield f"{q.id}[{chosen}]", feedback_text(catalogue, result)
            yield f"{q.id}[{chosen}] answered", answered_question_text(catalogue, result)


def test_every_urdu_ui_string_reads_right(catalogue: Catalogue):
    shown = dict(ui_strings(catalogue))
    assert len(shown) > 50
    problems = {key: bad for key, text in shown.items() if (bad := broken_pieces(text))}
    assert problems == {}


def unbalanced_isolates(text: str) -> list[str]:
    """Left-to-right isolates holding a bracket without its partner: the bracket then stands
    unmirrored inside the isolate while its partner mirrors outside, so a right-to-left
    line shows two brackets facing the same way ("(بند سے (time:off")."""
    bad = []
    for run in re.findall(f"{LRI}([^{PDI}]*){PDI}", text):
        depth = 0
        for ch in run:
            depth += (ch in "([{") - (ch in ")]}")
            if depth < 0:
                break
        if depth:
            bad.append(run)
    return bad


def test_no_urdu_ui_string_isolates_half_a_bracket_pair(catalogue: Catalogue):
    assert unbalanced_isolates(f"میں {LRI}(time:off{PDI} سے بند)") == ["(time:off"]
    problems = {key: bad for key, text in ui_strings(catalogue)
                if (bad := unbalanced_isolates(text))}
    assert problems == {}


# A slash command with its subcommand or option as Discord's members type it.
COMMAND_PHRASE = re.compile(r"/[a-z_]+(?: (?:start|stop|skip|on|off|quiz:))?(?![a-z])")


def test_every_urdu_discord_command_reads_in_order(catalogue: Catalogue):
    """Discord's own wording (the `_server` strings) names commands to type, never to tap
    (Discord links no '/word' in a message), so each is isolated whole: left alone in a
    right-to-left line, '/round start' showed as 'start round/' and '/quiz' as 'quiz/'.
    (The dashboard's strings are left out: the page isolates its commands as it renders.)"""
    problems = {}
    for key, text in ui_strings(catalogue):
        if not key.endswith("_server") or key.startswith("dashboard."):
            continue
        for line in text.splitlines():
            shown = visual(line)
            bad = [c for c in COMMAND_PHRASE.findall(strip_isolates(line)) if c not in shown]
            if bad:
                problems[f"{key}: {line}"] = bad
    assert problems == {}


@pytest.mark.parametrize("quiz_id", sorted(load_quizzes([default_content_dir()])))
def test_every_urdu_content_string_reads_right(catalogue: Catalogue,
                                               quizzes: dict[str, Quiz], quiz_id: str):
    quiz = quizzes[quiz_id]
    problems = {}
    checked = 0
    for where, text in content_messages(catalogue, quiz):
        checked += len(NUMBER_OR_FORMULA.findall(strip_isolates(text)))
        if bad := broken_pieces(text):
            problems[where] = bad
    assert problems == {}
    assert checked > 100  # there are formulas and numbers to check


def test_key_formulas_read_intact_in_the_shipped_urdu(catalogue: Catalogue,
                                                      quizzes: dict[str, Quiz]):
    seed = quizzes["parallelism"]
    urdu = "\n".join(isolate_latin(q.explanation.get("ur")) for q in seed.questions)
    shown = "\n".join(visual(line) for line in urdu.splitlines())
    for formula in ("(p−1)/(m+p−1)", "3,072", "1,000"):
        assert formula in strip_isolates(urdu)
        assert formula in shown, formula


# --- laid out as the terminal wraps it, and the summary's numbering ------------------------

WIDTHS = (40, 60, 80)


def wrapped_problems(text: str, width: int) -> list[str]:
    """What goes wrong once `text` is wrapped at `width`: a formula or number that no
    longer reads intact, or an isolate opened on one line and closed on another."""
    from adapters.terminal.wrap import wrap

    bad = []
    for line in wrap(text, width).splitlines():
        opened = sum(line.count(c) for c in "\u2066\u2067\u2068")
        if opened != line.count(PDI):
            bad.append(f"isolate split: {strip_isolates(line)!r}")
        # A line with no right-to-left letter (a reference title's continuation) takes its
        # direction from its first strong letter, left to right (UAX #9, P2-P3).
        if re.search(f"[{RTL}]", line):
            bad += broken_pieces(line)
    return bad


@pytest.mark.parametrize("width", WIDTHS)
def test_every_urdu_ui_string_reads_right_when_wrapped(catalogue: Catalogue, width: int):
    problems = {key: bad for key, text in ui_strings(catalogue)
                if (bad := wrapped_problems(text, width))}
    assert problems == {}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("quiz_id", sorted(load_quizzes([default_content_dir()])))
def test_every_urdu_content_string_reads_right_when_wrapped(
        catalogue: Catalogue, quizzes: dict[str, Quiz], quiz_id: str, width: int):
    problems = {where: bad for where, text in content_messages(catalogue, quizzes[quiz_id])
                if (bad := wrapped_problems(text, width))}
    assert problems == {}


def test_the_summary_numbering_stays_apart_from_a_question_that_starts_with_a_digit(
        catalogue: Catalogue):
    missed = MissedQuestion(16, "q17", "4 GPUs پر ببل 3/7 ہے", "80 GB")
    text = summary_text(catalogue, Summary(1, "deep", "کوئز", "ur", SessionKind.FULL, 3, 22,
                                           (missed,)))
    line = next(ln for ln in text.splitlines() if "GPUs" in ln)
    shown = visual(line)
    # Right to left: the number stands at the right end, the question's own run apart.
    assert shown.rstrip().endswith("17") and "17. 4" not in shown and "4 GPUs" in shown
    stats = stats_text(catalogue, UserStats("ur", "deep", "کوئز", "Ali", 2, 7, 6, 22, (
        QuestionStat("q1", "4 GPUs پر ببل", 4, 3),)))
    row = next(ln for ln in stats.splitlines() if "GPUs" in ln)
    assert visual(row).rstrip().endswith("1") and "1. 75" not in visual(row)
