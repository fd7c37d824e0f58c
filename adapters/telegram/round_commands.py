"""Rounds on Telegram: `/round` and `/daily` in groups, and a quiet group while one runs.

The round's posts are `round_posts.RoundPosts`; deep links into the private chat are
`deeplinks.DeepLinks`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from telegram import Bot

from adapters.base.lately import SaidLately
from adapters.telegram.members import manager_check
from adapters.telegram.round_posts import PLATFORM, RoundPosts
from bot.app.compose import App
from bot.domain.errors import BadDaily, BadRoundOptions, NoRound, RoundRunning
from bot.domain.product_limits import MAX_TEAMS, MEMBER_QUIET, MIN_TEAMS
from bot.domain.results import Actor
from bot.domain.round_rules import DEFAULT_SCORING, SCORINGS
from bot.features.naming import quiz_named, quiz_words
from bot.present.plan import Planner, Reply
from bot.present.round_plan import RoundPlanner

RoundOptions = tuple[str | None, int | None, int | None, int, str, bool]


def parse_round(args: Sequence[str]) -> RoundOptions | None:
    """`[quiz] [seconds] [questions] [teams N] [scoring MODE] [untimed]` in any order, the
    first bare number the seconds and the second the number of questions (Discord's order):
    (quiz, seconds, questions, teams, scoring, untimed), or None when a word does not parse
    (the usage line). The quiz is every other word, in order: an id or a title, whole or
    in part ("/round depth 20"; `bot.features.naming`)."""
    seconds, questions, teams, scoring, untimed = None, None, 0, DEFAULT_SCORING, False
    named: list[str] = []
    words = iter(a.lower() for a in args)
    for word in words:
        if word == "teams":
            n = next(words, "")
            if not (n.isdigit() and MIN_TEAMS <= int(n) <= MAX_TEAMS):
                return None
            teams = int(n)
        elif word == "scoring":
            scoring = next(words, "")
            if scoring not in SCORINGS:
                return None
        elif word == "untimed":
            untimed = True
        elif word.isdigit() and seconds is None:
            seconds = int(word)
        elif word.isdigit() and questions is None:
            questions = int(word)
        elif word.isdigit():  # a third number: what would it be?
            return None
        else:
            named.append(word)
    return " ".join(named) or None, seconds, questions, teams, scoring, untimed


class TelegramRounds:
    """The `/round` and `/daily` commands; `posts` shows the rounds (the scheduler's sink)."""

    def __init__(self, app: App, plan: Planner, posts: RoundPosts,
                 bot: Callable[[], Bot]) -> None:
        self.engine, self.cat = app.engine, app.catalogue
        self.plan = plan
        self.round_plan: RoundPlanner = posts.plan
        self._bot = bot
        self.posts = posts
        # (group, member or refusal): one reply per MEMBER_QUIET while a round runs
        # on the engine's clock as it is when asked (a test moves it)
        self._said_lately = SaidLately(lambda: self.engine.clock(), MEMBER_QUIET)

    # --- commands --------------------------------------------------------------------------

    async def command(self, actor: Actor, args: Sequence[str], *,
                      group_admin: bool = False) -> Reply:
        """/round [quiz] [seconds] [questions] | /round stop | /round skip. `group_admin`: Telegram
        says the sender is an administrator (an anonymous admin posting as the group).
        "A round is already running" (or "no round is running") is posted once per
        MEMBER_QUIET seconds in a group: when a big group all types /round at once, one
        refusal above the question says it, not a refusal each filling the group's posts."""
        lang = await self.engine.language(actor)
        if actor.chat_id is None:
            return self.plan.text(lang, "round.groups_only")
        try:
            return await self._command(actor, actor.chat_id, args, group_admin)
        except (RoundRunning, NoRound) as refused:
            if self._said_lately((actor.chat_id, f"{refused.key}:{lang}")):
                return Reply()
            raise

    async def _command(self, actor: Actor, chat_id: str, args: Sequence[str],
                       group_admin: bool) -> Reply:
        word = args[0].lower() if args else ""
        manage = manager_check(self._bot, actor, anonymous_admin=group_admin)
        if word == "stop":
            await self.engine.stop_round(actor, chat_id, may_manage=manage)
            return Reply()
        if word == "skip":
            await self.engine.skip_round(actor, chat_id, may_manage=manage)
            return Reply()
        options = parse_round(args)
        if options is None:
            raise BadRoundOptions()
        named, seconds, questions, teams, scoring, untimed = options
        quiz_id = quiz_named(self.engine, self.cat.languages, named) if named else None
        started = await self.engine.start_round(actor, chat_id, quiz_id, seconds=seconds,
                                                questions=questions, scoring=scoring,
                                                teams=teams, untimed=untimed)
        if started.lobby:  # members join by button before question 1
            return self.round_plan.started(started)
        return Reply()  # the first question, posted by the scheduler at once, is the answer

    async def daily(self, actor: Actor, args: Sequence[str], *,
                    group_admin: bool = False) -> Reply:
        """/daily on HH:MM [+HH:MM] [quiz: an id or a title] | /daily off: the group's admins."""
        lang = await self.engine.language(actor)
        if actor.chat_id is None:
            return self.plan.text(lang, "daily.groups_only")
        manage = manager_check(self._bot, actor, anonymous_admin=group_admin)
        words = [a.lower() for a in args]
        if words == ["off"]:
            done = await self.engine.daily_off(actor, actor.chat_id, may_manage=manage)
            return self.round_plan.daily_set(done)
        if len(words) < 2 or words[0] != "on":
            raise BadDaily()
        at, rest = words[1], words[2:]
        offset = next((w for w in rest if w[:1] in "+-" or w.startswith(("utc", "gmt"))), None)
        quiz = quiz_words(self.engine, self.cat.languages, [w for w in rest if w != offset])
        done = await self.engine.daily_on(actor, actor.chat_id, at, offset, quiz,
                                          may_manage=manage)
        return self.round_plan.daily_set(done)

    async def quiet(self, actor: Actor) -> bool:
        """True when this group command should go unanswered: a round is running here and
        the member had their one reply in the last MEMBER_QUIET seconds (the group's posts
        are for the round; one member typing /leaderboard 40 times gets one answer)."""
        if actor.chat_id is None or not await self.engine.round_running(PLATFORM, actor.chat_id):
            return False
        return self._said_lately((actor.chat_id, actor.user_id))
