# ruff: noqa: F811 - the fixtures clock, rounds and store come from test_rounds
"""Scoring modes, untimed rounds and teams, worked by hand, on SQLite and PostgreSQL with an
injected clock: Kahoot's speed points, the capped streak bonus, an untimed round that
reveals once everyone who joined answered, and teams drafted by past accuracy (snake), scored
by their members' mean, fixed for the round."""

from __future__ import annotations

import pytest

from bot.domain import product_limits, round_rules
from bot.domain.errors import BadRoundOptions
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.domain.round_results import Joined, LockedIn, RoundStarted
from bot.features.engine import Engine
from bot.features.rounds import Rounds
from bot.present import render
from bot.present.i18n import Catalogue, strip_isolates
from bot.present.round_plan import RoundPlanner, medal
from bot.store.commands import round_teams_sql
from bot.store.protocol import Store
from tests.bot.features.test_rounds import (  # noqa: F401 - clock, rounds, store: fixtures
    GROUP,
    HOST,
    Clock,
    clock,
    opened,
    revealed,
    right,
    rounds,
    store,
    wrong,
)
from tests.helpers import due

MEMBERS = [Actor("telegram", str(100 + i), GROUP, f"M{i}") for i in range(8)]


def planner(catalogue: Catalogue) -> RoundPlanner:
    return RoundPlanner(catalogue, render.PLAIN, lambda q: "closes", limit=4096)


def test_the_rules_by_hand() -> None:
    # speed: 1000 x (1 - t/2T); T = 20 s
    assert [round_rules.speed_points(t, 20) for t in (0, 4, 10, 20, 99)] == \
        [1000, 900, 750, 500, 500]
    # streak: +100 per right answer in a row after the first, capped at +500
    assert [round_rules.streak_points(n) for n in range(1, 9)] == \
        [1000, 1100, 1200, 1300, 1400, 1500, 1500, 1500]
    answers = [(0, True, 1.0), (1, True, 1.0), (2, True, 1.0), (3, False, 1.0), (4, True, 1.0)]
    assert round_rules.points("streak", answers, 20) == 1000 + 1100 + 1200 + 0 + 1000
    # a question left unanswered (2) breaks the streak too
    assert round_rules.points("streak", [(0, True, 1), (1, True, 1), (3, True, 1)], 20) == \
        1000 + 1100 + 1000
    assert round_rules.points("accuracy", answers, 20) == 4
    assert round_rules.points("speed", [(0, True, 4.0), (1, False, 1.0)], 20) == 900
    # snake draft: 1-2-3-4, then 4-3-2-1
    strengths = {f"m{i}": 1 - i / 10 for i in range(8)}
    placed = round_rules.draft(4, [0, 0, 0, 0], strengths)
    assert [placed[f"m{i}"] for i in range(8)] == [0, 1, 2, 3, 3, 2, 1, 0]


async def test_speed_round_worked_by_hand(rounds: Rounds, clock: Clock,
                                          quizzes: dict[str, Quiz],
                                          catalogue: Catalogue) -> None:
    bilal, hana = MEMBERS[0], MEMBERS[1]
    await rounds.start(HOST, GROUP, questions=2, scoring="speed")
    q = await opened(rounds)
    clock.advance(4)
    await rounds.press(bilal, q.round_id, 0, right(quizzes, q))  # 900
    clock.advance(6)
    await rounds.press(hana, q.round_id, 0, right(quizzes, q))  # 750
    clock.advance(10)
    reveal = await revealed(rounds)
    assert reveal.scoring == "speed"
    assert [(s.display_name, s.points, s.score) for s in reveal.standings] == \
        [("M0", 900, 1), ("M1", 750, 1)]
    clock.advance(5)
    q = await opened(rounds)
    clock.advance(2)
    await rounds.press(hana, q.round_id, 1, right(quizzes, q))  # 950
    await rounds.press(bilal, q.round_id, 1, wrong(quizzes, q))  # 0; all answered: early
    reveal = await revealed(rounds)
    assert reveal.final
    assert [(s.rank, s.display_name, s.points) for s in reveal.standings] == \
        [(1, "M1", 1700), (2, "M0", 900)]
    text = strip_isolates(planner(catalogue).reveal(reveal).body)
    # four digits are not grouped, as every number the bot shows (numeric.grouped)
    assert "Scoring: speed" in text and "1. M1: 1700 pts (2 right)" in text


async def test_streak_round_worked_by_hand(rounds: Rounds, clock: Clock,
                                           quizzes: dict[str, Quiz]) -> None:
    a, b = MEMBERS[0], MEMBERS[1]
    await rounds.start(HOST, GROUP, questions=3, scoring="streak")
    picks = [(True, True), (True, False), (True, True)]  # a: 3 in a row; b: right, wrong, right
    for n, (a_right, b_right) in enumerate(picks):
        q = await opened(rounds)
        await rounds.press(a, q.round_id, n, (right if a_right else wrong)(quizzes, q))
        await rounds.press(b, q.round_id, n, (right if b_right else wrong)(quizzes, q))
        clock.advance(20)
        reveal = await revealed(rounds)
        clock.advance(5)
    assert reveal.final and reveal.scoring == "streak"
    assert [(s.display_name, s.points) for s in reveal.standings] == \
        [("M0", 1000 + 1100 + 1200), ("M1", 1000 + 0 + 1000)]


