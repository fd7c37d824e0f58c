"""What every slash command and button does: parse, one engine call, render, reply.

In a server every member has their own session, so a learner's quiz messages are
ephemeral there; in DMs they are ordinary messages. Failures go to `replies.report`.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands

from bot.app import App
from bot.engine import CHAT, GLOBAL
from bot.payload import ActionPayload, AnswerPayload
from bot.render import feedback_text, leaderboard_text, stats_text
from bot.results import (
    Actor,
    AnswerResult,
    NotYours,
    QuestionPrompt,
    SessionKind,
    StaleAnswer,
    Summary,
)

from . import replies
from .replies import actor_of, custom_id_of, in_server, note, send, timely, update
from .views import (
    MARKDOWN,
    answered_embed,
    answered_view,
    language_view,
    question_embed,
    question_view,
    reset_view,
    start_view,
    summary_embed,
    summary_view,
    text_message,
)

log = logging.getLogger(__name__)

# A custom_id in our payload family (a version letter, digits, colon) that failed to parse:
# an old or forged button of ours, worth a reply; anything else is not ours and is ignored.
OURS = re.compile(r"[aqr][0-9]+:")
CHOICES_LIMIT, CHOICE_NAME_LIMIT = 25, 100


class Flows:
    """The adapter's handlers, bound to one `App`."""

    def __init__(self, app: App) -> None:
        self.engine = app.engine
        self.rounds = app.rounds
        self.cat = app.catalogue
        self.announce = app.config.discord.announce_results

    async def lang(self, interaction: discord.Interaction[Any]) -> str:
        """The language this user reads (their /language choice, else the default)."""
        return await self.engine.language(actor_of(interaction))

    async def report(self, interaction: discord.Interaction[Any], error: BaseException) -> None:
        """Hand a failure to the one error mapping."""
        await replies.report(interaction, error, cat=self.cat,
                             lang=lambda: self.lang(interaction))

    async def show_question(self, interaction: discord.Interaction[Any],
                            prompt: QuestionPrompt) -> None:
        """Send a question with its lettered buttons (ephemeral in a server)."""
        await send(interaction, ephemeral=in_server(interaction),
                   embed=question_embed(self.cat, prompt), view=question_view(prompt))

    async def _text(self, interaction: discord.Interaction[Any], lang: str, key: str,
                    **message: Any) -> None:
        await send(interaction, ephemeral=True,
                   content=MARKDOWN.escape(self.cat.t(lang, key)), **message)

    # --- slash commands ----------------------------------------------------------------------

    async def quiz(self, interaction: discord.Interaction[Any], quiz_id: str | None) -> None:
        """/quiz [quiz]: start, or resume the unfinished session."""
        work = self.engine.start(actor_of(interaction), quiz_id or None)
        prompt = await timely(interaction, work, ephemeral=in_server(interaction))
        await self.show_question(interaction, prompt)

    async def review(self, interaction: discord.Interaction[Any]) -> None:
        """/review: retake the questions missed last time."""
        work = self.engine.review(actor_of(interaction))
        prompt = await timely(interaction, work, ephemeral=in_server(interaction))
        await self.show_question(interaction, prompt)

    async def stats(self, interaction: discord.Interaction[Any],
                    member: discord.User | discord.Member | None) -> None:
        """/stats [member]: attempts, scores and accuracy per question."""
        actor = actor_of(interaction)
        other = None
        if member is not None and member.id != interaction.user.id:
            other = Actor("discord", str(member.id), actor.chat_id, member.display_name)
        private = in_server(interaction)
        stats = await timely(interaction, self.engine.stats(actor, member=other),
                             ephemeral=private)
        await send(interaction, ephemeral=private,
                   **text_message(stats_text(self.cat, stats, MARKDOWN)))

    async def leaderboard(self, interaction: discord.Interaction[Any], scope: str,
                          kind: str = "all") -> None:
        """/leaderboard [server|global] [all|solo|rounds]: this server's board by default,
        public; every result, or only solo quizzes or only rounds."""
        where = GLOBAL if scope == "global" else CHAT
        if kind != "all" and self.rounds is not None:
            work = self.rounds.leaderboard(actor_of(interaction), scope=where, kind=kind)
        else:
            work = self.engine.leaderboard(actor_of(interaction), scope=where)
        board = await timely(interaction, work, ephemeral=False)
        await send(interaction, ephemeral=False,
                   **text_message(leaderboard_text(self.cat, board, MARKDOWN)))

    async def language(self, interaction: discord.Interaction[Any], choice: str | None) -> None:
        """/language [en|ur]: set it, or offer one button per language."""
        actor = actor_of(interaction)
        if choice:
            lang = await timely(interaction, self.engine.set_language(actor, choice))
            await note(interaction, self.cat, lang, "language.set")
            return
        lang = await timely(interaction, self.engine.language(actor))
        await self._text(interaction, lang, "language.prompt", view=language_view(self.cat))

    async def reset(self, interaction: discord.Interaction[Any]) -> None:
        """/reset: ask first, with Yes / Cancel buttons."""
        lang = await timely(interaction, self.lang(interaction))
        await self._text(interaction, lang, "reset.confirm", view=reset_view(self.cat, lang))

    async def help(self, interaction: discord.Interaction[Any]) -> None:
        """/help: what the bot does, with a Start button."""
        lang = await timely(interaction, self.lang(interaction))
        quiz = self.engine.quiz()
        text = self.cat.t(lang, "help", title=quiz.title.get(lang), count=len(quiz.questions))
        await send(interaction, ephemeral=True, content=MARKDOWN.escape(text),
                   view=start_view(self.cat, lang, quiz.id))

    async def reload(self, interaction: discord.Interaction[Any]) -> None:
        """/reload (admins): re-read the quiz files."""
        infos = await timely(interaction, self.engine.reload(actor_of(interaction)))
        lang = await self.lang(interaction)
        text = self.cat.t(lang, "admin.reloaded", count=len(infos),
                          ids=", ".join(info.id for info in infos))
        await send(interaction, ephemeral=True, content=MARKDOWN.escape(text))

    async def quiz_choices(self, interaction: discord.Interaction[Any], current: str,
                           ) -> list[app_commands.Choice[str]]:
        """Autocomplete for /quiz: quiz ids whose id or title contains what was typed."""
        needle = current.casefold().strip()
        infos = self.engine.quiz_infos(await self.lang(interaction))
        return [
            app_commands.Choice(name=f"{info.title} ({info.id})"[:CHOICE_NAME_LIMIT],
                                value=info.id)
            for info in infos if needle in info.id or needle in info.title.casefold()
        ][:CHOICES_LIMIT]

    # --- buttons ---------------------------------------------------------------------------

    async def answer(self, interaction: discord.Interaction[Any], pressed: AnswerPayload) -> None:
        """An answer button: mark it on the question, explain, then the next question."""
        try:
            await self._answer(interaction, pressed)
        except Exception as exc:
            await self.report(interaction, exc)

    async def _answer(self, interaction: discord.Interaction[Any], pressed: AnswerPayload) -> None:
        work = self.engine.answer(actor_of(interaction), pressed.session_id, pressed.position,
                                  pressed.option)
        outcome = await timely(interaction, work, update=True)
        if isinstance(outcome, NotYours):
            await note(interaction, self.cat, outcome.lang, "answer.not_yours")
        elif isinstance(outcome, StaleAnswer):
            key = "answer.stale" if outcome.current else "answer.stale_finished"
            await note(interaction, self.cat, outcome.lang, key)
            if outcome.current is not None:
                await self.show_question(interaction, outcome.current)
        elif outcome.duplicate:
            await note(interaction, self.cat, outcome.lang, "answer.duplicate")
        else:
            await self._answered(interaction, outcome)

    async def _answered(self, interaction: discord.Interaction[Any], result: AnswerResult) -> None:
        private = in_server(interaction)
        # The callback (inside the 3 seconds) edits the question; the rest are follow-ups.
        await update(interaction, embed=answered_embed(self.cat, result),
                     view=answered_view(result))
        await interaction.followup.send(
            ephemeral=private, **text_message(feedback_text(self.cat, result, MARKDOWN)))
        if result.next is not None:
            await interaction.followup.send(ephemeral=private,
                                            embed=question_embed(self.cat, result.next),
                                            view=question_view(result.next))
        elif result.summary is not None:
            await interaction.followup.send(ephemeral=private,
                                            embed=summary_embed(self.cat, result.summary),
                                            view=summary_view(self.cat, result.summary))
            await self._announce(interaction, result.summary)

    async def _announce(self, interaction: discord.Interaction[Any], summary: Summary) -> None:
        """Post "X scored 7/8" in the channel, when configured; a refusal is only logged."""
        if not (self.announce and summary.kind == SessionKind.FULL
                and interaction.guild_id and interaction.channel_id):
            return
        text = self.cat.t(summary.lang, "summary.public",
                          name=MARKDOWN.escape(interaction.user.display_name),
                          score=summary.score, total=summary.total,
                          title=MARKDOWN.escape(summary.quiz_title))
        channel = interaction.client.get_partial_messageable(
            interaction.channel_id, guild_id=interaction.guild_id)
        try:
            await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:  # e.g. 403, code 50013 Missing Permissions
            log.warning("could not announce a result in channel %s (HTTP %s, code %s): %s",
                        interaction.channel_id, exc.status, exc.code, exc.text)

    async def action(self, interaction: discord.Interaction[Any],
                     pressed: ActionPayload | None) -> None:
        """Review missed, Try again, Start, a language, a reset confirmation."""
        try:
            await self._action(interaction, pressed)
        except Exception as exc:
            await self.report(interaction, exc)

    async def _action(self, interaction: discord.Interaction[Any],
                      pressed: ActionPayload | None) -> None:
        if pressed is None:
            log.debug("unknown action button %r", custom_id_of(interaction))
            await note(interaction, self.cat, await self.lang(interaction), "error.unknown_button")
            return
        if not _owns(interaction):
            await note(interaction, self.cat, await self.lang(interaction), "answer.not_yours")
            return
        actor = actor_of(interaction)
        private = in_server(interaction)
        action, arg = pressed.action, pressed.arg
        if action in ("start", "retry", "review"):
            call = {"start": self.engine.start, "retry": self.engine.restart,
                    "review": self.engine.review}[action]
            prompt = await timely(interaction, call(actor, arg or None), ephemeral=private)
            await self.show_question(interaction, prompt)
        elif action == "lang":
            lang = await timely(interaction, self.engine.set_language(actor, arg), update=True)
            await update(interaction, content=MARKDOWN.escape(self.cat.t(lang, "language.set")),
                         view=None)
        elif action == "reset":
            if arg == "yes":
                await timely(interaction, self.engine.reset(actor), update=True)
            lang = await self.lang(interaction)
            key = "reset.done" if arg == "yes" else "reset.cancelled"
            await update(interaction, content=MARKDOWN.escape(self.cat.t(lang, key)), view=None)
        else:  # "noop"
            await interaction.response.defer()

    async def unknown_button(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        """A component no template matched: ours but unparseable gets a note; others nothing."""
        if not OURS.match(custom_id):
            log.debug("ignoring component %r: not one of ours", custom_id)
            return
        log.debug("button %r is ours but does not parse", custom_id)
        try:
            await note(interaction, self.cat, await self.lang(interaction), "error.unknown_button")
        except Exception as exc:
            await self.report(interaction, exc)


def _owns(interaction: discord.Interaction[Any]) -> bool:
    """False when the button is on a message another user's interaction produced."""
    message = interaction.message
    meta = message.interaction_metadata if message is not None else None
    return meta is None or meta.user.id == interaction.user.id
