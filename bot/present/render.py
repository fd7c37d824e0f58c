"""Pure functions from engine results to text, shared by every adapter.

Adapters pass a `Markup` saying how to escape and embolden for their platform (HTML for
Telegram, Markdown for Discord, nothing for the terminal); the words and layout are decided
once, here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from bot.domain.pipeline import ScheduleSpec
from bot.domain.results import (
    AnswerResult,
    QuestionPrompt,
    SettingsView,
    TypedRefused,
)
from bot.domain.round_rules import BADGE, badge_score, earns_badge
from bot.domain.stats_results import Leaderboard, Progress, TopicLine, UserStats
from bot.present import diagrams
from bot.present.cards import Card
from bot.present.clipping import clip as clip
from bot.present.i18n import Catalogue, is_rtl, isolate, isolate_content, person

LETTERS = "ABCDEFGHIJ"


def _same(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class Markup:
    """How a platform escapes user text and marks emphasis."""

    escape: Callable[[str], str] = _same
    bold: Callable[[str], str] = _same
    link: Callable[[str, str], str] = lambda title, url: f"{title}: {url}"
    inert: Callable[[str], str] = _same  # a member's name as plain text (i18n.person)
    folds: bool = True  # a card's detail folds away (Telegram's quote, Discord's fields)


PLAIN = Markup()


def letter(index: int) -> str:
    """A, B, C... for option `index`."""
    return LETTERS[index]


def letter_in(lang: str, index: int) -> str:
    """The option letter as it stands inside a sentence in `lang`."""
    return isolate(letter(index)) if is_rtl(lang) else letter(index)


def number_in(lang: str, number: int) -> str:
    """A list number as it starts a line in `lang`: isolated in right-to-left text, so that
    "17." and a question beginning "4 GPUs" do not fuse into one run "17. 4 GPUs"."""
    return isolate(str(number)) if is_rtl(lang) else str(number)


def progress_bar(done: int, total: int, width: int = 8) -> str:
    """A fixed-width bar, e.g. ▰▰▰▱▱▱▱▱ for 3 of 8."""
    filled = round(width * done / total) if total else 0
    return "▰" * filled + "▱" * (width - filled)


def content_text(lang: str, text: str) -> str:
    """Quiz text as shown: inside right-to-left languages, Latin runs isolated (a text
    wholly left to right as one piece per line: `isolate_content`)."""
    return isolate_content(text) if is_rtl(lang) else text


def question_header(cat: Catalogue, prompt: QuestionPrompt, score: int | None = None) -> str:
    """"Question 4/8 · 3 right" (or "Review 1/2"): the running score once there is one;
    `score`: the score after answering this question (the answered card's header)."""
    key = "question.topic_header" if prompt.topic is not None else {  # practice: its topic
        "review": "question.review_header", "due": "question.due_header"}.get(
        prompt.kind, "question.header")
    header = cat.t(prompt.lang, key, number=prompt.number, total=prompt.total,
                   topic=content_text(prompt.lang, prompt.topic or ""))
    if score is None and prompt.position == 0:
        return header
    right = prompt.score if score is None else score
    return header + cat.t(prompt.lang, "question.score", score=right)  # its separator too


def option_lines(prompt: QuestionPrompt, m: Markup = PLAIN) -> list[str]:
    """Lettered options, one per line."""
    return [
        f"{m.bold(letter_in(prompt.lang, i))}) {m.escape(content_text(prompt.lang, text))}"
        for i, text in enumerate(prompt.options)
    ]


def question_body(cat: Catalogue, prompt: QuestionPrompt, m: Markup = PLAIN) -> str:
    """The question and its lettered options, without the header."""
    lines = [m.escape(content_text(prompt.lang, prompt.text)), "", *option_lines(prompt, m)]
    if prompt.typed_example:  # a computed question in a private chat takes a number too
        lines += ["", m.escape(cat.t(prompt.lang, "question.or_type",
                                     example=prompt.typed_example))]
    return "\n".join(lines)


def question_text(cat: Catalogue, prompt: QuestionPrompt, m: Markup = PLAIN) -> str:
    """A whole question message: header with progress bar, question, lettered options."""
    head = (f"{m.bold(m.escape(question_header(cat, prompt)))}  "
            f"{progress_bar(prompt.position, prompt.total)}")
    parts = [head]
    if prompt.resumed:
        parts.append(m.escape(cat.t(prompt.lang, "question.resumed")))
    parts += ["", question_body(cat, prompt, m)]
    return "\n".join(parts)


def answered_body(cat: Catalogue, result: AnswerResult, m: Markup = PLAIN) -> str:
    """The question after a tap, without its header: the choice and the right answer marked."""
    p, lang = result.question, result.lang
    lines = [m.escape(content_text(lang, p.text)), ""]
    for i, text in enumerate(p.options):
        mark = "✅" if i == result.correct else ("❌" if i == result.chosen else "▫️")
        lines.append(f"{mark} {m.bold(letter_in(lang, i))}) {m.escape(content_text(lang, text))}")
    return "\n".join(lines)


def answered_header(cat: Catalogue, result: AnswerResult) -> str:
    """The answered question's header, with the score after this answer."""
    return question_header(cat, result.question, result.score)


def answered_question_text(cat: Catalogue, result: AnswerResult, m: Markup = PLAIN) -> str:
    """The question message after a tap, with its header."""
    return f"{m.bold(m.escape(answered_header(cat, result)))}\n\n" + answered_body(
        cat, result, m)


def verdict(cat: Catalogue, result: AnswerResult) -> str:
    """✅ Correct! / ❌ Not quite."""
    return cat.t(result.lang, "answer.correct" if result.is_correct else "answer.wrong")


def typed_refusal(cat: Catalogue, refused: TypedRefused) -> str:
    """Why a typed answer was not taken, and what to type instead (one line)."""
    return cat.t(refused.lang, refused.key, **dict(refused.fields))


def toast(cat: Catalogue, result: AnswerResult) -> str:
    """The short pop-up after a tap (Telegram's answerCallbackQuery text)."""
    if result.duplicate:
        return cat.t(result.lang, "answer.duplicate")
    if result.is_correct:
        return cat.t(result.lang, "answer.toast_correct")
    return cat.t(result.lang, "answer.toast_wrong", letter=letter(result.correct))


def feedback_text(cat: Catalogue, result: AnswerResult, m: Markup = PLAIN) -> str:
    """Everything after the marked options: the point first, then the detail."""
    return f"{feedback_head(cat, result, m)}\n\n{feedback_detail(cat, result, m)}"


def feedback_head(cat: Catalogue, result: AnswerResult, m: Markup = PLAIN) -> str:
    """What a learner reads at a glance: the verdict, for a wrong answer the right one, and
    the takeaway in bold (a right answer needs no "Right answer" line: the options are
    marked)."""
    lang = result.lang
    lines = [m.bold(m.escape(verdict(cat, result)))]
    if result.is_correct and result.typed:
        lines.append(m.escape(cat.t(lang, "answer.your_typed", value=result.typed)))
    if not result.is_correct:
        right = result.question.options[result.correct]
        mine = (cat.t(lang, "answer.your_typed", value=result.typed) if result.typed
                else cat.t(lang, "answer.your_choice", letter=letter(result.chosen)))
        lines.append(m.escape(mine))
        lines.append(m.escape(cat.t(lang, "answer.right_answer", letter=letter(result.correct),
                                    option=right)))
    if result.takeaway:
        lines += ["", m.bold(m.escape(content_text(lang, result.takeaway)))]
    return "\n".join(lines)


def feedback_detail(cat: Catalogue, result: AnswerResult, m: Markup = PLAIN) -> str:
    """The full explanation, why not the chosen option, references: collapsed where the
    platform can, when a takeaway leads."""
    lang = result.lang
    lines = [m.escape(content_text(lang, result.explanation))]
    if result.rationale:
        why = cat.t(lang, "answer.why_not", letter=letter(result.chosen), text=result.rationale)
        lines += ["", m.escape(why)]
    if result.references:
        lines += ["", m.escape(cat.t(lang, "answer.read_more"))]
        lines += [f"• {m.link(m.escape(r.title), r.url)}" for r in result.references]
    return "\n".join(lines)


def pictured(card: Card, cat: Catalogue, lang: str, image: Path | None,
             schedule: ScheduleSpec | None, m: Markup = PLAIN) -> Card:
    """`card` with its explanation's picture, as every answer shows it: the shipped image
    where the language's picture words are the shipped ones (English), else the schedule
    drawn in the language's words; captioned in the language."""
    words = diagrams.words_in(cat, lang, schedule)
    shipped = image if words == diagrams.SHIPPED else None
    return replace(card, image=shipped, schedule=schedule if shipped is None else None,
                   words=words, caption=(m.escape(schedule_caption(cat, lang, schedule))
                                         if schedule is not None else ""))


def schedule_caption(cat: Catalogue, lang: str, spec: ScheduleSpec) -> str:
    """A schedule picture's caption in the learner's language: the schedule, p, m, v and
    the bubble's share of the step, as the picture draws it."""
    v = cat.t(lang, "picture.v", v=spec.v) if spec.v > 1 else ""
    bubble = round(100 * diagrams.drawn(spec).bubble)
    name = diagrams.schedule_name(cat, lang, spec.kind)  # Urdu's own word for naive
    return cat.t(lang, "picture.caption", name=name, p=spec.p, m=spec.m, v=v, bubble=bubble)


def stats_text(cat: Catalogue, stats: UserStats, m: Markup = PLAIN) -> str:
    """A learner's attempts, best and last score, accuracy per question."""
    lang = stats.lang
    if stats.own:
        title = cat.t(lang, "stats.title", title=stats.quiz_title)
    else:
        title = cat.t(lang, "stats.title_member", name=person(lang, stats.display_name, m.inert),
                      title=stats.quiz_title)
    lines = [m.bold(m.escape(title))]
    if not stats.attempts:
        lines.append(m.escape(cat.t(lang, "stats.none" if stats.own else "stats.none_member",
                                    name=person(lang, stats.display_name, m.inert))))
    else:
        lines.append(m.escape(cat.t(lang, "stats.attempts", attempts=stats.attempts)))
        best_of, last_of = stats.best_total or stats.total, stats.last_total or stats.total
        lines.append(m.escape(cat.t(lang, "stats.best", best=stats.best_score, total=best_of)))
        if earns_badge(stats.best_score, stats.total, of=best_of):
            lines.append(m.escape(cat.t(lang, "stats.badge", badge=BADGE, title=stats.quiz_title,
                                        need=badge_score(stats.total),
                                        total=stats.total)))
        lines.append(m.escape(cat.t(lang, "stats.last", last=stats.last_score, total=last_of)))
    answered = [q for q in stats.questions if q.answered]
    if answered:
        lines += ["", m.escape(cat.t(lang, "stats.per_question"))]
        for i, q in enumerate(stats.questions, 1):
            if q.answered:
                lines.append(m.escape(cat.t(
                    lang, "stats.question", number=number_in(lang, i),
                    accuracy=round(100 * q.accuracy),
                    correct=q.correct, answered=q.answered, text=_short(q.text))))
    return "\n".join(lines)


def leaderboard_text(cat: Catalogue, board: Leaderboard, m: Markup = PLAIN, *,
                     empty_rounds: str = "leaderboard.empty_rounds") -> str:
    """Ranked best scores, ties broken by who got there first (`empty_rounds`: the key
    saying no round was played, with the platform's way to start one)."""
    lang = board.lang
    key = "leaderboard.title_global" if board.scope == "global" else "leaderboard.title_chat"
    title = cat.t(lang, key, title=board.quiz_title)
    if board.kind != "all":
        title = f"{title} · {cat.t(lang, 'leaderboard.kind_' + board.kind)}"
    lines = [m.bold(m.escape(title))]
    if not board.rows:
        empty = empty_rounds if board.kind == "rounds" else "leaderboard.empty"
        lines.append(m.escape(cat.t(lang, empty)))
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    for row in board.rows:
        text = cat.t(lang, "leaderboard.row", rank=row.rank,
                     name=person(lang, row.display_name, m.inert), score=row.score, total=row.total)
        if earns_badge(row.score, board.questions, of=row.total):
            text = f"{text} {BADGE}"
        medal = medals.get(row.rank, "  ") if row.score > 0 else "  "  # none for nothing right
        lines.append(f"{medal} {m.escape(text)}")
    return "\n".join(lines + _beyond(cat, board, m))


def _beyond(cat: Catalogue, board: Leaderboard, m: Markup) -> list[str]:
    """Under the rows: how many more members the board ranks, and where the asker stands
    (or how to get on it): a member of a big group finds themselves past the top ten."""
    lang, lines = board.lang, []
    if board.members > len(board.rows):
        lines.append(m.escape(cat.t(lang, "round.more", count=board.members - len(board.rows))))
    if board.mine is not None:
        mine = board.mine
        lines += ["", m.escape(cat.t(lang, "leaderboard.you", rank=mine.rank,
                                     count=board.members, score=mine.score, total=mine.total))]
    elif board.absent:
        key = "leaderboard.absent_rounds" if board.kind == "rounds" else "leaderboard.absent"
        lines += ["", m.escape(cat.t(lang, key))]
    return lines


def _short(text: str, limit: int = 60) -> str:
    return clip(text, limit)




def topic_map_lines(cat: Catalogue, lang: str, topics: Iterable[TopicLine],
                    m: Markup = PLAIN) -> list[str]:
    """The mastery map, a line a topic: "▰▰▰▱▱ 62% Bubble · sure: 3/4 right"."""
    out = []
    for t in topics:
        line = cat.t(lang, "progress.topic", bar=progress_bar(t.percent, 100, 5),
                     percent=t.percent, name=t.name)
        if t.sure:
            line = cat.t(lang, "progress.topic_sure", line=line, right=t.sure_right,
                         sure=t.sure)
        out.append(m.escape(line))
    return out


def progress_text(cat: Catalogue, p: Progress, m: Markup = PLAIN) -> str:
    """Spaced review: due now, streak, what memory holds now, calibration."""
    lang = p.lang
    lines = [m.bold(m.escape(cat.t(lang, "progress.title")))]
    if not p.cards:
        lines.append(m.escape(cat.t(lang, "progress.none")))
        return "\n".join(lines)
    lines.append(m.escape(cat.t(lang, "progress.due", due=p.due_now, cards=p.cards)))
    if p.next_due is not None:
        lines.append(m.escape(cat.t(lang, f"progress.next_{p.next_due.unit}",
                                    amount=p.next_due.amount)))
    lines.append(m.escape(cat.t(lang, "progress.streak", days=p.streak)))
    if p.retention is not None:
        lines.append(m.escape(cat.t(lang, "progress.retention",
                                    percent=round(100 * p.retention), cards=p.cards)))
    if p.calibration is not None:
        lines.append(m.escape(cat.t(lang, "progress.calibration",
                                    percent=round(100 * p.calibration),
                                    right=p.sure_correct, sure=p.sure_answered)))
    if p.guess_answered:
        lines.append(m.escape(cat.t(lang, "progress.guesses", right=p.guess_correct,
                                    guesses=p.guess_answered)))
    if p.topics:
        lines += ["", m.escape(cat.t(lang, "progress.topics"))]
        lines += topic_map_lines(cat, lang, p.topics, m)
    if p.confident_misses:
        lines += ["", m.escape(cat.t(lang, "progress.confident_misses"))]
        lines += [m.escape(cat.t(lang, "progress.confident_miss", text=_short(q.text),
                                 misses=q.answered - q.correct)) for q in p.confident_misses]
    # the quiz's own list is above (stats_text) and every quiz's is the chart: not again here
    return "\n".join(lines)


def settings_text(cat: Catalogue, s: SettingsView) -> str:
    """/settings: confidence marks and the daily reminder."""
    lang = s.lang
    conf = cat.t(lang, "settings.on" if s.confidence else "settings.off")
    lines = [cat.t(lang, "settings.title"), cat.t(lang, "settings.confidence", state=conf)]
    if s.remind_at is None:
        lines.append(cat.t(lang, "settings.remind_off", offset=s.utc_offset))
    else:
        lines.append(cat.t(lang, "settings.remind_on", time=s.remind_at, offset=s.utc_offset))
    lines.append(cat.t(lang, "settings.help"))
    return "\n".join(lines)
