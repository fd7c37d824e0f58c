"""Rendering is pure: engine results in, text out, no network."""

from __future__ import annotations

import html
from dataclasses import replace

from bot.domain.results import (
    AnswerResult,
    CatalogueEntry,
    MissedQuestion,
    QuestionPrompt,
    QuizInfo,
    QuizList,
    SessionKind,
    Summary,
)
from bot.domain.stats_results import Progress, QuestionStat, UserStats
from bot.present.i18n import LRI, Catalogue
from bot.present.plan import Planner
from bot.present.quiz_list import catalogue_item, catalogue_text, highlighted
from bot.present.render import (
    PLAIN,
    Markup,
    answered_header,
    answered_question_text,
    feedback_detail,
    feedback_head,
    feedback_text,
    progress_bar,
    question_text,
    toast,
)
from bot.present.summary import summary_text


def prompt(lang: str = "en", **kw) -> QuestionPrompt:
    values = dict(session_id=1, quiz_id="q", quiz_title="Quiz", lang=lang,
                  kind=SessionKind.FULL, position=2, total=8, question_id="x",
                  text="Why <NVLink>?", options=("Speed & size", "Colour", "Taste", "None"))
    values.update(kw)
    return QuestionPrompt(**values)


def result(p: QuestionPrompt, chosen: int = 1, correct: int = 0) -> AnswerResult:
    return AnswerResult(
        session_id=1, lang=p.lang, question=p, chosen=chosen, correct=correct,
        is_correct=chosen == correct, explanation="Because all-reduce.",
        rationale="Colour is irrelevant." if chosen != correct else None, references=(),
        answered=3, score=2, next=None, summary=None)


def test_progress_bar():
    assert progress_bar(0, 8) == "▱" * 8
    assert progress_bar(4, 8) == "▰" * 4 + "▱" * 4
    assert progress_bar(8, 8) == "▰" * 8


def test_question_has_header_bar_and_lettered_options(catalogue: Catalogue):
    text = question_text(catalogue, prompt(score=1))
    assert text.splitlines()[0] == "Question 3/8 · 1 right  ▰▰▱▱▱▱▱▱"
    assert question_text(catalogue, prompt(position=0)).splitlines()[0] == (
        "Question 1/8  ▱▱▱▱▱▱▱▱")  # no score before the first answer
    assert "A) Speed & size" in text and "D) None" in text


def test_html_markup_escapes_user_text(catalogue: Catalogue):
    m = Markup(escape=html.escape, bold=lambda s: f"<b>{s}</b>")
    text = question_text(catalogue, prompt(), m)
    assert "Why &lt;NVLink&gt;?" in text and "<b>A</b>) Speed &amp; size" in text


def test_feedback_wrong_choice_shows_right_answer_and_why_not(catalogue: Catalogue):
    text = feedback_text(catalogue, result(prompt()))
    assert text.splitlines()[:3] == ["❌ Not quite.", "Your answer: B",
                                     "Right answer: A) Speed & size"]
    assert "Because all-reduce." in text and "Why not B: Colour is irrelevant." in text
    assert toast(catalogue, result(prompt())) == "❌ Wrong: the answer is A"


def test_answered_question_marks_choice_and_answer(catalogue: Catalogue):
    lines = answered_question_text(catalogue, result(prompt())).splitlines()
    assert "✅ A) Speed & size" in lines and "❌ B) Colour" in lines


def test_urdu_isolates_letters_and_latin(catalogue: Catalogue):
    p = prompt("ur", text="کون سا GPU؟", options=("ایک", "دو", "تین", "چار"))
    text = question_text(catalogue, p)
    assert f"{LRI}A" in text and f"{LRI}GPU" in text


def test_summary_lists_missed_with_answers(catalogue: Catalogue):
    s = Summary(session_id=1, quiz_id="q", quiz_title="Quiz", lang="en", kind=SessionKind.FULL,
                score=7, total=8, missed=(MissedQuestion(3, "x", "Why?", "Because"),),
                best_score=7)
    text = summary_text(catalogue, s)
    assert "Finished Quiz: 7/8" in text and "4. Why? → Because" in text
    assert "Your best: 7/8" in text


def test_stats_title_says_whose(catalogue: Catalogue):
    from bot.domain.stats_results import UserStats
    from bot.present.render import stats_text

    mine = UserStats("en", "q", "Quiz", "Ali", 0, None, None, 8)
    theirs = UserStats("en", "q", "Quiz", "Ali", 0, None, None, 8, own=False)
    assert stats_text(catalogue, mine).splitlines() == [
        "Your stats: Quiz", "You have not finished this quiz yet. Send /quiz to play it."]
    assert stats_text(catalogue, theirs).splitlines() == [
        "Stats of Ali: Quiz", "Ali has not finished this quiz yet."]


def test_right_answer_leads_with_the_takeaway_and_no_right_answer_line(catalogue: Catalogue):
    right = replace(result(prompt(), chosen=0), takeaway="All-reduce needs <fast> links.")
    m = Markup(escape=html.escape, bold=lambda s: f"<b>{s}</b>")
    head = feedback_head(catalogue, right, m)
    assert head == "<b>✅ Correct!</b>\n\n<b>All-reduce needs &lt;fast&gt; links.</b>"
    assert "Right answer" not in feedback_text(catalogue, right)
    assert feedback_detail(catalogue, right) == "Because all-reduce."
    assert answered_header(catalogue, right) == "Question 3/8 · 2 right"


