"""Study-group rounds: one timed question at a time for a whole chat, private lock-in,
reveal, standings.

The database holds every round's state and its due times (`bot.store.round_rows`): a
question's deadline, the next question's opening. `Rounds` turns commands and presses into
store calls and store rows into results. The scheduler claims what is due and shows it
through the adapters (`round_jobs.py`); a command that makes something due now wakes it.
Nothing here imports a platform.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import replace

from bot.domain import learning, product_limits, round_rules
from bot.domain.errors import (
    BadRoundLength,
    BadRoundOptions,
    NoRound,
    NotHost,
    RoundRunning,
    RoundsAreForGroups,
)
from bot.domain.results import Actor, Misplaced, Where
from bot.domain.rights import Manages
from bot.domain.round_results import (
    MAYBE_POSTED,
    Joined,
    LockedIn,
    PressOutcome,
    PressRefused,
    RoundEvent,
    RoundQuestion,
    RoundReveal,
    RoundStarted,
    WhoAnswered,
    WhoRow,
)
from bot.domain.shuffle import deal
from bot.domain.stats_results import Leaderboard, LeaderboardRow, ranked
from bot.features.groups import Groups
from bot.features.library import Library
from bot.features.review import card_update
from bot.features.round_events import RoundEvents
from bot.features.round_scores import standings_of
from bot.features.sessions import Sessions
from bot.store.commands import boards_sql, round_teams_sql, rounds_sql
from bot.store.protocol import Store
from bot.store.round_rows import (
    NewPress,
    NewRound,
    PressWrite,
    RoundPost,
    RoundRow,
)
from bot.store.rows import BestRow, BoardPlace, chat_scope

log = logging.getLogger(__name__)

Clock = Callable[[], float]


class Rounds:
    """Runs rounds for every platform on top of a `Store`, with the services it needs:
    `library` (quizzes, languages), `groups` (a group's chosen quiz and language), `solo`
    (the solo boards), `memory` (the card update of a lock-in), one `clock`, and `wake`
    (the scheduler looks now)."""

    def __init__(self, library: Library, groups: Groups, solo: Sessions, store: Store, *,
                 memory: learning.Memory, clock: Clock,
                 default_seconds: int = product_limits.DEFAULT_SECONDS,
                 reveal_seconds: float = product_limits.DEFAULT_REVEAL_SECONDS,
                 rng: random.Random | None = None,
                 wake: Callable[[], None] = lambda: None) -> None:
        if not product_limits.round_seconds_ok(default_seconds):
            raise ValueError(f"rounds.default_seconds must be {product_limits.MIN_SECONDS}-"
                             f"{product_limits.MAX_SECONDS}")
        self.library, self.groups, self.solo = library, groups, solo
        self.memory, self.store, self.clock = memory, store, clock
        self.default_seconds, self.reveal_seconds = default_seconds, reveal_seconds
        self._rng = rng or random.Random()
        self.events = RoundEvents(library)
        self.wake = wake  # the scheduler looks at the store now: something is due

    # --- commands ------------------------------------------------------------------------

    async def start(self, actor: Actor, chat_id: str | None, quiz_id: str | None = None, *,
                    seconds: int | None = None, questions: int | None = None,
                    scoring: str = round_rules.DEFAULT_SCORING, teams: int = 0,
                    untimed: bool = False) -> RoundStarted:
        """Start a round in `chat_id` (a group, a channel) with `actor` as its host.

        The first question opens at once (the scheduler posts it); a team or untimed round
        first gives members `LOBBY_SECONDS` to join. `actor.chat_id` names the leaderboard
        the round counts on (the group; on Discord the server).
        """
        if chat_id is None or actor.chat_id is None:
            raise RoundsAreForGroups()
        if (scoring not in round_rules.SCORINGS or (untimed and scoring == "speed")
                or not product_limits.teams_ok(teams)):
            raise BadRoundOptions()
        chosen_quiz, chosen_lang = await self.groups.choice(actor)  # the group's
        quiz = self.library.quiz(quiz_id or chosen_quiz)
        lang = chosen_lang or await self.library.language(actor)
        seconds = self.default_seconds if seconds is None else seconds
        total = len(quiz.questions) if questions is None else questions
        if not (product_limits.round_seconds_ok(seconds)
                and product_limits.round_questions_ok(questions, len(quiz.questions))):
            most = min(product_limits.MAX_QUESTIONS, len(quiz.questions))
            raise BadRoundLength(low=product_limits.MIN_SECONDS, high=product_limits.MAX_SECONDS,
                                 count=most, some=min(5, most))
        if untimed:
            seconds = product_limits.UNTIMED_SECONDS
        lobby = product_limits.LOBBY_SECONDS if teams or untimed else 0
        picked = list(quiz.questions)
        if total < len(picked):
            keep = set(self._rng.sample(range(len(picked)), total))
            picked = [q for i, q in enumerate(picked) if i in keep]
        picked, orders = deal(self._rng, picked, shuffle=quiz.shuffle_questions)
        new = NewRound(actor.platform, chat_id, actor.chat_id, actor.user_id,
                       actor.display_name, quiz.id, lang, tuple(q.id for q in picked),
                       orders, seconds, self.reveal_seconds,
                       seed=self._rng.getrandbits(62),  # every member's numbers
                       scoring=scoring, teams=teams, untimed=untimed, lobby=lobby)
        row = await self.store.write(rounds_sql.create_round, new, self.clock())
        if row is None:
            raise RoundRunning()
        self.wake()
        return RoundStarted(row.id, lang, quiz.title.get(lang), row.total, seconds,
                            actor.display_name, scoring, teams, untimed, lobby)

    async def join(self, actor: Actor, round_id: int, team: int | None,
                   where: Where | None = None) -> Joined | Misplaced:
        """A member's press of a join button before question 1 (`team` None: any team,
        drawn by past accuracy when question 1 opens; in an untimed round: join)."""
        lang = await self.library.language(actor)
        row = await self.store.read(rounds_sql.get_round, round_id)
        if row is None or row.platform != actor.platform:
            return Joined(round_id, lang, "gone", None)
        if where is not None and not where.on(row.chat_id):
            return Misplaced(lang)
        joined = await self.store.write(round_teams_sql.join_round,
                                        round_id, actor.user_id, actor.display_name,
                                        team, self.clock())
        return Joined(round_id, lang, str(joined.outcome), joined.team, row.teams > 0)

    async def running(self, platform: str, chat_id: str) -> bool:
        """True while a round runs in the chat (its posts own the chat)."""
        return await self.store.read(rounds_sql.active_round, platform, chat_id) is not None

    async def _running(self, actor: Actor, chat_id: str | None, may_manage: Manages) -> RoundRow:
        if chat_id is None:
            raise RoundsAreForGroups()
        row = await self.store.read(rounds_sql.active_round, actor.platform, chat_id)
        if row is None:
            raise NoRound()
        if not await self.groups.manages(actor, may_manage, row.host_id):
            raise NotHost(host=row.host_name)
        return row

    async def stop(self, actor: Actor, chat_id: str | None, *,
                   may_manage: Manages = False) -> RoundReveal:
        """End the chat's round now: the host, or a member the platform lets moderate."""
        row = await self._running(actor, chat_id, may_manage)
        stopped = await self.store.write(rounds_sql.stop_round, row.id, self.clock())
        if stopped is None:  # it ended meanwhile
            raise NoRound()
        self.wake()
        post = await self.store.read(rounds_sql.round_post, row.id, stopped[0])
        shown = self.event_of(post, stopped[1]) if post else None  # as its post job shows it
        assert isinstance(shown, RoundReveal)
        return shown

    async def skip(self, actor: Actor, chat_id: str | None, *,
                   may_manage: Manages = False) -> None:
        """Reveal the open question now (between questions: open the next one now)."""
        row = await self._running(actor, chat_id, may_manage)
        if not await self.store.write(rounds_sql.skip_round, row.id, self.clock()):
            raise NoRound()
        self.wake()

    async def chat_gone(self, platform: str, chat_id: str) -> RoundRow | None:
        """The platform says the bot can no longer post in the chat: its running round ends
        now (what was answered counts) rather than opening questions nobody can see. The
        round it ended (None: none ran, or another call ended it). Nothing more is posted
        for it: every post would be refused."""
        row = await self.store.read(rounds_sql.active_round, platform, chat_id)
        if row is not None and await self.store.write(rounds_sql.end_unseen_round, row.id,
                                                      self.clock()):
            log.info("rounds: %s chat %s no longer lets the bot post; round %s ended",
                     platform, chat_id, row.id)
            return row
        return None

    # --- presses -------------------------------------------------------------------------

    async def press(self, actor: Actor, round_id: int, qindex: int, option: int,
                    where: Where | None = None) -> PressOutcome | Misplaced:
        """A member's press of a lettered button: their first one on the open question
        locks in; the answer's correctness stays hidden until the reveal.

        `where` (the platform's word on the pressed message) must be the round's own chat
        and that question's own message: a button's data copied anywhere else counts
        nothing. Only in-process callers (tests, benchmarks) pass None.
        """
        lang = await self.library.language(actor)
        row = await self.store.read(rounds_sql.get_round, round_id)
        if row is None or row.platform != actor.platform or not 0 <= qindex < row.total:
            return PressRefused(round_id, lang, "gone")
        if where is not None and not await self._on_its_message(row, qindex, where):
            log.info("rounds: a press of round %s question %d from chat %s message %s "
                     "refused: not its message", round_id, qindex, where.chat_id,
                     where.message_id)
            return Misplaced(lang)
        order = row.option_orders[qindex]
        quiz = self.events.quiz(row)
        question = quiz.question(row.question_ids[qindex]) if quiz else None
        if question is None or not 0 <= option < len(order):
            return PressRefused(round_id, lang, "gone")
        chosen, now = order[option], self.clock()
        correct = chosen == question.correct
        # The lock-in feeds the member's spaced-review card in the same transaction, once
        # (keyed by round, question and member).
        review = card_update(self.memory, f"r:{row.id}:{qindex}:{actor.user_id}",
                             actor.platform, actor.user_id, row.quiz_id, question.id, correct,
                             None, now)
        pressed = await self.store.write(rounds_sql.press_round, NewPress(
            round_id, qindex, actor.user_id, actor.display_name, chosen, correct, now,
            row.teams, row.untimed, review))
        if pressed.outcome in (PressWrite.LOCKED, PressWrite.REPEAT):
            assert pressed.chosen is not None
            if pressed.early:
                self.wake()
            return LockedIn(round_id, lang, order.index(pressed.chosen),
                            repeat=pressed.outcome == PressWrite.REPEAT, team=pressed.team,
                            joined=pressed.joined)
        if (pressed.outcome == PressWrite.LATE and qindex == row.total - 1
                and row.kind == "round"):
            return PressRefused(round_id, lang, "late_last")  # no next one to wait for
        return PressRefused(round_id, lang, str(pressed.outcome))

    async def _on_its_message(self, row: RoundRow, qindex: int, where: Where) -> bool:
        if not where.on(row.chat_id):
            return False
        stored = await self.store.read(rounds_sql.round_message, row.id, qindex)
        if stored == MAYBE_POSTED and where.message_id is not None:
            # its post got no answer but arrived: a press on it (on a message carrying its
            # buttons: `button_router`) says which message the reveal is to edit
            await self.store.write(rounds_sql.set_round_message, row.id, qindex,
                                   where.message_id, MAYBE_POSTED)
        # None: the post is a moment old and its id not stored yet; the chat is right.
        return stored in (None, MAYBE_POSTED) or stored == where.message_id

    async def who(self, actor: Actor, round_id: int, qindex: int, page: int = 0,
                  where: Where | None = None) -> WhoAnswered | PressRefused | Misplaced:
        """One page of the full list behind a reveal's "Who answered?": every member by
        standing after question `qindex`, each marked right, wrong or silent on it; only
        once that question is revealed."""
        lang = await self.library.language(actor)
        row = await self.store.read(rounds_sql.get_round, round_id)
        if (row is None or row.platform != actor.platform or not 0 <= qindex < row.total
                or qindex > row.position):
            return PressRefused(round_id, lang, "gone")
        if where is not None and where.shared and not where.on(row.chat_id):
            return Misplaced(lang)
        post = await self.store.read(rounds_sql.round_post, round_id, qindex)
        if post is None or post.revealed_at is None:
            # Still open: who is right must not leak before the reveal (a second account
            # could read it, then the first answer right).
            return PressRefused(round_id, lang, "not_revealed")
        answers = post.answers
        marks = {a.user_id: "right" if a.correct else "wrong"
                 for a in answers if a.qindex == qindex}
        standings = self.events.standings(row, answers)
        pages = max(1, -(-len(standings) // product_limits.WHO_PAGE))
        page = min(max(page, 0), pages - 1)
        shown = standings[page * product_limits.WHO_PAGE:(page + 1) * product_limits.WHO_PAGE]
        quiz = self.events.quiz(row)
        question = self.events.drawn(quiz, row, qindex)
        return WhoAnswered(
            round_id, qindex, row.chat_id, lang,
            quiz.title.get(lang) if quiz else row.quiz_id, qindex + 1, row.total, page, pages,
            len(standings), len(marks),
            tuple(WhoRow(s.rank, s.display_name, s.score, s.time, marks.get(s.user_id, ""),
                         s.points) for s in shown),
            takeaway=question.takeaway.get(lang) if question and question.takeaway else "",
            explanation=question.explanation.get(lang) if question else "",
            scoring=row.scoring, untimed=row.untimed,
            image=question.image if question else None,
            schedule=question.schedule if question else None)

    # --- what is due -----------------------------------------------------------------------

    async def claim(self, platform: str, now: float) -> None:
        """Claim what is due by `now` on `platform` (reveals, then questions to open); the
        claims write the post jobs the scheduler shows. A question whose post is not out
        yet is not revealed unseen: it is timed from its post."""
        await self.store.write(rounds_sql.hold_unshown, platform, now)
        # a round nobody answers ends by itself (the reveal's own transaction decides)
        await self.store.write(rounds_sql.reveal_due_questions, platform, now,
                               product_limits.UNANSWERED_TO_END)
        await self.store.write(rounds_sql.open_due_questions, platform, now)

    async def next_due(self, platform: str) -> float | None:
        """When the platform's next reveal or opening is due."""
        return await self.store.read(rounds_sql.next_round_due, platform)

    def event_of(self, post: RoundPost, what: str) -> RoundEvent | None:
        """What a post job shows, from the store as it stands now: a question ("q"; None
        once revealed, its reveal posts instead), a reveal ("r"), a stop between questions
        ("s"); an older question's reveal reads as it did then, not as the podium."""
        row, qindex = post.round, post.qindex
        if what == "q":
            if post.deadline is None or post.revealed_at is not None:
                return None
            return self.events.question(row, qindex, post.deadline)
        if what == "s":
            return self.events.reveal(replace(post, deadline=None, revealed_at=row.finished_at,
                                              message_ref=None, history=None), stopped=True)
        if post.revealed_at is None:
            return None
        if qindex < row.position:  # the round went on since: not final, next was due
            row = replace(row, status="active",
                          next_open_at=post.revealed_at + row.reveal_pause)
        return self.events.reveal(replace(post, round=row))

    async def on_time(self, question: RoundQuestion) -> RoundQuestion:
        """The question as it is about to be posted: one held back (the platform failing, a
        restart) is timed from now, so it stays open as long as its post says."""
        now = self.clock()
        if question.daily or now - (question.deadline - question.seconds) <= \
                product_limits.LATE_POST:
            return question
        deadline = await self.store.write(rounds_sql.time_from_post, question.round_id,
                                          question.qindex, now)
        if deadline is None:
            return question
        self.wake()  # the reveal is due later than the scheduler thought
        log.info("rounds: round %s question %d posted %.0f s late; timed from now",
                 question.round_id, question.qindex, now - question.deadline + question.seconds)
        return replace(question, deadline=deadline)

    async def posted(self, question: RoundQuestion, ref: str) -> None:
        """Remember where a question was posted, to edit it into its reveal."""
        await self.store.write(rounds_sql.set_round_message,
                               question.round_id, question.qindex, ref)

    async def lobby_posted(self, round_id: int, ref: str) -> None:
        """Remember where a round's lobby was posted, to take its join buttons off at the end."""
        await self.store.write(round_teams_sql.set_lobby_message, round_id, ref)

    # --- boards ----------------------------------------------------------------------------

    async def leaderboard(self, actor: Actor, quiz_id: str | None = None, *,
                          scope: str = "chat", kind: str = "all",
                          limit: int = 10) -> Leaderboard:
        """The chat's (or the global) board: every attempt, or only solo ones or rounds; with
        how many members it ranks and where the asker stands when not among the rows."""
        if kind not in ("solo", "rounds"):
            board = await self.solo.leaderboard(actor, quiz_id, scope=scope, limit=limit)
            key = chat_scope(actor.platform, actor.chat_id or "") if board.scope == "chat" else ""
            return placed(board, actor, await self.store.read(
                boards_sql.best_place, board.quiz_id, key, actor.platform, actor.user_id))
        quiz = self.library.quiz(quiz_id)
        lang = await self.library.language(actor)
        chat = actor.chat_id if scope == "chat" else None
        rows = await self.store.read(boards_sql.board,
                                     quiz.id, actor.platform, chat, rounds=kind == "rounds",
                                     limit=limit)
        place = await self.store.read(boards_sql.board_place, quiz.id, actor.platform, chat,
                                      actor.user_id, rounds=kind == "rounds")
        return placed(Leaderboard(lang, quiz.id, quiz.title.get(lang),
                                  "chat" if chat else "global", ranked(
                                      board_row(0, r) for r in rows), len(quiz.questions),
                                  kind=kind), actor, place)


def board_row(rank: int, r: BestRow) -> LeaderboardRow:
    """A stored board line as the board shows it, at place `rank`."""
    return LeaderboardRow(rank, r.display_name, r.platform, r.user_id, r.score, r.total,
                          r.finished_at)


def placed(board: Leaderboard, actor: Actor, place: BoardPlace) -> Leaderboard:
    """The board with how many members it ranks, and the asker's own line when the rows
    shown leave them out (or that they are not on it)."""
    shown = any((r.platform, r.user_id) == (actor.platform, actor.user_id) for r in board.rows)
    mine = None if shown or place.row is None else board_row(place.rank, place.row)
    return replace(board, members=max(place.members, len(board.rows)), mine=mine,
                   absent=place.row is None and bool(board.rows))


__all__ = ["Rounds", "standings_of"]
