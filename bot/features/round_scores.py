"""Standings of a round, for members and for teams, under the round's scoring mode
(`bot.domain.round_rules`), and a question of the day's streaks and week."""

from __future__ import annotations

from collections.abc import Sequence

from bot.domain import learning, round_rules
from bot.domain.product_limits import MAX_SECONDS, STREAKS_SHOWN, WEEK_SHOWN
from bot.domain.round_results import DailyNotes, Standing, TeamStanding, WeekRow
from bot.store.round_rows import DailyHistory, RoundAnswer, RoundMember


def standings_of(answers: Sequence[RoundAnswer], scoring: str = round_rules.DEFAULT_SCORING,
                 seconds: float = MAX_SECONDS, *,
                 timed: bool = True) -> tuple[Standing, ...]:
    """Every member by points (accuracy: right answers), ties broken by less total time to
    the right answers (not in an untimed round: there ties share a place)."""
    theirs: dict[str, list[RoundAnswer]] = {}
    names: dict[str, str] = {}
    for a in answers:
        theirs.setdefault(a.user_id, []).append(a)
        names[a.user_id] = a.display_name
    rows = []
    for user, given in theirs.items():
        right = sum(a.correct for a in given)
        spent = sum(a.elapsed for a in given if a.correct) if timed else 0.0
        won = round_rules.points(scoring, ((a.qindex, a.correct, a.elapsed) for a in given),
                                 seconds)
        rows.append((user, right, spent, won))
    rows.sort(key=lambda r: (-r[3], round(r[2], 3), names[r[0]], r[0]))
    out: list[Standing] = []
    for i, (user, right, spent, won) in enumerate(rows):
        tied = out and (out[-1].points, round(out[-1].time, 3)) == (won, round(spent, 3))
        rank = out[-1].rank if tied else i + 1
        out.append(Standing(rank, user, names[user], right, spent, won))
    return tuple(out)


def team_standings(standings: Sequence[Standing], members: Sequence[RoundMember],
                   teams: int) -> tuple[TeamStanding, ...]:
    """Each team by its members' mean points (a member who never answered counts 0), with
    its best member; teams with nobody on them are left out."""
    points = {s.user_id: s for s in standings}
    rosters: dict[int, list[RoundMember]] = {}
    for m in members:
        if m.team is not None and 0 <= m.team < teams:
            rosters.setdefault(m.team, []).append(m)
    rows = []
    for team, roster in rosters.items():
        scored = [points[m.user_id] for m in roster if m.user_id in points]
        mean = sum(s.points for s in scored) / len(roster)
        best = min(scored, key=lambda s: (s.rank, s.display_name), default=None)
        rows.append((team, len(roster), mean,
                     best.display_name if best is not None and best.points > 0 else ""))
    rows.sort(key=lambda r: (-round(r[2], 6), r[0]))
    out: list[TeamStanding] = []
    for i, (team, size, mean, star) in enumerate(rows):
        tied = out and round(out[-1].score, 6) == round(mean, 6)
        out.append(TeamStanding(out[-1].rank if tied else i + 1, team, size, mean, star))
    return tuple(out)


SUNDAY = 6  # datetime.weekday()


def daily_notes(history: DailyHistory, revealed_at: float) -> DailyNotes:
    """Streaks (consecutive questions of the day answered, up to the newest) and, when the
    reveal falls on the chat's Sunday, the standing of the last seven days."""
    order = [rid for rid, _ in history.days]
    answered: dict[str, set[int]] = {}
    names: dict[str, str] = {}
    for a in history.answers:
        answered.setdefault(a.user_id, set()).add(a.round_id)
        names[a.user_id] = a.display_name
    streaks = []
    for user, rounds in answered.items():
        run = 0
        for rid in order:
            if rid not in rounds:
                break
            run += 1
        if run >= 2:
            streaks.append((names[user], run))
    streaks.sort(key=lambda s: (-s[1], s[0]))
    day = learning.local_day(revealed_at, history.utc_offset)
    if (day + 3) % 7 != SUNDAY:  # 1970-01-01 was a Thursday (weekday 3)
        return DailyNotes(tuple(streaks[:STREAKS_SHOWN]))
    week_start = revealed_at - 7 * learning.DAY
    week_ids = {rid for rid, started in history.days if started > week_start}
    tally: dict[str, list[int]] = {}
    for a in history.answers:
        if a.round_id in week_ids:
            t = tally.setdefault(a.user_id, [0, 0])
            t[0] += a.correct
            t[1] += 1
    ranked = sorted(tally, key=lambda u: (-tally[u][0], -tally[u][1], names[u]))
    week: list[WeekRow] = []
    for i, user in enumerate(ranked[:WEEK_SHOWN]):
        tied = week and (week[-1].right, week[-1].answered) == tuple(tally[user])
        week.append(WeekRow(week[-1].rank if tied else i + 1, names[user], *tally[user]))
    return DailyNotes(tuple(streaks[:STREAKS_SHOWN]), tuple(week), len(week_ids))
