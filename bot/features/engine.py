"""The engine: one façade over the feature services, and the one router of button presses.

It is handed its services complete (`bot.app.compose.build_engine` builds them, nothing is
filled in later): `library` (quizzes, languages, admins), `spaced` (spaced review, settings,
reminders), `solo` (solo sessions and answers), `rounds` (study-group rounds) and the rest.
Adapters call the façade's methods only, never a service's; a press is routed by its
payload's class (`bot.domain.payloads`), the one place that decides who may press what.
Nothing here imports a platform."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from bot.domain import payloads
from bot.domain.learning import Memory
from bot.domain.quiz import Quiz
from bot.domain.results import (
    Actor,
    AnswerOutcome,
    GroupView,
    InstallOutcome,
    LanguageSet,
    Misplaced,
    NotYours,
    PressOutcome,
    QuestionPrompt,
    QuizCount,
    QuizInfo,
    QuizList,
    ResetCancelled,
    ResetDone,
    SettingsView,
    TypedOutcome,
    UnknownButton,
    Where,
)
from bot.domain.rights import Manages, may_press
from bot.domain.round_results import (
    DailySet,
    PostingStopped,
    PressRefused,
    RewardSet,
    RoundReveal,
    RoundStarted,
    WhoAnswered,
)
from bot.domain.round_rules import DEFAULT_SCORING
from bot.domain.stats_results import Leaderboard, Progress, UserStats
from bot.features.button_router import ButtonRouter
from bot.features.daily import Dailies
from bot.features.groups import Groups
from bot.features.installed import Installed
from bot.features.library import Library
from bot.features.reports import Reports
from bot.features.review import SpacedReview
from bot.features.rewards import Rewards
from bot.features.rounds import Rounds
from bot.features.sessions import CHAT, Sessions
from bot.features.typed_chat import TypedChat, TypedTurn
from bot.store.protocol import Store
from bot.store.round_rows import RewardRow


class Engine:
    """Runs quizzes for any platform on top of a `Store`."""

    def __init__(self, *, store: Store, clock: Callable[[], float], memory: Memory,
                 library: Library, spaced: SpacedReview, solo: Sessions, groups: Groups,
                 rounds: Rounds, dailies: Dailies, rewards: Rewards, installed: Installed,
                 reports: Reports, typed_chat: TypedChat) -> None:
        self.store, self.memory, self.clock = store, memory, clock  # clock: epoch s; tests fake it
        self.library, self.spaced, self.solo, self.groups = library, spaced, solo, groups
        self.rounds, self.dailies, self.rewards = rounds, dailies, rewards
        self.installed, self.reports, self.typed_chat = installed, reports, typed_chat
        self.buttons = ButtonRouter()
        self._route_buttons()

    @property
    def default_lang(self) -> str:
        """The language of users who chose none and whose app's we do not ship."""
        return self.library.default_lang

    # --- buttons ------------------------------------------------------------------------

    def _route_buttons(self) -> None:
        route = self.buttons.route
        route(payloads.AnswerPayload, self._answer_pressed)
        # a round's buttons: anyone in the chat, on the round's own message (the store decides)
        route(payloads.RoundPayload,
              lambda a, p, w: self.rounds.press(a, p.round_id, p.qindex, p.option, w))
        route(payloads.WhoPayload, lambda a, p, w: self.rounds.who(a, p.round_id, p.qindex, 0, w))
        route(payloads.TeamPayload, lambda a, p, w: self.rounds.join(a, p.round_id, p.team, w))
        route(payloads.WhoPagePayload, self._who_page_pressed)
        route(payloads.StartPayload,  # naming no quiz ("Language set"): as /quiz, go on
              lambda a, p, w: self.start(a, p.arg or None, unfinished=not p.arg))
        route(payloads.RetryPayload, lambda a, p, w: self.restart(a, p.arg or None))
        route(payloads.ReviewPayload, lambda a, p, w: self.review(a, p.arg or None))
        route(payloads.DuePayload, lambda a, p, w: self.review_due(a))
        route(payloads.ConfidencePayload, lambda a, p, w: self.set_confidence(a, p.arg == "on"))
        route(payloads.LanguagePayload, self._language_pressed)
        route(payloads.ResetPayload, self._reset_pressed, bound=True)  # one answer per prompt
        route(payloads.QuizzesPayload, lambda a, p, w: self.catalogue(a))
        route(payloads.TopicPayload, lambda a, p, w: self.review_topic(a, p.arg))
        route(payloads.ReportPayload, lambda a, p, w: self.reports.pressed(a, p))

    async def press(self, actor: Actor, data: payloads.Payload | None,
                    where: Where | None = None) -> PressOutcome:
        """Any button of ours, decoded by `bot.domain.payloads`. An answer belongs to its
        session's owner (checked in `answer`); anyone else pressing an owned button gets
        `NotYours` (one without an owner: a private chat only). `where`: see `Where`."""
        handler = self.buttons.handler(data, where)
        if handler is None:
            return UnknownButton(await self.language(actor), bool(where and where.shared))
        if not may_press(actor, data):  # an owned button: may_press passes any other
            return NotYours(0, await self.language(actor), getattr(data, "command", "/help"))
        return await handler(actor, data, where)

    async def _answer_pressed(self, actor: Actor, p: payloads.AnswerPayload,
                              where: Where | None) -> PressOutcome:
        if where is not None and where.shared:
            # A learner's solo questions are only ever sent privately (a private chat, an
            # ephemeral message): on a message the whole chat sees, the data was copied.
            return Misplaced(await self.language(actor))
        return await self.answer(actor, p.session_id, p.position, p.option, sure=p.sure)

    async def _who_page_pressed(self, actor: Actor, p: payloads.WhoPagePayload,
                                where: Where | None) -> PressOutcome:
        page = p.where()
        if page is None:
            return UnknownButton(await self.language(actor), of_round=True)
        return await self.rounds.who(actor, *page, where=where)

    async def _language_pressed(self, actor: Actor, pressed: payloads.LanguagePayload,
                                where: Where | None) -> PressOutcome:
        return LanguageSet(await self.set_language(actor, pressed.arg))

    async def _reset_pressed(self, actor: Actor, pressed: payloads.ResetPayload,
                             where: Where | None) -> PressOutcome:
        if pressed.arg == "yes":
            return ResetDone(await self.language(actor), await self.reset(actor))
        return ResetCancelled(await self.language(actor))

    # --- quizzes, languages, admins: `Library` -------------------------------------------

    def quiz(self, quiz_id: str | None = None) -> Quiz:
        """The quiz with this id, or the default one."""
        return self.library.quiz(quiz_id)

    def quiz_infos(self, lang: str) -> tuple[QuizInfo, ...]:
        """Every quiz, titled in `lang`, sorted by id."""
        return self.library.quiz_infos(lang)

    def quiz_count(self) -> QuizCount:
        """How many quizzes are quizbot's own and how many were added here."""
        return self.library.quiz_count()

    def quiz_info(self, lang: str, quiz_id: str | None = None) -> QuizInfo:
        """One quiz (the default one if not named), titled in `lang`."""
        return self.library.quiz_info(lang, quiz_id)

    async def first_quiz(self, actor: Actor, lang: str) -> QuizInfo:
        """The quiz to begin with where `actor` is: the group's choice, else the default."""
        return self.library.quiz_info(lang, (await self.groups.choice(actor))[0])

    def resolve_language(self, chosen: str | None, locale: str | None) -> str:
        """The user's choice, else their app's language if we ship it, else the default."""
        return self.library.resolve_language(chosen, locale)

    async def language(self, actor: Actor) -> str:
        """The language to talk to this user in (registers the user on first contact)."""
        return await self.library.language(actor)

    async def set_language(self, actor: Actor, lang: str) -> str:
        """Persist the user's language."""
        return await self.library.set_language(actor, lang)

    def is_admin(self, actor: Actor) -> bool:
        """True when the config lists this user as an admin on their platform."""
        return self.library.is_admin(actor)

    async def reload(self, actor: Actor) -> tuple[QuizInfo, ...]:
        """Admin only: re-read quiz files (a file with errors changes nothing)."""
        return await self.library.reload(actor)

    async def group_choice(self, actor: Actor) -> tuple[str | None, str | None]:
        """The quiz and language the admins of the group `actor` is in chose (or None)."""
        return await self.groups.choice(actor)

    async def group_settings(self, actor: Actor) -> GroupView:
        """/settings in a group: its quiz and language."""
        return await self.groups.view(actor)

    async def set_group(self, actor: Actor, *, admin: Manages, quiz: str | None = None,
                        language: str | None = None) -> GroupView:
        """The group's admins (`admin`: the platform says so) set its quiz and language."""
        return await self.groups.choose(actor, admin=admin, quiz=quiz, language=language)

    async def install(self, actor: Actor, raw: bytes, name: str, title: str = "") -> InstallOutcome:
        """Admin only: check an uploaded quiz file and serve it everywhere (as `title`)."""
        return await self.installed.install(actor, raw, name, title)

    async def remove_quiz(self, actor: Actor, quiz_id: str) -> str:
        """Admin only: take an installed quiz out (history stays); its title."""
        return await self.installed.remove(actor, quiz_id)

    # --- solo sessions: `Sessions` --------------------------------------------------------

    async def start(self, actor: Actor, quiz_id: str | None = None, *,
                    unfinished: bool = False) -> QuestionPrompt:
        """Resume or start the quiz (no id: a group's choice; `unfinished`: the last one)."""
        return await self.solo.start(actor, quiz_id or (await self.groups.choice(actor))[0],
                                     unfinished=unfinished)

    async def restart(self, actor: Actor, quiz_id: str | None = None) -> QuestionPrompt:
        """Abandon any unfinished session and start the quiz afresh."""
        return await self.solo.restart(actor, quiz_id)

    async def review(self, actor: Actor, quiz_id: str | None = None) -> QuestionPrompt:
        """A session over the questions missed in the user's last finished attempt."""
        return await self.solo.review_missed(actor, quiz_id)

    async def current(self, actor: Actor, quiz_id: str | None = None) -> QuestionPrompt:
        """The question the user's unfinished session is at."""
        return await self.solo.current(actor, quiz_id)

    async def answer(self, actor: Actor, session_id: int, position: int, option: int,
                     sure: bool | None = None) -> AnswerOutcome:
        """Record the learner's choice for question `position` (see `Sessions.answer`)."""
        return await self.solo.answer(actor, session_id, position, option, sure)

    async def answer_typed(self, actor: Actor, session_id: int, position: int, text: str,
                           sure: bool | None = None) -> TypedOutcome:
        """Record a number typed for a computed question (see `Sessions.answer_typed`)."""
        return await self.solo.answer_typed(actor, session_id, position, text, sure)

    async def typed_target(self, actor: Actor) -> tuple[int, int] | None:
        """The computed question open in the actor's private chat: (session id, position)."""
        return await self.solo.typed_target(actor)

    async def stats(self, actor: Actor, quiz_id: str | None = None, *,
                    member: Actor | None = None) -> UserStats:
        """Attempts, best and last score, accuracy per question."""
        return await self.solo.stats(actor, quiz_id, member=member)

    async def catalogue(self, actor: Actor) -> QuizList:
        """Every quiz (the catalogue), with the learner's best score on each."""
        return await self.solo.catalogue(actor)

    async def leaderboard(self, actor: Actor, quiz_id: str | None = None, *,
                          scope: str = CHAT, kind: str = "all", limit: int = 10) -> Leaderboard:
        """Best scores in the actor's chat (or globally); `kind`: all, solo or rounds."""
        return await self.rounds.leaderboard(actor, quiz_id, scope=scope, kind=kind, limit=limit)

    async def reset(self, actor: Actor) -> int:
        """Delete the user's sessions, answers and scores; return how many sessions went."""
        return await self.solo.reset(actor)

    # --- spaced review: `SpacedReview` ----------------------------------------------------

    async def review_due(self, actor: Actor) -> QuestionPrompt:
        """A session over the learner's due questions, most overdue first."""
        return await self.spaced.review_due(actor)

    async def review_topic(self, actor: Actor, topic: str) -> QuestionPrompt:
        """A short practice set of one topic: its due and weakest questions, any quiz."""
        return await self.spaced.review_topic(actor, topic)

    async def settings(self, actor: Actor) -> SettingsView:
        """The learner's confidence and reminder settings."""
        return await self.spaced.settings(actor)

    async def set_confidence(self, actor: Actor, on: bool) -> SettingsView:
        """Ask (or stop asking) "sure or guess" with every answer."""
        return await self.spaced.set_confidence(actor, on)

    async def remind(self, actor: Actor, at: str, offset: str | None = None) -> SettingsView:
        """A daily reminder at local time `at`, sent only on days something is due."""
        return await self.spaced.remind(actor, at, offset)

    async def remind_off(self, actor: Actor) -> SettingsView:
        """No more reminders."""
        return await self.spaced.remind_off(actor)

    async def reminders_stopped(self, actor: Actor) -> str | None:
        """Once after the platform refused the learner's reminders: the language to say so."""
        return await self.spaced.reminders_stopped(actor)

    async def progress(self, actor: Actor, *, member: Actor | None = None) -> Progress:
        """Due count, streak, retention, calibration, accuracy per question, history."""
        return await self.spaced.progress(actor, member=member)

    # --- study groups: `Rounds`, `Dailies`, `Rewards` ---------------------------------------

    async def start_round(self, actor: Actor, chat_id: str | None, quiz_id: str | None = None,
                          *, seconds: int | None = None, questions: int | None = None,
                          scoring: str = DEFAULT_SCORING, teams: int = 0,
                          untimed: bool = False) -> RoundStarted:
        """Start a round in `chat_id` with `actor` as its host (see `Rounds.start`)."""
        return await self.rounds.start(actor, chat_id, quiz_id, seconds=seconds,
                                       questions=questions, scoring=scoring, teams=teams,
                                       untimed=untimed)

    async def stop_round(self, actor: Actor, chat_id: str | None, *,
                         may_manage: Manages = False) -> RoundReveal:
        """End the chat's round now: the host, or a member the platform lets moderate."""
        return await self.rounds.stop(actor, chat_id, may_manage=may_manage)

    async def skip_round(self, actor: Actor, chat_id: str | None, *,
                         may_manage: Manages = False) -> None:
        """Reveal the round's open question now."""
        await self.rounds.skip(actor, chat_id, may_manage=may_manage)

    async def lobby_posted(self, round_id: int, message_id: str) -> None:
        """A round's lobby (its join buttons) was posted as `message_id`: its end takes them off."""
        await self.rounds.lobby_posted(round_id, message_id)

    async def round_running(self, platform: str, chat_id: str) -> bool:
        """True while a round runs in the chat."""
        return await self.rounds.running(platform, chat_id)

    async def who_answered(self, actor: Actor, round_id: int, qindex: int
                           ) -> WhoAnswered | PressRefused | Misplaced:
        """The first page of "Who answered?" for a revealed round question."""
        return await self.rounds.who(actor, round_id, qindex)

    async def daily_on(self, actor: Actor, chat_id: str | None, at: str, offset: str | None = None,
                       quiz_id: str | None = None, *, may_manage: Manages = False) -> DailySet:
        """A question of the day in the chat at local time `at` (see `Dailies.switch_on`)."""
        return await self.dailies.switch_on(actor, chat_id, at, offset, quiz_id,
                                            may_manage=may_manage)

    async def daily_off(self, actor: Actor, chat_id: str | None, *,
                        may_manage: Manages = False) -> DailySet:
        """No more questions of the day in the chat."""
        return await self.dailies.switch_off(actor, chat_id, may_manage=may_manage)

    async def daily_status(self, actor: Actor, chat_id: str | None) -> DailySet:
        """The chat's question of the day as it stands, or why it went off by itself."""
        return await self.dailies.status(actor, chat_id)

    async def chat_gone(self, platform: str, chat_id: str, *, for_good: bool = True,
                        reason: str = "forbidden") -> PostingStopped:
        """The bot may no longer post in the chat: `Dailies.chat_gone`; whom to tell."""
        return await self.dailies.chat_gone(platform, chat_id, reason, for_good=for_good)

    async def server_gone(self, platform: str, server_id: str) -> list[PostingStopped]:
        """The bot is out of a server: `chat_gone` for each of its channels in use."""
        return await self.dailies.server_gone(platform, server_id)

    async def chat_moved(self, platform: str, old_chat_id: str, new_chat_id: str) -> bool:
        """The platform gave the chat a new id (a supergroup): it all moves, `Groups.moved`."""
        if not await self.groups.moved(platform, old_chat_id, new_chat_id):
            return False
        self.rounds.wake()  # a running round's open question is posted there again
        return True

    async def set_reward(self, actor: Actor, quiz_id: str, role_id: str, role_name: str,
                         score: int, *, admin: Manages) -> RewardSet:
        """Grant a role to whoever reaches `score` right answers on the quiz here."""
        return await self.rewards.set(actor, quiz_id, role_id, role_name, score, admin=admin)

    async def remove_reward(self, actor: Actor, quiz_id: str, *, admin: Manages) -> RewardSet:
        """No more reward for the quiz here (roles already granted stay)."""
        return await self.rewards.remove(actor, quiz_id, admin=admin)

    async def reward_of(self, platform: str, guild_id: str, quiz_id: str) -> RewardRow | None:
        """The quiz's reward in the server, if any."""
        return await self.rewards.of(platform, guild_id, quiz_id)

    async def reward_earned(self, platform: str, guild_id: str, quiz_id: str, user_id: str,
                            score: int) -> RewardRow | None:
        """The reward an attempt scoring `score` earns (recorded), or None."""
        return await self.rewards.earned(platform, guild_id, quiz_id, user_id, score)

    # --- the rest: `Reports`, `Installed`, `Library` topics, `TypedChat` -------------------

    async def report_note(self, actor: Actor, text: str) -> bool:
        """A line added to the learner's latest problem report; False when there is none."""
        return await self.reports.note(actor, text)

    def admit_upload(self, actor: Actor, size: int) -> None:
        """Before downloading a quiz file: NotAdmin or UploadTooBig, or nothing."""
        self.installed.admit(actor, size)

    def topics(self) -> Mapping[str, Quiz]:
        """Every topic a question carries -> a quiz that names it."""
        return self.library.topics()

    def topic_name(self, topic: str, lang: str) -> str:
        """A topic's name in `lang` (its id when no quiz names it)."""
        return self.library.topic_name(topic, lang)

    async def question_sent(self, actor: Actor, session_id: int, position: int,
                            message_id: str) -> None:
        """The bot posted question `position` of the session as `message_id`."""
        await self.typed_chat.asked(actor, session_id, position, message_id)

    async def answer_text(self, actor: Actor, text: str) -> TypedTurn:
        """Text typed in the actor's private chat, as the open question's answer."""
        return await self.typed_chat.answer(actor, text)