async def test_untimed_round_waits_for_everyone_who_joined(rounds: Rounds, clock: Clock,
                                                          quizzes: dict[str, Quiz],
                                                          catalogue: Catalogue) -> None:
    a, b = MEMBERS[0], MEMBERS[1]
    with pytest.raises(BadRoundOptions):
        await rounds.start(HOST, GROUP, untimed=True, scoring="speed")
    started = await rounds.start(HOST, GROUP, questions=2, untimed=True)
    assert started.lobby == product_limits.LOBBY_SECONDS and started.untimed
    assert await due(rounds, "telegram") == []  # members join first
    assert await rounds.join(a, started.round_id, None) == \
        Joined(started.round_id, "en", "joined", None, False)
    assert (await rounds.join(a, started.round_id, None)).outcome == "already"  # type: ignore[union-attr]
    await rounds.join(b, started.round_id, None)
    clock.advance(product_limits.LOBBY_SECONDS)
    q = await opened(rounds)
    assert q.untimed and q.deadline == clock.now + product_limits.UNTIMED_SECONDS
    clock.advance(600)  # ten minutes: still open, b is thinking
    await rounds.press(a, q.round_id, 0, right(quizzes, q))
    assert await due(rounds, "telegram") == []
    await rounds.press(b, q.round_id, 0, right(quizzes, q))  # everyone who joined: reveal
    reveal = await revealed(rounds)
    assert reveal.untimed and [(s.rank, s.score, s.time) for s in reveal.standings] == \
        [(1, 1, 0.0), (1, 1, 0.0)]  # no speed in an untimed round: a tie
    text = strip_isolates(planner(catalogue).reveal(reveal).body)
    assert "🥇 1. M0: 1 right" in text and "🥇 1. M1: 1 right" in text
    assert "Scoring: accuracy, untimed" in text


async def test_teams_drafted_by_past_accuracy_scored_by_mean(
        rounds: Rounds, clock: Clock, quizzes: dict[str, Quiz], store: Store,
        engine: Engine) -> None:
    players = MEMBERS[:4]
    # A plain round first, so each member has a past: M0 4/4 right, M1 3/4, M2 2/4, M3 1/4.
    await rounds.start(HOST, GROUP, questions=4)
    for n in range(4):
        q = await opened(rounds)
        for i, m in enumerate(players):
            await rounds.press(m, q.round_id, n, (right if n < 4 - i else wrong)(quizzes, q))
        clock.advance(20)
        await revealed(rounds)
        clock.advance(5)

    with pytest.raises(BadRoundOptions):
        await rounds.start(HOST, GROUP, teams=7)
    started = await rounds.start(HOST, GROUP, questions=2, teams=2)
    rid = started.round_id
    for m in players:
        assert (await rounds.join(m, rid, None)).outcome == "joined"  # type: ignore[union-attr]
    late = MEMBERS[4]
    clock.advance(product_limits.LOBBY_SECONDS)
    q = await opened(rounds)
    # snake: M0 -> team 0, M1 -> team 1, M2 -> team 1, M3 -> team 0
    teams = {m.user_id: m.team for m in await store.read(round_teams_sql.members, rid)}
    assert teams == {"100": 0, "101": 1, "102": 1, "103": 0}
    switched = await rounds.join(players[0], rid, 1)  # no switching teams
    assert isinstance(switched, Joined) and (switched.outcome, switched.team) == ("already", 0)
    assert (await rounds.join(late, rid, 1)).outcome == "closed"  # type: ignore[union-attr]
    # M0 and M1 right; M2, M3 wrong; a late member answers right: the smallest team (0)
    for i, m in enumerate(players):
        await rounds.press(m, rid, 0, (right if i < 2 else wrong)(quizzes, q))
    assert isinstance(await rounds.press(late, rid, 0, right(quizzes, q)), LockedIn)
    clock.advance(20)
    reveal = await revealed(rounds)
    # team 0: M0 1, M3 0, M4 1 -> 2/3; team 1: M1 1, M2 0 -> 1/2
    assert [(t.rank, t.team, t.members, round(t.score, 3), t.best) for t in reveal.teams] == \
        [(1, 0, 3, 0.667, "M0"), (2, 1, 2, 0.5, "M1")]
    # each member's answers still count for them: the round ends in their own sessions
    await rounds.stop(HOST, GROUP)
    assert (await engine.stats(late)).attempts == 1


def test_team_standings_and_join_buttons_render(catalogue: Catalogue) -> None:
    plan = planner(catalogue)
    (card,) = plan.started(RoundStarted(7, "en", "Parallelism", 8, 30, "Hana", "speed", 4,
                                        False, 30)).send
    labels = [b.label for row in card.rows for b in row]
    assert labels == ["🟥 Red", "🟦 Blue", "🟩 Green", "🟨 Yellow", "🎲 Any team"]
    assert "Scoring: speed" in card.body and "The first question opens in 30 s" in card.body
    (card,) = plan.started(RoundStarted(7, "ur", "T", 8, 30, "H", "accuracy", 2, False,
                                        30)).send
    assert [b.label for b in card.rows[0]] == ["🟦 نیلی", "🟥 سرخ"]  # right to left



def test_nobody_wins_a_medal_with_nothing_right() -> None:
    # everyone tied at 0 is everyone ranked 1: no gold for them (standings, teams, the week)
    assert medal(1, 0) == medal(2, 0.0) == medal(1, 0) == "▫️"
    assert (medal(1, 1), medal(2, 3), medal(3, 0.5), medal(4, 2)) == ("🥇", "🥈", "🥉", "▫️")
