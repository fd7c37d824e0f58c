"""One renderer per press outcome: the table covers every outcome type, and "Who answered?"
shows where the press allows (an edit of its own page, privately from a public message)."""

from __future__ import annotations

import typing

from bot.domain.results import Actor, PressOutcome, UnknownButton, Where
from bot.domain.round_results import WhoAnswered
from bot.present import render
from bot.present.i18n import Catalogue
from bot.present.outcomes import RENDERERS
from bot.present.plan import Planner
from bot.present.round_plan import RoundPlanner

ADA = Actor("telegram", "7", "-100", "Ada")


def who(cat: Catalogue) -> WhoAnswered:
    return WhoAnswered(round_id=3, qindex=0, chat_id="-100", lang="en", quiz_title="Q",
                       number=1, total=8, page=0, pages=1, members=2, answered=1, rows=())


def test_every_press_outcome_has_one_renderer() -> None:
    assert set(RENDERERS) == set(typing.get_args(PressOutcome))


def test_who_answered_goes_where_the_press_allows(catalogue: Catalogue) -> None:
    rounds = RoundPlanner(catalogue, render.PLAIN, lambda q: "")
    shared, private = Where("-100", "5", True), Where("-100", "5", False)
    discord = Planner(catalogue, render.PLAIN, shared_chats=False, rounds=rounds)
    assert discord.pressed(who(catalogue), ADA, shared).send  # ephemeral, for the presser
    assert discord.pressed(who(catalogue), ADA, private).edit is not None  # a page turned
    telegram = Planner(catalogue, render.PLAIN, shared_chats=True, rounds=rounds,
                       private_url=lambda w: f"https://t.me/bot?start=w{w.round_id}")
    opened = telegram.pressed(who(catalogue), ADA, shared)
    assert (opened.ack_url, opened.send, opened.edit) == ("https://t.me/bot?start=w3", (), None)
    assert telegram.pressed(who(catalogue), ADA, None).send  # /start w…: the page, here
    off = Planner(catalogue, render.PLAIN, shared_chats=False)  # rounds off
    assert off.pressed(who(catalogue), ADA, shared).ack == catalogue.t(
        "en", "round.button_gone_server")  # a round's button: the round's words
    assert off.pressed(UnknownButton("en"), ADA).ack == catalogue.t("en", "error.unknown_button")
    assert telegram.pressed(UnknownButton("en", of_round=True), ADA).ack == catalogue.t(
        "en", "round.button_gone")
