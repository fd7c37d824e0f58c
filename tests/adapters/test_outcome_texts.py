"""Every outcome's text, as each platform gets it, against that platform's limits: an
answered question of every shipped quiz (worst case: wrong, longest why-not, takeaway), a
round's reveal at 5 and 1,000 members, /quizzes and /help. Telegram's HTML is parsed as
the fake Bot API parses it (an expandable quote it would refuse fails here too)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from adapters.discord.views import FIELD_LIMIT, MARKDOWN, embed_of, message_of
from adapters.telegram.views import HTML, text_of
from bot.domain.platforms import DISCORD, TELEGRAM, units
from bot.domain.product_limits import OPTION_SHOWN
from bot.domain.quiz import Quiz, default_content_dir, load_quizzes
from bot.domain.results import (
    Actor,
    CatalogueEntry,
    MissedQuestion,
    QuizCount,
    QuizList,
    SessionKind,
    Summary,
)
from bot.domain.round_results import RoundQuestion, RoundReveal, Standing
from bot.features.library import Library
from bot.present.i18n import Catalogue, strip_isolates
from bot.present.limits import worst_feedback
from bot.present.plan import Card, Planner
from bot.present.render import PLAIN
from bot.present.round_plan import RoundPlanner
from tests.adapters.telegram.wire import parse_html

QUIZZES = load_quizzes([default_content_dir()])
ACTOR = Actor("telegram", "1001")


@pytest.fixture(scope="module")
def cat() -> Catalogue:
    return Catalogue.load()


def telegram_fits(card: Card) -> str:
    text = parse_html(text_of(card))  # raises as Telegram would on bad markup
    assert units(text) <= TELEGRAM.message_limit
    return text


def discord_fits(card: Card) -> None:
    message = message_of(card)
    if "embed" not in message:
        assert units(message["content"]) <= DISCORD.content_limit
        return
    embed = message["embed"].to_dict()
    assert units(embed.get("description", "")) <= DISCORD.card_limit
    fields = embed.get("fields", [])
    assert len(fields) <= DISCORD.field_limit
    assert all(units(f["value"]) <= FIELD_LIMIT for f in fields)
    total = sum(units(embed.get(k, "")) for k in ("title", "description"))
    total += sum(units(f["name"]) + units(f["value"]) for f in fields)
    assert total <= DISCORD.message_limit


def answered(quiz: Quiz, lang: str) -> list[Card]:
    planners = (Planner(Catalogue.load(), HTML, shared_chats=True),
                Planner(Catalogue.load(), MARKDOWN, shared_chats=False))
    cards = []
    for question in quiz.questions:
        if question.computed is not None:
            continue  # drawn numbers: validate reads 20 draws of each against the limits
        result = worst_feedback(quiz, question, lang)
        takeaway = question.takeaway.get(lang) if question.takeaway else None
        result = replace(result, takeaway=takeaway)
        cards += [planner.answered(result) for planner in planners]
    return cards


@pytest.mark.parametrize("lang", ["en", "ur"])
@pytest.mark.parametrize("quiz_id", sorted(QUIZZES))
def test_every_answered_question_fits_both_platforms(quiz_id: str, lang: str) -> None:
    cards = answered(QUIZZES[quiz_id], lang)
    for telegram, discord in zip(cards[::2], cards[1::2], strict=True):
        telegram_fits(telegram)
        discord_fits(discord)
        assert telegram.collapse == bool(telegram.detail) == discord.collapse or not \
            telegram.collapse


@pytest.mark.parametrize("lang", ["en", "ur"])
@pytest.mark.parametrize("quiz_id", sorted(QUIZZES))
def test_a_summary_with_every_question_missed_fits_both_platforms(
        cat: Catalogue, quiz_id: str, lang: str) -> None:
    """The body leads with the point and fits a screen; every missed question in full is
    the detail: Telegram's expandable quote, Discord's fields (6,000 in all), cut with
    "…and N more" where one card cannot hold them."""
    quiz = QUIZZES[quiz_id]
    summary = Summary(1, quiz.id, quiz.title.get(lang), lang, SessionKind.FULL, 0,
                      len(quiz.questions), tuple(
                          MissedQuestion(i, q.id, q.text.get(lang),
                                         q.options[q.correct].text.get(lang))
                          for i, q in enumerate(quiz.questions)), best_score=3)
    telegram = Planner(cat, HTML, shared_chats=False).summary(summary, ACTOR)
    assert "<blockquote expandable>" in text_of(telegram) and telegram.collapse
    assert len(telegram_fits(telegram).split("\n\n")[0].splitlines()) <= 3  # the score
    assert len(telegram.body.splitlines()) <= 15
    discord_fits(Planner(cat, MARKDOWN, shared_chats=False).summary(summary, ACTOR))


def reveal(members: int, lang: str, takeaway: str) -> RoundReveal:
    quiz = QUIZZES["parallelism-deep"]
    question = max(quiz.questions, key=lambda q: len(q.explanation.get(lang)))
    q = RoundQuestion(1, "telegram", "-100", lang, quiz.title.get(lang), "Host", 3, 8,
                      question.text.get(lang),
                      tuple(o.text.get(lang) for o in question.options), 30, 0.0)
    names = [f"Member number {i} with a long display name" for i in range(members)]
    standings = tuple(Standing(i + 1, str(i), names[i], 3, 4.2) for i in range(members))
    return RoundReveal(1, "telegram", "-100", lang, quiz.title.get(lang), q,
                       question.correct, (members // 2, members // 4, members // 8, 3),
                       tuple(names[: members // 2]), question.explanation.get(lang),
                       standings, "7", final=False, stopped=False, next_at=5.0,
                       revealed_at=0.0, takeaway=takeaway)


@pytest.mark.parametrize("members", [5, 1000])
@pytest.mark.parametrize("lang", ["en", "ur"])
def test_round_reveals_fit_and_lead_with_the_takeaway(cat: Catalogue, members: int,
                                                      lang: str) -> None:
    quiz = QUIZZES["parallelism-deep"]
    question = max(quiz.questions, key=lambda q: len(q.explanation.get(lang)))
    assert question.takeaway is not None
    r = reveal(members, lang, question.takeaway.get(lang))
    card = RoundPlanner(cat, HTML, lambda q: "", limit=TELEGRAM.card_limit).reveal(r)
    text = telegram_fits(card)
    # the group sees the point; the explanation waits behind the button, privately
    assert question.explanation.get(lang)[:60] not in text
    assert card.rows and card.rows[0][0].payload.startswith("w1:")
    embed = embed_of(RoundPlanner(cat, MARKDOWN, lambda q: "", limit=DISCORD.card_limit)
                     .reveal(replace(r, platform="discord"))).to_dict()
    assert units(embed["title"]) + units(embed["description"]) <= DISCORD.card_limit


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_quizzes_and_help_fit(cat: Catalogue, lang: str) -> None:
    library = Library(None, QUIZZES, clock=lambda: 0.0)  # type: ignore[arg-type]  # no store is asked here
    listing = QuizList(lang, tuple(CatalogueEntry(library.quiz_info(lang, q.id), 7)
                                   for q in library.ordered()), library.default_id)
    for planner, fits in ((Planner(cat, HTML, shared_chats=True), telegram_fits),
                          (Planner(cat, MARKDOWN, shared_chats=False), discord_fits)):
        (card,) = planner.catalogue(listing, ACTOR).send
        fits(card)
        assert len(card.rows) == len(QUIZZES)
        (card,) = planner.help(lang, library.quiz_info(lang), ACTOR, quizzes=QuizCount(6, 3)).send
        fits(card)


def test_a_reveal_reads_clearly(cat: Catalogue) -> None:
    plan = RoundPlanner(cat, PLAIN, lambda q: "")
    r = reveal(200, "en", "The point.")
    r = replace(r, counts=(90, 60, 20, 10), standings=r.standings[:3] + tuple(
        Standing(i + 4, str(i + 4), f"M{i}", 0, 0.0) for i in range(197)))
    text = plan.reveal(r).body
    assert "180 of 200 answered" in text
    split = [line.split(" · ")[:2] for line in text.splitlines() if line[1:3] == " ▇"]
    assert split == [["A ▇▇▇▇▇▇▇▇▇▇ 50%", "90"], ["B ▇▇▇▇▇▇▇ 33%", "60"], ["C ▇▇ 11%", "20"],
                     ["D ▇ 6%", "10"]]
    assert "🥇 1. Member number 0 with a long display name: 3 right · 4.2 s" in text
    stopped = replace(r, counts=(0, 0, 0, 0), right=(), stopped=True)
    text = plan.reveal(stopped).body
    assert "Stopped before anyone answered." in text and "Nobody got it right" not in text
    assert "Nobody answered this one in time." in plan.reveal(replace(stopped,
                                                                     stopped=False)).body


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_the_split_of_answers_names_each_option(cat: Catalogue, lang: str) -> None:
    """The reveal replaces the question's option lines: its split said only "B ▇▇▇ 33% · 60",
    a letter whose option nobody could see any more (Kahoot and Telegram's own quiz polls
    show each option beside its share). Each bar now ends with its option, clipped."""
    r = reveal(200, lang, "The point.")
    assert r.question is not None
    options = r.question.options
    for planner in (RoundPlanner(cat, PLAIN, lambda q: ""),
                    RoundPlanner(cat, HTML, lambda q: "", limit=TELEGRAM.card_limit)):
        text = strip_isolates(planner.reveal(r).body)
        split = [line for line in text.splitlines() if line[:1] in "ABCD" and line[1:2] == " "
                 and "%" in line]
        assert len(split) == len(options)
        for i, (line, option) in enumerate(zip(split, options, strict=True)):
            assert line.startswith(f"{'ABCD'[i]} ") and f"% · {r.counts[i]} · " in line
            shown = line.split(" · ", 2)[2]
            assert len(shown) <= OPTION_SHOWN
            assert option.startswith(shown.removesuffix("…").replace("&amp;", "&")
                                     .replace("&lt;", "<").replace("&gt;", ">"))


def test_the_private_list_opens_with_the_full_explanation(cat: Catalogue) -> None:
    from bot.domain.round_results import WhoAnswered, WhoRow

    rows = tuple(WhoRow(i + 1, f"M{i}", 1, 2.0, "right") for i in range(20))
    who = WhoAnswered(1, 0, "-1", "en", "Quiz", 1, 8, 0, 2, 40, 30, rows,
                      takeaway="The point.", explanation="The whole explanation.")
    card = RoundPlanner(cat, PLAIN, lambda q: "").who(who, "1001")
    assert card.body.startswith("The point.\n\nThe whole explanation.\n\n30 of 40")
    assert "The whole explanation." not in RoundPlanner(cat, PLAIN, lambda q: "").who(
        replace(who, page=1), "1001").body  # once, on the first page
    telegram_fits(RoundPlanner(cat, HTML, lambda q: "").who(who, "1001"))
