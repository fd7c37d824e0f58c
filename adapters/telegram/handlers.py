"""Telegram handlers: parse the update, make one engine call, render the result.

`Handlers._fail` is the one place where errors turn into messages.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Sequence
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
from adapters.telegram.turn import Turn
from adapters.telegram.views import HTML
from bot import payload, render
from bot.app import App
from bot.errors import QuizError
from bot.results import AnswerResult, NotYours, QuestionPrompt, StaleAnswer

log = logging.getLogger(__name__)

Step = Callable[[Turn, Sequence[str]], Coroutine[Any, Any, None]]
Callback = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]
PTBApplication: TypeAlias = "Application[Any, Any, Any, Any, Any, Any]"


class Handlers:
    """Every command and button of the bot, bound to one engine."""

    def __init__(self, app: App) -> None:
        self.engine, self.cat = app.engine, app.catalogue
        self.metrics = app.metrics

    def register(self, application: PTBApplication) -> None:
        """Add the handlers (and a last-resort error handler) to the PTB application."""
        commands: dict[str, Step] = {
            "start": self.start, "quiz": self.quiz, "review": self.review,
            "stats": self.stats, "leaderboard": self.leaderboard, "language": self.language,
            "reset": self.reset, "help": self.help,
        }
        commands["reload"] = self.reload  # admins only; not in the command menu
        for name, step in commands.items():
            application.add_handler(CommandHandler(name, self._guarded(step)))
        application.add_handler(CallbackQueryHandler(self._guarded(self.tap)))
        application.add_handler(MessageHandler(filters.COMMAND & filters.ChatType.PRIVATE,
                                               self._guarded(self.unknown)))
        application.add_error_handler(self._unhandled)

    # --- the one place errors become messages -----------------------------------------------

    def _guarded(self, step: Step) -> Callback:
        async def callback(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
            actor = views.actor_of(update)
            if actor is None:
                return
            turn = Turn(update, context.bot, self.engine, actor, self.metrics)
            args: Sequence[str] = context.args or ()
            if update.callback_query is not None:
                args = (update.callback_query.data or "",)
            try:
                await step(turn, args)
            except Exception as exc:  # _fail sorts and logs every kind
                await self._fail(turn, exc)
            finally:
                await turn.finish()

        return callback

    async def _fail(self, turn: Turn, exc: Exception) -> None:
        """Map an exception to what the user sees and what the log says."""
        turn.failed(exc)  # metrics hook (issue 14)
        if isinstance(exc, QuizError):
            await self._report(turn, exc.key, exc.params)
        elif isinstance(exc, Forbidden):
            log.info("telegram: chat %s blocked the bot or removed it; reply dropped (%s)",
                     turn.chat_id, exc.message)
        elif isinstance(exc, RetryAfter | TimedOut) or (
                isinstance(exc, NetworkError) and not isinstance(exc, BadRequest)):
            # The engine committed before we replied; /quiz shows where the learner is.
            log.warning("telegram: reply to chat %s failed: %s", turn.chat_id, exc)
        else:
            log.error("telegram: update in chat %s failed", turn.chat_id, exc_info=exc)
            await self._report(turn, "error.generic", {})

    async def _report(self, turn: Turn, key: str, params: dict[str, object]) -> None:
        try:
            lang = await turn.lang()
        except Exception:  # the store failing may be why we are here
            lang = self.cat.default
        text = self.cat.t(lang, key, **params)
        try:
            if not turn.answered:  # a button: a pop-up the user must dismiss
                await turn.toast(text[:200], alert=True)
            else:
                await turn.say(HTML.escape(text))
        except Exception as exc:  # nothing more we can tell the user
            log.warning("telegram: could not report %s to chat %s: %s", key, turn.chat_id, exc)

    async def _unhandled(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("telegram: unhandled error for update %r", getattr(update, "update_id", None),
                  exc_info=context.error)

    # --- commands ----------------------------------------------------------------------------

    async def start(self, turn: Turn, args: Sequence[str]) -> None:
        """/start: welcome, language choice, Start; `/start <quiz-id>` opens that quiz."""
        if args:
            await self._ask(turn, await self.engine.start(turn.actor, args[0]))
            return
        lang = await turn.lang()
        quiz = self.engine.quiz()
        text = self.cat.t(lang, "welcome", title=quiz.title.get(lang), count=len(quiz.questions))
        await turn.say(HTML.escape(text), views.language_keyboard(self.cat, lang, quiz.id))

    async def quiz(self, turn: Turn, args: Sequence[str]) -> None:
        """/quiz [id]: resume the unfinished session or start one."""
        await self._ask(turn, await self.engine.start(turn.actor, _first(args)))

    async def review(self, turn: Turn, args: Sequence[str]) -> None:
        """/review [id]: the questions missed last time."""
        await self._ask(turn, await self.engine.review(turn.actor, _first(args)))

    async def stats(self, turn: Turn, args: Sequence[str]) -> None:
        """/stats [id]: attempts, scores, accuracy per question."""
        stats = await self.engine.stats(turn.actor, _first(args))
        await turn.say(render.stats_text(self.cat, stats, HTML))

    async def leaderboard(self, turn: Turn, args: Sequence[str]) -> None:
        """/leaderboard [id]: this group's board in a group, the global one in private."""
        scope = "chat" if turn.actor.chat_id is not None else "global"
        board = await self.engine.leaderboard(turn.actor, _first(args), scope=scope)
        await turn.say(render.leaderboard_text(self.cat, board, HTML))

    async def language(self, turn: Turn, args: Sequence[str]) -> None:
        """/language: one button per shipped language."""
        lang = await turn.lang()
        await turn.say(HTML.escape(self.cat.t(lang, "language.prompt")),
                       views.language_keyboard(self.cat, lang))

    async def reset(self, turn: Turn, args: Sequence[str]) -> None:
        """/reset: ask first; the buttons do the deleting."""
        lang = await turn.lang()
        await turn.say(HTML.escape(self.cat.t(lang, "reset.confirm")),
                       views.reset_keyboard(self.cat, lang, turn.actor.user_id))

    async def help(self, turn: Turn, args: Sequence[str]) -> None:
        """/help: what the bot can do."""
        lang = await turn.lang()
        quiz = self.engine.quiz()
        text = self.cat.t(lang, "help", title=quiz.title.get(lang), count=len(quiz.questions))
        await turn.say(HTML.escape(text))

    async def reload(self, turn: Turn, args: Sequence[str]) -> None:
        """/reload (admins): re-read the quiz files."""
        infos = await self.engine.reload(turn.actor)
        text = self.cat.t(await turn.lang(), "admin.reloaded", count=len(infos),
                          ids=", ".join(info.id for info in infos))
        await turn.say(HTML.escape(text))

    async def unknown(self, turn: Turn, args: Sequence[str]) -> None:
        """Any other command in a private chat."""
        lang = await turn.lang()
        await turn.say(HTML.escape(self.cat.t(lang, "error.unknown_command")))

    # --- buttons ------------------------------------------------------------------------------

    async def tap(self, turn: Turn, args: Sequence[str]) -> None:
        """Any inline button: an answer, or an action."""
        data = payload.decode(args[0] if args else None)
        if isinstance(data, payload.AnswerPayload):
            await self._answer(turn, data)
        elif isinstance(data, payload.ActionPayload):
            await self._action(turn, data)
        else:
            await turn.toast(self.cat.t(await turn.lang(), "error.unknown_button"))

    async def _answer(self, turn: Turn, data: payload.AnswerPayload) -> None:
        outcome = await self.engine.answer(turn.actor, data.session_id, data.position,
                                           data.option)
        turn.use_lang(outcome.lang)
        if isinstance(outcome, NotYours):
            await turn.toast(self.cat.t(outcome.lang, "answer.not_yours"))
        elif isinstance(outcome, StaleAnswer):
            key = "answer.stale" if outcome.current is not None else "answer.stale_finished"
            await turn.toast(self.cat.t(outcome.lang, key))
            await turn.drop_buttons()
            if outcome.current is not None:
                await self._ask(turn, outcome.current)
        else:
            await self._answered(turn, outcome)

    async def _answered(self, turn: Turn, result: AnswerResult) -> None:
        await turn.toast(render.toast(self.cat, result))
        if result.duplicate:
            return  # the first delivery already said everything
        answered = render.answered_question_text(self.cat, result, HTML)
        await turn.edit(views.for_member(self.cat, result.lang, turn.actor, answered))
        await turn.say(render.feedback_text(self.cat, result, HTML))
        if result.next is not None:
            await self._ask(turn, result.next)
        elif result.summary is not None:
            await turn.say(render.summary_text(self.cat, result.summary, HTML),
                           views.summary_keyboard(self.cat, result.summary))

    async def _action(self, turn: Turn, data: payload.ActionPayload) -> None:
        actor, arg = turn.actor, data.arg or None
        if data.action == "start":
            await self._ask(turn, await self.engine.start(actor, arg))
        elif data.action == "retry":
            await self._ask(turn, await self.engine.restart(actor, arg))
        elif data.action == "review":
            await self._ask(turn, await self.engine.review(actor, arg))
        elif data.action == "lang":
            await self._set_language(turn, data.arg)
        elif data.action == "reset":
            await self._confirm_reset(turn, data.arg)

    async def _set_language(self, turn: Turn, code: str) -> None:
        lang = await self.engine.set_language(turn.actor, code)
        turn.use_lang(lang)
        done = self.cat.t(lang, "language.set")
        await turn.toast(done)
        keyboard = views.start_keyboard(self.cat, lang, self.engine.quiz().id)
        if turn.actor.chat_id is None:
            await turn.edit(HTML.escape(done), keyboard)
        else:  # the language buttons in a group are everyone's: leave them
            text = views.for_member(self.cat, lang, turn.actor, HTML.escape(done))
            await turn.say(text, keyboard)

    async def _confirm_reset(self, turn: Turn, arg: str) -> None:
        choice, _, owner = arg.partition("-")
        lang = await turn.lang()
        if owner and owner != turn.actor.user_id:
            await turn.toast(self.cat.t(lang, "error.not_your_button"))
            return
        if choice == "yes":
            await self.engine.reset(turn.actor)
        key = "reset.done" if choice == "yes" else "reset.cancelled"
        await turn.edit(HTML.escape(self.cat.t(lang, key)))

    async def _ask(self, turn: Turn, prompt: QuestionPrompt) -> None:
        text, keyboard = views.question_message(self.cat, prompt, turn.actor)
        await turn.say(text, keyboard)


def _first(args: Sequence[str]) -> str | None:
    return args[0] if args else None
