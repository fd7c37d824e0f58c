"""Round results -> what the chat sees, platform-neutral (the rounds half of `bot.present.plan`).

Every round message is public. A question is one card with lettered buttons and its closing
time; its reveal is one card that replaces it (the answer, the spread of answers as a small
bar chart, who got it right, the explanation, the standings, and at the end the podium).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from bot.domain import learning
from bot.domain.numeric import grouped
from bot.domain.payloads import TeamPayload, WhoPagePayload, WhoPayload, encode_round
from bot.domain.platforms import units
from bot.domain.product_limits import (
    NAME_SHOWN,
    OPTION_SHOWN,
    RIGHT_SHOWN,
    STANDINGS_SHOWN,
    UNTIMED_SECONDS,
)
from bot.domain.round_results import (
    DailyNotes,
    DailySet,
    RoundQuestion,
    RoundReveal,
    RoundStarted,
    Standing,
    TeamStanding,
    WhoAnswered,
)
from bot.present import render
from bot.present.cards import Button, Card, Reply
from bot.present.clipping import clip_isolated
from bot.present.i18n import Catalogue, is_rtl, isolate, person
from bot.present.outcomes import team_name

BAR, BAR_WIDTH = "▇", 10
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


def medal(rank: int, score: float) -> str:
    """A podium place's medal; nothing to win with nothing right (everyone tied at 0 would
    otherwise share the gold)."""
    return MEDALS.get(rank, "▫️") if score > 0 else "▫️"


def bars(counts: tuple[int, ...], lang: str, options: Sequence[str] = ()) -> list[str]:
    """`A ▇▇▇ 45% · 90 · Megatron-LM` per option: the share of the answers, their number
    and the option's text as given (the reveal replaced the question's option lines, and a
    letter alone says nothing to whoever reads it later), the longest bar BAR_WIDTH wide."""
    top, total = max(counts, default=0), sum(counts)
    lines = []
    for i, n in enumerate(counts):
        width = round(BAR_WIDTH * n / top) if top else 0
        if n and not width:
            width = 1
        label = isolate(render.letter(i)) if is_rtl(lang) else render.letter(i)
        share = f"{round(100 * n / total) if total else 0}% · {n}"
        line = (f"{label} {BAR * width} {isolate(share) if is_rtl(lang) else share}"
                .replace("  ", " "))
        lines.append(f"{line} · {options[i]}" if i < len(options) and options[i] else line)
    return lines


class RoundPlanner:
    """Cards for one platform's markup; `closes` words a question's closing time."""

    def __init__(self, cat: Catalogue, markup: render.Markup,
                 closes: Callable[[RoundQuestion], str], *, limit: int = 4096,
                 shared_chats: bool = True) -> None:
        # `limit`: what one card (title, body and footer together) may hold on the platform
        self.cat, self.m, self.closes, self.limit = cat, markup, closes, limit
        # False where a round is started with `/round start` (Discord): a key's `_server`
        # form (`Catalogue.platform_key`)
        self.shared_chats = shared_chats

    def t(self, lang: str, key: str, **params: object) -> str:
        return self.m.escape(self.cat.t(lang, key, **params))

    def _name(self, lang: str, name: str) -> str:
        return person(lang, render.clip(name, NAME_SHOWN), self.m.inert)

    def fits(self, card: Card) -> bool:
        """True when the card's texts, as sent, fit the platform's limit."""
        return units(card.title) + units(card.body) + units(card.footer) + 4 <= self.limit

    def started(self, started: RoundStarted) -> Reply:
        """The public answer to the command that started a round (where one is needed); a
        team or untimed round's carries the join buttons."""
        lang = started.lang
        key = ("round.started_untimed" if started.untimed
               else "round.started_teams" if started.teams else "round.started")
        lines = [self.t(lang, key, host=self._name(lang, started.host_name),
                        title=started.quiz_title, total=started.total,
                        seconds=started.seconds)]
        rows: tuple[tuple[Button, ...], ...] = ()
        if started.teams:
            lines.append(self.t(lang, "round.lobby_teams", teams=started.teams,
                                seconds=started.lobby))
            teams = [Button(team_name(self.cat, lang, t),
                            TeamPayload(started.round_id, t).pack(), "primary")
                     for t in range(started.teams)]
            any_team = Button(self.cat.t(lang, "round.any_team"),
                              TeamPayload(started.round_id, None).pack())
            rows = (*(self._row(lang, teams[i:i + 3]) for i in range(0, len(teams), 3)),
                    (any_team,))
        elif started.untimed:
            lines.append(self.t(lang, "round.lobby_untimed", seconds=started.lobby,
                                minutes=UNTIMED_SECONDS // 60))
            rows = ((Button(self.cat.t(lang, "round.join_button"),
                            TeamPayload(started.round_id, None).pack(), "primary"),),)
        lines.append(self.t(lang, self.mode_key(started.scoring, started.untimed)))
        return Reply(send=(Card("\n\n".join(lines), rows=rows,
                                lobby=started.round_id if rows else None),), public=True)

    @staticmethod
    def _row(lang: str, buttons: list[Button]) -> tuple[Button, ...]:
        return tuple(reversed(buttons)) if is_rtl(lang) else tuple(buttons)

    @staticmethod
    def mode_key(scoring: str, untimed: bool) -> str:
        """The catalogue key that says how a round scores."""
        return f"round.mode_{scoring}" + ("_untimed" if untimed else "")

    def _header(self, q: RoundQuestion) -> str:
        if q.daily:
            return self.cat.t(q.lang, "daily.header")
        return self.cat.t(q.lang, "round.header", number=q.number, total=q.total)

    def _body(self, q: RoundQuestion) -> list[str]:
        m, lang = self.m, q.lang
        return [m.escape(render.content_text(lang, q.text)), "",
                *(f"{m.bold(render.letter_in(lang, i))}) {m.escape(render.content_text(lang, o))}"
                  for i, o in enumerate(q.options))]

    def question(self, q: RoundQuestion) -> Card:
        """The question as everyone sees it, with one lettered button per option."""
        buttons = [Button(render.letter(i), encode_round(q.round_id, q.qindex, i), "primary")
                   for i in range(len(q.options))]
        row = tuple(reversed(buttons)) if is_rtl(q.lang) else tuple(buttons)
        if q.daily:
            closes = self.t(q.lang, "daily.closes", hours=f"{q.seconds / 3600:g}")
        elif q.untimed:
            closes = self.t(q.lang, "round.closes_untimed", minutes=q.seconds // 60)
        else:
            closes = self.closes(q)
        body = "\n".join([*self._body(q), "", closes])
        progress = "" if q.daily else f"  {render.progress_bar(q.qindex, q.total)}"
        return Card(body, title=f"{self._header(q)}{progress}", footer=q.quiz_title,
                    rows=(row,))

    def reveal(self, r: RoundReveal) -> Card:
        """The question turned into its reveal; on the last one, the podium too.

        However many members answered, the card fits the platform: the fastest names and
        the top standings are shown, the rest counted ("…and 231 more members"), and then a
        "Who answered?" button opens the full list privately.
        """
        # the group reads the point; the full explanation is one tap away, privately
        right, standings = RIGHT_SHOWN, STANDINGS_SHOWN
        explanation = r.takeaway or r.explanation
        while True:
            card = self._reveal(r, right, standings, explanation)
            if self.fits(card):
                return card
            if right > 0:
                right //= 2
            elif standings > 3:
                standings = 3
            elif explanation:  # the loader keeps explanations in bounds; this is a guard
                explanation = render.clip(explanation, max(0, len(explanation) // 2))
            else:
                return replace(card, body=render.clip(card.body, self.limit // 2))

    def _reveal(self, r: RoundReveal, right_shown: int, standings_shown: int,
                explanation: str) -> Card:
        lang, m = r.lang, self.m
        lines: list[str] = []
        q = r.question
        cut = False
        if q is not None:
            lines += [m.escape(render.content_text(lang, q.text)), ""]
            if 0 <= r.correct < len(q.options):
                lines.append(m.bold(self.t(lang, "round.answer",
                                           letter=render.letter(r.correct),
                                           option=render.content_text(lang,
                                                                      q.options[r.correct]))))
            answered = sum(r.counts)
            members = max(answered, len(r.standings), r.joined)
            lines.append("")
            # "180 of 200 answered": of everyone who has played this round or joined it
            if members:
                lines.append(self.t(lang, "round.answered", answered=answered, count=members))
            texts = [m.escape(clip_isolated(o, OPTION_SHOWN, is_rtl(lang))) for o in q.options]
            lines += [*bars(r.counts, lang, texts), ""]
            if r.right:
                shown = r.right[:right_shown]
                if shown:
                    sep = self.cat.raw(lang, "list.separator")
                    names = sep.join(self._name(lang, n) for n in shown)
                    lines.append(self.t(lang, "round.right", names=names))
                if len(r.right) > len(shown):
                    cut = True
                    lines.append(self.t(lang, "round.more", count=len(r.right) - len(shown)))
            elif not answered:  # nobody answered: say why, not "nobody got it right"
                lines.append(self.t(lang, "round.stopped_unanswered"
                                    if r.stopped and not r.idle else "round.none_answered"))
            else:
                lines.append(self.t(lang, "round.nobody_right"))
            if explanation:
                text = m.escape(render.content_text(lang, explanation))
                lines += ["", m.bold(text) if r.takeaway else text]
        if r.daily is not None:
            lines += self._daily(r.lang, r.daily)
        elif r.final:
            lines += ["", *self._podium(r, standings_shown)]
        else:
            lines += ["", *self._teams(lang, r.teams, r.scoring)]
            if r.standings:  # nobody has answered yet: no heading over an empty list
                lines += [m.bold(self.t(lang, "round.standings")),
                          *self._standings(lang, r.standings, standings_shown, r.scoring,
                                           timed=not r.untimed)]
            lines.append(self.t(lang, self.mode_key(r.scoring, r.untimed)))
            if r.next_at is not None:
                pause = max(0, round(r.next_at - r.revealed_at))
                lines += ["", self.t(lang, "round.next_in", seconds=pause)]
        cut = cut or len(r.standings) > standings_shown
        title = self._header(q) if q is not None else r.quiz_title
        rows: tuple[tuple[Button, ...], ...] = ()
        if q is not None and (r.explanation or cut):  # the explanation and the list, privately
            rows = ((Button(self.cat.t(lang, "round.explain_button"),
                            WhoPayload(r.round_id, q.qindex).pack()),),)
        elif cut:  # the full list, privately
            rows = ((Button(self.cat.t(lang, "round.who_button"),
                            WhoPayload(r.round_id, max(0, r.last_qindex)).pack()),),)
        return Card("\n".join(lines).strip(), title=title, footer=r.quiz_title, rows=rows)

    def _daily(self, lang: str, notes: DailyNotes) -> list[str]:
        """A question of the day's streaks and, on Sundays, the week (bounded lists)."""
        lines: list[str] = []
        if notes.streaks:
            sep = self.cat.raw(lang, "list.separator")
            names = sep.join(f"{self._name(lang, name)} {days}" for name, days in notes.streaks)
            lines += ["", self.t(lang, "daily.streaks", names=names)]
        if notes.week:
            lines += ["", self.m.bold(self.t(lang, "daily.week", days=notes.days))]
            lines += [f"{medal(w.rank, w.right)} " + self.t(
                lang, "daily.week_row", rank=w.rank, name=self._name(lang, w.name),
                right=w.right, answered=w.answered) for w in notes.week]
        return lines

    def daily_set(self, d: DailySet) -> Reply:
        """The answer to /daily on, off or status, in the chat (status: off by itself, why)."""
        if not d.on:
            key = "daily.off" if d.stopped is None else "daily.stopped"
            return Reply(send=(Card(self.t(d.lang, key)),), public=True)
        return Reply(send=(Card(self.t(
            d.lang, "daily.on", title=d.quiz_title, time=learning.format_time(d.post_minute),
            offset=learning.format_offset(d.utc_offset), hours=f"{d.close_hours:g}")),),
            public=True)

    def _teams(self, lang: str, teams: tuple[TeamStanding, ...], scoring: str) -> list[str]:
        """The teams' standings (at most six lines) and a blank line, or nothing: a mean of
        points in whole points, a mean of right answers to one decimal."""
        if not teams:
            return []
        lines = [self.m.bold(self.t(lang, "round.team_standings"))]
        for t in teams:
            score = f"{t.score:.1f}" if scoring == "accuracy" else grouped(f"{t.score:.0f}")
            row = self.t(lang, "round.team_row", rank=t.rank,
                         team=team_name(self.cat, lang, t.team), score=score,
                         members=t.members)
            if t.best:
                row += self.t(lang, "round.team_best", best=self._name(lang, t.best))
            lines.append(f"{medal(t.rank, t.score)} {row}")
        return [*lines, ""]

    def _standings(self, lang: str, standings: tuple[Standing, ...],
                   shown: int = STANDINGS_SHOWN, scoring: str = "accuracy", *,
                   timed: bool = True) -> list[str]:
        lines = [f"{medal(s.rank, s.score)} "
                 + self._standing(lang, s.rank, s.display_name, s.score, s.time, s.points,
                                  scoring, timed=timed)
                 for s in standings[:shown]]
        if len(standings) > shown:
            lines.append(self.t(lang, "round.more", count=len(standings) - shown))
        return lines

    def _standing(self, lang: str, rank: int, name: str, score: int, time: float,
                  points: int, scoring: str, *, timed: bool) -> str:
        """One member's place as the round scores: right answers and time, right answers
        (untimed, or none right: the time is that spent on right answers, and "0 right ·
        0.0 s" read as the fastest of all), or points: the standings and the private list
        read alike."""
        name = self._name(lang, name)
        if scoring == "accuracy" and (not timed or score == 0):  # no time spent to show
            return self.t(lang, "round.standing_untimed", rank=rank, name=name, score=score)
        if scoring == "accuracy":
            return self.t(lang, "round.standing_row", rank=rank, name=name, score=score,
                          seconds=f"{time:.1f}")
        return self.t(lang, "round.standing_points", rank=rank, name=name,
                      points=grouped(str(points)), score=score)

    def lobby_over(self, r: RoundReveal) -> str:
        """What the lobby of the round `r` ends says in place of "Press Join…" (the same
        edit takes its buttons off): the round is over, and how to start another."""
        key = self.cat.platform_key(r.lang, "round.lobby_over", shared_chats=self.shared_chats)
        return self.t(r.lang, key, title=r.quiz_title)

    def _podium(self, r: RoundReveal, shown: int = STANDINGS_SHOWN) -> list[str]:
        lang = r.lang
        lines = [self.m.bold(self.t(lang, "round.podium", title=r.quiz_title))]
        if r.idle:  # it ended by itself: why, and how to start another
            key = self.cat.platform_key(lang, "round.ended_idle",
                                        shared_chats=self.shared_chats)
            lines.append(self.t(lang, key, count=r.idle))
        elif r.stopped:
            lines.append(self.t(lang, "round.stopped"))
        lines.append(self.t(lang, self.mode_key(r.scoring, r.untimed)))
        if not r.standings:
            return [*lines, self.t(lang, "round.no_answers")]
        return [*lines, "", *self._teams(lang, r.teams, r.scoring),
                *self._standings(lang, r.standings, shown, r.scoring, timed=not r.untimed)]

    # --- the private list behind "Who answered?" ------------------------------------------

    def who(self, w: WhoAnswered, owner_id: str) -> Card:
        """One page of the full list, with Back / Next buttons only `owner_id` may press."""
        lang = w.lang
        lines = []
        if w.page == 0 and w.explanation:  # what the group saw in one line, in full
            if w.takeaway:
                lines += [self.m.bold(self.m.escape(render.content_text(lang, w.takeaway))), ""]
            lines += [self.m.escape(render.content_text(lang, w.explanation)), ""]
        lines += [self.t(lang, "round.who_summary", answered=w.answered, count=w.members), ""]
        marks = {"right": "round.who_right", "wrong": "round.who_wrong"}
        for row in w.rows:
            mark = self.cat.t(lang, marks.get(row.mark, "round.who_silent"))
            text = self._standing(lang, row.rank, row.name, row.score, row.time, row.points,
                                  w.scoring, timed=not w.untimed)
            lines.append(f"{mark} {text}")
        if w.pages > 1:
            lines += ["", self.t(lang, "round.who_page", page=w.page + 1, pages=w.pages)]
        buttons = []
        if w.page > 0:
            buttons.append(Button(self.cat.t(lang, "round.who_prev"), WhoPagePayload.page(
                owner_id, w.round_id, w.qindex, w.page - 1).pack()))
        if w.page + 1 < w.pages:
            buttons.append(Button(self.cat.t(lang, "round.who_next"), WhoPagePayload.page(
                owner_id, w.round_id, w.qindex, w.page + 1).pack(), "primary"))
        paging = tuple(reversed(buttons)) if is_rtl(lang) else tuple(buttons)
        title = self.cat.t(lang, "round.who_title", title=w.quiz_title, number=w.number,
                           total=w.total)
        card = Card("\n".join(lines), title=title, rows=(paging,) if paging else ())
        if w.page > 0 or not w.explanation:
            return card
        # the picture the explanation speaks of, as a learner's own answer shows it
        return render.pictured(card, self.cat, lang, w.image, w.schedule, self.m)

