"""Round results -> what the chat sees, platform-neutral (the rounds half of `bot.present.plan`).

Every round message is public. A question is one card with lettered buttons and its closing
time; its reveal is one card that replaces it (the answer, the spread of answers as a small
bar chart, who got it right, the explanation, the standings, and at the end the podium).
"""

from __future__ import annotations

from collections.abc import Callable

from bot.domain.payloads import encode_round
from bot.domain.round_results import (
    LockedIn,
    PressRefused,
    RoundQuestion,
    RoundReveal,
    RoundStarted,
    Standing,
)
from bot.present import render
from bot.present.i18n import Catalogue, is_rtl, isolate
from bot.present.plan import Button, Card, Reply, round_ack

BAR, BAR_WIDTH = "▇", 10
STANDINGS_SHOWN = 10
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


def bars(counts: tuple[int, ...], lang: str) -> list[str]:
    """`A ▇▇▇ 3` per option, the longest bar BAR_WIDTH wide."""
    top = max(counts, default=0)
    lines = []
    for i, n in enumerate(counts):
        width = round(BAR_WIDTH * n / top) if top else 0
        if n and not width:
            width = 1
        label = isolate(render.letter(i)) if is_rtl(lang) else render.letter(i)
        lines.append(f"{label} {BAR * width} {n}".replace("  ", " "))
    return lines


class RoundPlanner:
    """Cards for one platform's markup; `closes` words a question's closing time."""

    def __init__(self, cat: Catalogue, markup: render.Markup,
                 closes: Callable[[RoundQuestion], str]) -> None:
        self.cat, self.m, self.closes = cat, markup, closes

    def t(self, lang: str, key: str, **params: object) -> str:
        return self.m.escape(self.cat.t(lang, key, **params))

    def _name(self, lang: str, name: str) -> str:
        return isolate(name) if is_rtl(lang) else name

    def started(self, started: RoundStarted) -> Reply:
        """The public answer to the command that started a round (where one is needed)."""
        return Reply(send=(Card(self.t(
            started.lang, "round.started", host=self._name(started.lang, started.host_name),
            title=started.quiz_title, total=started.total, seconds=started.seconds)),),
            public=True)

    def pressed(self, outcome: LockedIn | PressRefused) -> Reply:
        return Reply(ack=round_ack(self.cat, outcome))

    def _header(self, q: RoundQuestion) -> str:
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
        body = "\n".join([*self._body(q), "", self.closes(q)])
        return Card(body, title=f"{self._header(q)}  {render.progress_bar(q.qindex, q.total)}",
                    footer=q.quiz_title, rows=(row,))

    def reveal(self, r: RoundReveal) -> Card:
        """The question turned into its reveal; on the last one, the podium too."""
        lang, m = r.lang, self.m
        lines: list[str] = []
        q = r.question
        if q is not None:
            lines += [m.escape(render.content_text(lang, q.text)), ""]
            if 0 <= r.correct < len(q.options):
                lines.append(m.bold(self.t(lang, "round.answer",
                                           letter=render.letter(r.correct),
                                           option=render.content_text(lang,
                                                                      q.options[r.correct]))))
            lines += ["", *bars(r.counts, lang), ""]
            if r.right:
                names = ", ".join(self._name(lang, n) for n in r.right)
                lines.append(self.t(lang, "round.right", names=names))
            else:
                lines.append(self.t(lang, "round.nobody_right"))
            if r.explanation:
                lines += ["", m.escape(render.content_text(lang, r.explanation))]
        if r.final:
            lines += ["", *self._podium(r)]
        else:
            lines += ["", m.bold(self.t(lang, "round.standings")),
                      *self._standings(lang, r.standings)]
            if r.next_at is not None:
                pause = max(0, round(r.next_at - r.revealed_at))
                lines += ["", self.t(lang, "round.next_in", seconds=pause)]
        title = self._header(q) if q is not None else r.quiz_title
        return Card("\n".join(lines).strip(), title=title, footer=r.quiz_title)

    def _standings(self, lang: str, standings: tuple[Standing, ...]) -> list[str]:
        lines = []
        for s in standings[:STANDINGS_SHOWN]:
            row = self.t(lang, "round.standing_row", rank=s.rank,
                         name=self._name(lang, s.display_name), score=s.score,
                         seconds=f"{s.time:.1f}")
            lines.append(f"{MEDALS.get(s.rank, '▫️')} {row}")
        if len(standings) > STANDINGS_SHOWN:
            lines.append(self.t(lang, "round.more", count=len(standings) - STANDINGS_SHOWN))
        return lines

    def _podium(self, r: RoundReveal) -> list[str]:
        lang = r.lang
        lines = [self.m.bold(self.t(lang, "round.podium", title=r.quiz_title))]
        if r.stopped:
            lines.append(self.t(lang, "round.stopped"))
        if not r.standings:
            return [*lines, self.t(lang, "round.no_answers")]
        return [*lines, *self._standings(lang, r.standings)]