def test_wrong_answer_names_the_right_one_before_the_takeaway(catalogue: Catalogue):
    wrong = replace(result(prompt()), takeaway="All-reduce needs fast links.")
    assert feedback_head(catalogue, wrong).splitlines() == [
        "❌ Not quite.", "Your answer: B", "Right answer: A) Speed & size", "",
        "All-reduce needs fast links."]
    assert feedback_detail(catalogue, wrong).splitlines() == [
        "Because all-reduce.", "", "Why not B: Colour is irrelevant."]


def test_without_a_takeaway_the_explanation_is_not_collapsed(catalogue: Catalogue):
    plan = Planner(catalogue, PLAIN, shared_chats=False)
    card = plan.answered(result(prompt(), chosen=0))
    assert not card.collapse and card.detail == "Because all-reduce."
    assert card.body.endswith("✅ Correct!")
    card = plan.answered(replace(result(prompt(), chosen=0), takeaway="Point."))
    assert card.collapse and card.detail_label == "Explanation"
    assert card.body.endswith("✅ Correct!\n\nPoint.")


def test_a_badge_in_stats_and_on_the_board(catalogue: Catalogue) -> None:
    """Telegram has no roles: 80 % in one attempt (7 of 8) shows a badge in /stats and on
    the leaderboard; 6 of 8 does not."""
    from bot.domain.round_rules import badge_score
    from bot.domain.stats_results import Leaderboard, LeaderboardRow, UserStats
    from bot.present import render
    assert [badge_score(n) for n in (1, 5, 8, 10)] == [1, 4, 7, 8]
    earned = render.stats_text(catalogue, UserStats("en", "parallelism", "Parallelism", "Ada",
                                                    2, 7, 6, 8))
    assert "🏅 Badge earned: Parallelism (7/8 or better in one attempt)" in earned
    assert "Badge" not in render.stats_text(catalogue, UserStats(
        "en", "parallelism", "Parallelism", "Ada", 2, 6, 6, 8))
    board = render.leaderboard_text(catalogue, Leaderboard("en", "parallelism", "Parallelism",
                                                           "chat", (
        LeaderboardRow(1, "Ada", "telegram", "1", 7, 8, 0.0),
        LeaderboardRow(2, "Bo", "telegram", "2", 6, 8, 0.0)), 8))
    lines = board.splitlines()
    assert lines[1].endswith("🏅") and not lines[2].endswith("🏅")


def test_stats_lists_each_question_once_and_explains_recall(catalogue: Catalogue):
    q = QuestionStat("q1", "Why?", 3, 1)
    stats = UserStats("en", "q", "Quiz", "Alice", 1, 5, 5, 8, (q,))
    progress = Progress("en", "Alice", 8, 0, None, 1, 0.99, 0, 0, 0, 0, (q,), ())
    (card,) = Planner(catalogue, PLAIN, shared_chats=False).progress(stats, progress).send
    assert card.body.count("Why?") == 1 and card.body.count("Accuracy per question") == 1
    assert "you would recall 99% of your 8 reviewed questions if asked now" in card.body
    assert "even for a miss, which comes back for review sooner" in card.body


def test_a_one_question_quiz_is_one_question_in_the_catalogue(catalogue: Catalogue):
    """An uploaded quiz may hold one question: "1 question", not "1 questions"."""
    def item(count: int) -> str:
        info = QuizInfo("q", "Quiz", "", "easy", count, ("en",), "introduction")
        return catalogue_item(catalogue, "en", CatalogueEntry(info, None))

    assert item(1) == "Quiz · 1 question · Introduction"
    assert item(8) == "Quiz · 8 questions · Introduction"


def test_the_catalogue_leads_with_the_quizzes_left_unfinished(catalogue: Catalogue):
    """Unfinished attempts lead the catalogue (one by name, several by count) and their
    buttons are the highlighted ones; with none, the default quiz's button is."""
    def entry(quiz_id: str, answered: int | None = None) -> CatalogueEntry:
        info = QuizInfo(quiz_id, quiz_id.title(), "", "easy", 8, ("en", "ur"), "introduction")
        return CatalogueEntry(info, answered=answered)

    def shown(*entries: CatalogueEntry, lang: str = "en") -> tuple[str, list[str]]:
        quizzes = QuizList(lang, entries, "intro")
        return (catalogue_text(catalogue, quizzes).splitlines()[1],
                [e.info.id for e in entries if highlighted(quizzes, e)])

    assert shown(entry("intro"), entry("deep")) == (catalogue.t("en", "catalogue.hint"),
                                                    ["intro"])
    assert shown(entry("intro"), entry("deep", 3)) == (
        "You are at question 4 of 8 of Deep: tap its ▶ button to go on, or pick another "
        "quiz.", ["deep"])
    assert shown(entry("intro", 0), entry("deep", 3)) == (
        "2 quizzes wait where you left them (▶): tap one to go on, or pick another.",
        ["intro", "deep"])
    assert shown(entry("intro"), entry("deep", 3), lang="ur")[0] == catalogue.t(
        "ur", "catalogue.going_hint", title="Deep", number=4, total=8)
