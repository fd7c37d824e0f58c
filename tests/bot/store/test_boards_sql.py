"""Leaderboards past their first rows (`boards_sql`): how many members a board ranks and
where the asker stands, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import random

from bot.app.compose import build_engine
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.store.protocol import Store
from tests.dashboard_support import play

GROUP = "-1001234500009"


def member(i: int, chat: str | None = GROUP) -> Actor:
    return Actor("telegram", str(100 + i), chat, f"M{i}")


async def test_a_board_counts_its_members_and_places_the_asker_past_its_rows(
        any_store: Store, quizzes: dict[str, Quiz]) -> None:
    """Twelve members finished in a group, the board shows ten: it said nothing of the other
    two, and a member past the tenth place (or not on the board at all) could not tell."""
    engine = build_engine(any_store, quizzes, rng=random.Random(7))
    for i in range(12):  # scores 8, 7, ... 1, then four members level on 0, finished in turn
        await play(engine, quizzes, member(i), wrong=set(range(min(i, 8))))
    for kind in ("all", "solo"):
        board = await engine.leaderboard(member(11), kind=kind)
        assert [r.display_name for r in board.rows] == [f"M{i}" for i in range(10)], kind
        assert board.members == 12 and not board.absent
        assert board.mine is not None
        # level on score with three who finished earlier: after all eleven ahead
        assert (board.mine.rank, board.mine.display_name, board.mine.score,
                board.mine.total) == (12, "M11", 0, 8)
        shown = await engine.leaderboard(member(3), kind=kind)  # on the rows: no own line
        assert (shown.members, shown.mine, shown.absent) == (12, None, False)
        outsider = await engine.leaderboard(member(20), kind=kind)  # never finished here
        assert (outsider.members, outsider.mine, outsider.absent) == (12, None, True)
    rounds = await engine.leaderboard(member(3), kind="rounds")  # no round played: empty
    assert (rounds.rows, rounds.members, rounds.mine, rounds.absent) == ((), 0, None, False)
    world = await engine.leaderboard(member(10, None), scope="global")
    assert world.mine is not None and (world.mine.rank, world.members) == (11, 12)
