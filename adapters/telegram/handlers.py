"""Telegram handlers: parse the update, make one engine call, let the plan say what to show.

Follow one tap: `tap` decodes the button, `Engine.press` decides (owner, current question,
counted once), `Planner.pressed` builds the reply, `Turn.deliver` sends it. `_fail` is the
one place where errors turn into messages.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, TypeAlias

from telegram import Update
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from adapters.telegram import views
from adapters.telegram.dashboard import TelegramDashboard
from adapters.telegram.deeplinks import DeepLinks
from adapters.telegram.group_events import GroupEvents
from adapters.telegram.members import manager_check
from adapters.telegram.outbox import Outbox
from adapters.telegram.private_chat import PrivateChat
from adapters.telegram.round_commands import TelegramRounds
from adapters.telegram.turn import MayReply, Turn, note_sent
from bot.app.compose import App
from bot.domain import payloads as payload
from bot.domain.errors import BadLink, QuizError, UnknownQuiz, UnknownTopic
from bot.domain.results import QuestionPrompt, SessionKind
from bot.features.naming import quiz_words
from bot.present.chart import progress_picture
from bot.present.plan import Planner, Reply
from bot.present.topic_choice import topic_choice

log = logging.getLogger(__name__)

BOARD_KINDS = ("all", "solo", "rounds")

Step = Callable[[Turn, Sequence[str]], Coroutine[Any, Any, Reply]]
Callback = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]
PTBApplication: TypeAlias = "Application[Any, Any, Any, Any, Any, Any]"


class Handlers:
    """Every command and button of the bot, bound to one engine."""

    def __init__(self, app: App, plan: Planner, outbox: Outbox,
                 rounds: TelegramRounds | None = None, links: DeepLinks | None = None,
                 dashboard: TelegramDashboard | None = None,
                 may_reply: MayReply | None = None) -> None:
        self.may_reply = may_reply  # webhook mode: the inbox's reply-once mark
        self.engine, self.cat, self.dash, self.plan = app.engine, app.catalogue, dashboard, plan
        self.outbox, self.metrics, self.rounds, self.links = outbox, app.metrics, rounds, links
        self.groups = GroupEvents(app, plan)  # added, removed, muted, renamed, upgraded
        self._quiz = partial(quiz_words, app.engine, app.catalogue.languages)  # id or title
        self.private = PrivateChat(app, plan)  # text and other messages in a private chat

    def register(self, application: PTBApplication) -> None:
        """Add the handlers (and a last-resort error handler) to the PTB application."""
        commands: dict[str, Step] = {
            "start": self.start, "quiz": self.quiz, "quizzes": self.quizzes,
            "review": self.review,
            "stats": self.stats, "leaderboard": self.leaderboard, "language": self.language,
            "reset": self.reset, "help": self.help, "settings": self.settings,
            "remind": self.remind, "dashboard": self.dashboard,
        }
        commands["reload"] = self.reload  # admins only; not in the command menu
        commands["report"] = self.report  # a line for the latest report; not in the menu
        if self.rounds is not None:
            commands["round"] = self.round
            commands["daily"] = self.daily
        for name, step in commands.items():
            application.add_handler(CommandHandler(name, self._guarded(step)))
        application.add_handler(CallbackQueryHandler(self._guarded(self.tap)))
        self.groups.register(application, self._guarded, welcome=self.rounds is not None)
        application.add_handler(MessageHandler(views.UNKNOWN_COMMAND,
                                               self._guarded(self.unknown)))
        # a number typed in a private chat answers the computed question open there
        private = filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE
        application.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND & private,
                                               self._guarded(self.private.typed)))
        # an admin installs a quiz by sending its file in a private chat
        application.add_handler(MessageHandler(filters.Document.ALL & private,
                                               self._guarded(self.upload)))
        # a photo, sticker, voice note...: what the bot reads (groups: never answered)
        application.add_handler(MessageHandler(
            private & ~filters.TEXT & ~filters.Document.ALL & ~filters.StatusUpdate.ALL,
            self._guarded(self.private.not_text)))
        application.add_error_handler(self._unhandled)

    # --- the one place errors become messages -----------------------------------------------

    def _guarded(self, step: Step) -> Callback:
        async def callback(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
            actor = views.actor_of(update)
            if actor is None:
                return
            await self.groups.note_title(update, context.bot)
            if (update.callback_query is None and step != self.round
                    and self.rounds is not None and await self.rounds.quiet(actor)):
                return  # a round runs in this group and this member had their reply
            turn = Turn(update, context.bot, actor, self.outbox, self.plan,
                        self.engine.language, self.metrics, self.may_reply)
            turn.asked = lambda card, sent: note_sent(self.engine, actor, card, sent)
            args: Sequence[str] = context.args or ()
            if update.callback_query is not None:
                args = (update.callback_query.data or "",)
            try:
                await turn.deliver(await step(turn, args))
            except Exception as exc:  # _fail sorts and logs every kind
                await self._fail(turn, exc)
            finally:
                await turn.finish()

        return callback

    async def _fail(self, turn: Turn, exc: Exception) -> None:
        """Map an exception to what the user sees and what the log says."""
        turn.failed(exc)  # metrics hook (issue 14)
        if isinstance(exc, QuizError):
            await turn.report(exc)
        elif isinstance(exc, Forbidden):
            log.info("telegram: chat %s blocked the bot or removed it; reply dropped (%s)",
                     turn.chat_id, exc.message)
        elif isinstance(exc, RetryAfter | TimedOut) or (
                isinstance(exc, NetworkError) and not isinstance(exc, BadRequest)):
            # The engine committed before we replied; /quiz shows where the learner is.
            log.warning("telegram: reply to chat %s failed: %s", turn.chat_id, exc)
        else:
            log.error("telegram: update in chat %s failed", turn.chat_id, exc_info=exc)
            await turn.report(None)

    async def _unhandled(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("telegram: unhandled error for update %r", getattr(update, "update_id", None),
                  exc_info=context.error)

    # --- commands: each is one engine call and one plan -------------------------------------

    async def start(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/start: welcome, language choice, Start; `/start <payload>` opens a deep link
        (BadLink when it names nothing there, its payload never echoed)."""
        try:
            return await self._start(turn, args)
        except (UnknownQuiz, UnknownTopic):
            raise BadLink() from None

    async def _start(self, turn: Turn, args: Sequence[str]) -> Reply:
        if args and self.links is not None and (
                linked := await self.links.group_start(turn.actor, args[0])) is not None:
            actor, note = linked  # a solo quiz opened from a group: it counts there
            asked = self.plan.asked(await self.engine.start(actor, linked_quiz(args[0])), actor)
            return replace(asked, send=note.send + asked.send) if note else asked
        if args and self.links is not None and (
                who := await self.links.who_start(turn.actor, args[0])) is not None:
            return self.plan.pressed(who, turn.actor)  # a reveal's "Who answered?", here
        if args and args[0] == REVIEW_LINK:
            return await self.review(turn, ())
        if args and args[0].startswith(TOPIC_LINK):  # a group's /review NAME, opened here
            return await self._solo(turn, lambda: self.engine.review_topic(  # forged: BadLink
                turn.actor, args[0].removeprefix(TOPIC_LINK)), args[0])
        if args and self.dash is not None and (opened := self.dash.start_link(
                turn.actor, await self.engine.language(turn.actor), args[0])) is not None:
            return opened  # a group's /dashboard link, opened in the private chat
        if args:
            return await self._solo(turn, lambda: self.engine.start(turn.actor, args[0]),
                                    args[0])
        lang = await self.engine.language(turn.actor)
        return self.plan.welcome(lang, await self.engine.first_quiz(turn.actor, lang), turn.actor,
                                 quizzes=self.engine.quiz_count())

    async def quiz(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/quiz [id or title]: resume or start it (a group: a button to a private chat); none:
        the catalogue, or the group's quiz; an unknown one: the catalogue under "no such
        quiz". `/quiz remove ID` (admins): take an installed one out."""
        if args and args[0].lower() == "remove":
            title = await self.engine.remove_quiz(turn.actor, self._quiz(args[1:]) or "")
            return self.plan.removed(await self.engine.language(turn.actor), title)
        try:  # a word several titles hold: just those (`naming.quiz_named`)
            quiz_id = self._quiz(args) or (await self.engine.group_choice(turn.actor))[0]
            if quiz_id is None:
                return await self.quizzes(turn, args)
            return await self._solo(turn, lambda: self.engine.start(turn.actor, quiz_id),
                                    quiz_id, more=not args)
        except UnknownQuiz as missing:
            if not args:  # the group's own quiz, removed since: the usual refusal
                raise
            return await self.quizzes(turn, args, missing=missing)

    async def upload(self, turn: Turn, args: Sequence[str]) -> Reply:
        """A file sent in a private chat (admins): checked and installed as a quiz (titled by
        its caption, if any), or the problems listed."""
        message = turn.update.effective_message
        document = message.document if message is not None else None
        assert document is not None  # the handler's filter
        self.engine.admit_upload(turn.actor, document.file_size or 0)
        data = bytes(await (await document.get_file()).download_as_bytearray())
        done = await self.engine.install(turn.actor, data, document.file_name or "upload",
                                         (message.caption if message else None) or "")
        return self.plan.installed(await self.engine.language(turn.actor), done)

    async def quizzes(self, turn: Turn, args: Sequence[str],
                      missing: UnknownQuiz | None = None) -> Reply:
        """/quizzes: the catalogue, one button per quiz (in a group: links, `DeepLinks`)."""
        quizzes = (await self.engine.catalogue(turn.actor)).only(
            missing.ids if missing else None)
        plan = partial(self.plan.catalogue, actor=turn.actor, missing=missing)
        return (self.links and self.links.catalogue(turn.actor, quizzes, plan)) or plan(quizzes)

    async def review(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/review: the due questions of every quiz; /review last [id]: last time's misses."""
        if args and args[0].lower() == "last":
            quiz_id = self._quiz(args[1:])
            return await self._solo(turn, lambda: self.engine.review(turn.actor, quiz_id), quiz_id)
        if args:  # /review NAME: practise one topic
            topic = args[0].removeprefix("topic:").lower()
            if topic not in self.engine.topics():  # the topics' names to tap, never ids
                lang = await self.engine.language(turn.actor)
                return topic_choice(self.plan, lang, turn.actor, " ".join(args), self.engine)
            return await self._solo(turn, lambda: self.engine.review_topic(turn.actor, topic),
                                    TOPIC_LINK + topic)
        return await self._solo(turn, lambda: self.engine.review_due(turn.actor), REVIEW_LINK)

    async def _solo(self, turn: Turn, opening: Callable[[], Awaitable[QuestionPrompt]],
                    quiz_id: str | None, *, more: bool = False) -> Reply:
        """A solo session's question: here in a private chat; in a group, one message with a
        button that opens it in a private chat instead (a group must not fill up with
        everyone's questions; Telegram allows ~20 messages a minute in one)."""
        if (link := await self._private_link(turn, quiz_id)) is not None:
            return link
        return self.plan.asked(self._opens(turn, await opening()), turn.actor, more=more)

    def _opens(self, turn: Turn, prompt: QuestionPrompt) -> QuestionPrompt:
        """A start that joins one seconds old says its question is just above; when the
        message carrying that question was given up (rate limit or network past the
        retries), it is not, so it is posted again. The turn notes the question it posts."""
        if prompt.joined and self.outbox.take_lost(turn.chat_id, prompt.session_id):
            prompt = replace(prompt, joined=False)
        if not prompt.joined:
            turn.opens = prompt.session_id
        return prompt

    async def _private_link(self, turn: Turn, quiz_id: str | None) -> Reply | None:
        if turn.actor.chat_id is None or self.links is None:
            return None
        lang = await self.engine.language(turn.actor)
        if quiz_id == REVIEW_LINK or (quiz_id or "").startswith(TOPIC_LINK):
            return self.links.private_link(turn.actor, lang, quiz_id or REVIEW_LINK)
        return self.links.solo_link(turn.actor, lang, quiz_id)

    async def stats(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/stats [id]: scores, spaced-review progress, and the same as a chart."""
        stats = await self.engine.stats(turn.actor, self._quiz(args))
        progress = await self.engine.progress(turn.actor)
        return self.plan.progress(stats, progress, await progress_picture(progress))

    async def settings(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/settings: confidence marks (a button) and the reminder. In a group: the group's
        quiz and language; `/settings quiz TITLE` / `/settings language CODE` (its admins)."""
        if turn.actor.chat_id is None:
            return self.plan.settings(await self.engine.settings(turn.actor), turn.actor)
        what, value = (args[0].lower() if args else ""), " ".join(args[1:]) or None
        if what not in ("quiz", "language") or value is None:
            return self.plan.group_settings(await self.engine.group_settings(turn.actor))
        admin = manager_check(lambda: turn.bot, turn.actor,
                              anonymous_admin=views.anonymous_admin(turn.update))
        view = await self.engine.set_group(turn.actor, admin=admin,
                                           quiz=self._quiz([value]) if what == "quiz" else None,
                                           language=value if what == "language" else None)
        return self.plan.group_settings(view, saved=True)

    async def remind(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/remind HH:MM [+05:00] or /remind off."""
        if args and args[0].lower() == "off":
            return self.plan.reminder_set(await self.engine.remind_off(turn.actor))
        if not args:
            return self.plan.settings(await self.engine.settings(turn.actor), turn.actor)
        view = await self.engine.remind(turn.actor, args[0], next(iter(args[1:]), None))
        return self.plan.reminder_set(view)

    async def dashboard(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/dashboard: the progress page as a Mini App (a group: a link to the group's)."""
        lang = await self.engine.language(turn.actor)
        if self.dash is None:
            return self.plan.text(lang, "dashboard.off")
        return self.dash.command(turn.actor, lang)

    async def leaderboard(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/leaderboard [id] [solo|rounds]: this group's board in a group, the global one in
        private; every result, or only solo quizzes or only rounds."""
        scope = "chat" if turn.actor.chat_id is not None else "global"
        kinds = [a for a in args if a in BOARD_KINDS]
        quiz_id = self._quiz([a for a in args if a not in BOARD_KINDS])
        board = await self.engine.leaderboard(turn.actor, quiz_id, scope=scope,
                                              kind=kinds[0] if kinds else "all")
        return self.plan.leaderboard(board)

    async def language(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/language en|ur (or a language's own name) sets it, as Discord's option does;
        a bare /language offers one button per shipped language."""
        if args:
            named = {self.cat.t(c, "language.name").lower(): c for c in self.cat.languages}
            lang = await self.engine.set_language(turn.actor, named.get(args[0].lower(),
                                                                         args[0].lower()))
            return self.plan.language_set(lang, turn.actor)
        return self.plan.language_prompt(await self.engine.language(turn.actor), turn.actor)

    async def reset(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/reset: ask first; the buttons (the asker's only) do the deleting."""
        return self.plan.reset_prompt(await self.engine.language(turn.actor), turn.actor)

    async def help(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/help: what the bot can do."""
        lang = await self.engine.language(turn.actor)
        return self.plan.help(lang, await self.engine.first_quiz(turn.actor, lang), turn.actor,
                              quizzes=self.engine.quiz_count(),
                              admin=self.engine.is_admin(turn.actor))

    async def report(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/report <words>: a line added to the learner's latest problem report."""
        lang = await self.engine.language(turn.actor)
        return self.plan.report_note(lang, await self.engine.report_note(turn.actor,
                                                                          " ".join(args))
                                     if args else None)

    async def reload(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/reload (admins): re-read the quiz files."""
        infos = await self.engine.reload(turn.actor)
        return self.plan.reloaded(await self.engine.language(turn.actor), infos)

    async def round(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/round [quiz] [seconds], /round stop, /round skip: a timed round for the group."""
        assert self.rounds is not None
        return await self.rounds.command(turn.actor, args,
                                         group_admin=views.anonymous_admin(turn.update))

    async def daily(self, turn: Turn, args: Sequence[str]) -> Reply:
        """/daily on HH:MM [+HH:MM] [quiz], /daily off: the group's question of the day."""
        assert self.rounds is not None
        return await self.rounds.daily(turn.actor, args,
                                       group_admin=views.anonymous_admin(turn.update))

    async def unknown(self, turn: Turn, args: Sequence[str]) -> Reply:
        """Any other command in a private chat, or named for this bot in a group."""
        return self.plan.text(await self.engine.language(turn.actor), "error.unknown_command")

    # --- buttons ------------------------------------------------------------------------------

    async def tap(self, turn: Turn, args: Sequence[str]) -> Reply:
        """Any inline button: decoded once, routed once by the engine, shown by the plan.
        A question a button opens in a group waits in the private chat (as for /quiz)."""
        where = views.where_of(turn.update)
        outcome = await self.engine.press(turn.actor, payload.decode(args[0] if args else None),
                                          where)
        if isinstance(outcome, QuestionPrompt):  # Start / Try again / Review pressed
            link = await self._private_link(
                turn, REVIEW_LINK if outcome.kind == SessionKind.DUE else outcome.quiz_id)
            if link is not None:
                return link
            outcome = self._opens(turn, outcome)
        return self.plan.pressed(outcome, turn.actor, where)


REVIEW_LINK = "review"  # `/start review`: the deep link a group's /review hands out
TOPIC_LINK = "topic-"  # `/start topic-<id>`: a group's /review NAME, in the private chat


def linked_quiz(data: str) -> str:
    """The quiz id of a group deep link (`g<chat>_<quiz>`)."""
    return data.partition("_")[2]
