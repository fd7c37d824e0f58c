"""Who plays on which team (and who joined an untimed round): one body per command.

A member joins before question 1 (a team's button, or "any team"); when question 1 opens,
the members who asked for any team are drafted by their past accuracy
(`bot.domain.round_rules.draft`); a member who first answers later goes to the smallest
team. The primary key (round, member) keeps everyone on one team for the whole round.
"""

from __future__ import annotations

from bot.domain.round_rules import draft, smallest_team
from bot.store.command import Command, many, one, q
from bot.store.round_rows import Joining, JoinWrite, RoundMember, RoundRow
from bot.store.rows import from_row

# A member nobody has seen answer yet counts as middling when teams are drafted.
UNKNOWN_ACCURACY = 0.5


def members(round_id: int) -> Command[tuple[RoundMember, ...]]:
    """Who joined the round, by team, then name."""
    rows = yield q("SELECT user_id, display_name, team FROM round_members WHERE round_id = ? "
                   "ORDER BY team, display_name, user_id", round_id)
    return tuple(from_row(RoundMember, r) for r in rows)


def join_round(round_id: int, user_id: str, display_name: str, team: int | None,
               now: float) -> Command[Joining]:
    """Join before question 1 (team None: any team); a member's team never changes."""
    joined = yield q(
        "INSERT INTO round_members (round_id, user_id, display_name, team, joined_at) "
        "SELECT id, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS INTEGER), "
        "CAST(? AS DOUBLE PRECISION) FROM rounds WHERE id = ? AND status = 'active' "
        "AND position = -1 AND (teams > 0 OR untimed = 1) AND CAST(? AS INTEGER) < teams "
        "ON CONFLICT (round_id, user_id) DO NOTHING RETURNING team",
        user_id, display_name, team, now, round_id, -1 if team is None else team)
    if joined:
        return Joining(JoinWrite.JOINED, team)
    stored = one((yield q("SELECT team FROM round_members WHERE round_id = ? AND user_id = ?",
                          round_id, user_id)))
    if stored is not None:
        return Joining(JoinWrite.ALREADY, None if stored["team"] is None else int(stored["team"]))
    running = one((yield q("SELECT position FROM rounds WHERE id = ? AND status = 'active'",
                           round_id)))
    if running is None:
        return Joining(JoinWrite.GONE, None)
    return Joining(JoinWrite.CLOSED if int(running["position"]) >= 0 else JoinWrite.GONE, None)


def _sizes(round_id: int) -> Command[dict[int, int]]:
    rows = yield q("SELECT team, COUNT(*) AS n FROM round_members WHERE round_id = ? "
                   "AND team IS NOT NULL GROUP BY team", round_id)
    return {int(r["team"]): int(r["n"]) for r in rows}


def draft_teams(rnd: RoundRow) -> Command[None]:
    """Question 1 opens: place every "any team" member by past accuracy (snake draft)."""
    waiting = yield q("SELECT user_id FROM round_members WHERE round_id = ? AND team IS NULL",
                      rnd.id)
    if not waiting:
        return
    known = yield q(
        "SELECT s.user_id, AVG(CAST(a.correct AS DOUBLE PRECISION)) AS accuracy "
        "FROM answers a JOIN sessions s ON s.id = a.session_id WHERE s.platform = ? "
        "AND s.user_id IN (SELECT user_id FROM round_members WHERE round_id = ? "
        "AND team IS NULL) GROUP BY s.user_id", rnd.platform, rnd.id)
    accuracy = {str(r["user_id"]): float(r["accuracy"]) for r in known}
    strengths = {str(r["user_id"]): accuracy.get(str(r["user_id"]), UNKNOWN_ACCURACY)
                 for r in waiting}
    sizes = yield from _sizes(rnd.id)
    placed = draft(rnd.teams, [sizes.get(t, 0) for t in range(rnd.teams)], strengths)
    yield many("UPDATE round_members SET team = ? WHERE round_id = ? AND user_id = ?",
               [(team, rnd.id, user) for user, team in sorted(placed.items())])


def place_on_press(round_id: int, user_id: str, display_name: str, teams: int,
                   now: float) -> Command[tuple[int | None, bool]]:
    """A member's first answer in a team (or untimed) round joins them if they had not:
    on the smallest team (untimed without teams: no team). The member's team (whether
    drafted, chosen or put on now; None without teams): a drafted member learns it here;
    and whether this answer joined them (each question now waits for them too)."""
    member = one((yield q("SELECT team FROM round_members WHERE round_id = ? AND user_id = ?",
                          round_id, user_id)))
    if member is not None:
        return (None if member["team"] is None else int(member["team"])), False
    team = smallest_team(teams, (yield from _sizes(round_id))) if teams else None
    yield q("INSERT INTO round_members (round_id, user_id, display_name, team, joined_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (round_id, user_id) DO NOTHING",
            round_id, user_id, display_name, team, now)
    return team, True


def set_lobby_message(round_id: int, ref: str) -> Command[None]:
    """Remember the platform's id of a round's lobby message (its join buttons), which the
    round's end takes off."""
    yield q("UPDATE rounds SET lobby_ref = ? WHERE id = ?", ref, round_id)
