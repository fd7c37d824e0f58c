"""What every slash command and button does: parse, one engine call, let the plan say what
to show, carry it out with `deliver`. In a server every member has their own session, so a
learner's quiz messages are ephemeral there (in DMs, ordinary messages); failures go to
`replies.report`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

import discord
from discord import app_commands

from adapters.discord import replies
from adapters.discord.names import quiz_choices, topic_choices
from adapters.discord.replies import (
    actor_of,
    again,
    custom_id_of,
    in_server,
    note,
    send,
    timely,
    update,
)
from adapters.discord.views import (
    MARKDOWN,
    edit_of,
    message_of,
    number_modal,
    typed_value,
    where_of,
)
from bot.app.compose import App
from bot.domain import payloads as payload
from bot.domain.errors import UnknownQuiz
from bot.domain.payloads import NUMBER_RE, NumberPayload
from bot.domain.platforms import DISCORD
from bot.domain.results import Actor, AnswerResult, InstallOutcome, SessionKind, Summary
from bot.features.dashboard.auth import Identity
from bot.features.dashboard.discord_link import discord_link
from bot.features.naming import quiz_named, topic_named
from bot.features.sessions import CHAT, GLOBAL
from bot.present.chart import progress_picture
from bot.present.i18n import person
from bot.present.plan import Planner, Reply, draw_pictures
from bot.present.round_plan import RoundPlanner
from bot.present.topic_choice import topic_choice

log = logging.getLogger(__name__)
T = TypeVar("T")

# A custom_id in our payload family (a version letter, digits, colon) that failed to parse:
# an old or forged button of ours, worth a reply; anything else is not ours and is ignored.
OURS = re.compile(r"[anqrtw][0-9]+:")


class Flows:
    """The adapter's handlers, bound to one `App`."""

    def __init__(self, app: App) -> None:
        self.engine = app.engine
        self.cat = app.catalogue
        # the private "Who answered?" pages; the questions' clock is never shown on them
        self.plan = Planner(app.catalogue, MARKDOWN, shared_chats=False, type_button=True,
                            rounds=RoundPlanner(app.catalogue, MARKDOWN, lambda q: "",
                                                limit=DISCORD.card_limit, shared_chats=False))
        self.announce = app.config.discord.announce_results
        self.metrics = app.metrics
        self.signer, self.public_url = app.signer, app.config.web.public_url

    async def lang(self, interaction: discord.Interaction[Any]) -> str:
        """The language this user reads (their /language choice, else the default)."""
        return await self.engine.language(actor_of(interaction))

    async def report(self, interaction: discord.Interaction[Any], error: BaseException) -> None:
        """Hand a failure to the one error mapping."""
        if isinstance(error, discord.HTTPException):  # metrics hook (issue 14)
            self.metrics.api_error("discord", http_kind(error))
        await replies.report(interaction, error, cat=self.cat,
                             lang=lambda: self.lang(interaction))

    async def deliver(self, interaction: discord.Interaction[Any], reply: Reply) -> None:
        """Carry out a plan. A press edits its message when the plan says so (the edit
        itself is the acknowledgement), else the ack is an ephemeral note; cards follow,
        ephemeral in a server unless the plan makes them public."""
        await draw_pictures(reply.edit, *reply.send)
        if reply.edit is not None:
            await update(interaction, **edit_of(reply.edit))
        elif reply.ack is not None:
            await send(interaction, ephemeral=True, content=MARKDOWN.escape(reply.ack))
        if reply.edit is None and reply.clear_buttons and interaction.message is not None:
            try:  # the pressed question is over: take its buttons off
                await interaction.followup.edit_message(interaction.message.id, view=None)
            except discord.HTTPException as exc:
                log.debug("could not clear the buttons of a stale question: %s", exc)
        private = in_server(interaction) and not reply.public
        for card in reply.send:
            await send(interaction, ephemeral=private, **message_of(card))

    async def _do(self, interaction: discord.Interaction[Any], work: Any, *,
                  public: bool = False) -> Any:
        return await timely(interaction, work, ephemeral=in_server(interaction) and not public)

    async def _prepared(self, interaction: discord.Interaction[Any], work: Awaitable[T],
                        plan: Callable[[T], Reply], **how: Any) -> tuple[T, Reply]:
        """The engine's result and its planned reply with pictures drawn, all inside the
        3-second timer of `timely` (a schedule picture can take longer than the engine)."""
        async def prepare() -> tuple[T, Reply]:
            result = await work
            reply = plan(result)
            await draw_pictures(reply.edit, *reply.send)
            return result, reply
        return await timely(interaction, prepare(), **how)

    # --- slash commands: each is one engine call and one plan -------------------------------

    async def quiz(self, interaction: discord.Interaction[Any], quiz_id: str | None) -> None:
        """/quiz [quiz]: start or resume it; no quiz: the catalogue (or the server's quiz); a
        quiz that is none: the catalogue's buttons under "no such quiz" (as on Telegram)."""
        actor = actor_of(interaction)
        try:  # a word several titles hold: just those (`naming.quiz_named`)
            if (chosen := quiz_named(self.engine, self.cat.languages, quiz_id) if quiz_id
                    else (await self.engine.group_choice(actor))[0]) is None:
                return await self.quizzes(interaction)
            _, reply = await self._prepared(
                interaction, self.engine.start(actor, chosen),
                lambda prompt: self.plan.asked(again(interaction, prompt), actor,
                                               more=not quiz_id),
                ephemeral=in_server(interaction))
        except UnknownQuiz as missing:
            if not quiz_id:  # the server's own quiz, removed since: the usual refusal
                raise
            return await self.quizzes(interaction, missing=missing)
        await self.deliver(interaction, reply)

    async def quizzes(self, interaction: discord.Interaction[Any],
                      missing: UnknownQuiz | None = None) -> None:
        """/quizzes: the catalogue, one button per quiz (`missing`: a /quiz that is none)."""
        actor = actor_of(interaction)
        quizzes = (await self._do(interaction, self.engine.catalogue(actor))).only(
            missing.ids if missing else None)
        await self.deliver(interaction, self.plan.catalogue(quizzes, actor, missing=missing))

    async def review(self, interaction: discord.Interaction[Any], what: str = "due",
                     topic: str | None = None) -> None:
        """/review: the due questions of every quiz; /review last: last time's misses;
        /review topic:NAME: practise one topic."""
        actor = actor_of(interaction)
        named = topic_named(self.engine, self.cat.languages, topic) if topic else None
        if topic and named not in self.engine.topics():  # the topics' names to tap, never ids
            return await self.deliver(interaction, topic_choice(
                self.plan, await self.lang(interaction), actor, topic, self.engine,
                limit=DISCORD.buttons))
        work = (self.engine.review_topic(actor, named) if named else self.engine.review(actor)
                if what == "last" else self.engine.review_due(actor))
        prompt = await self._do(interaction, work)
        await self.deliver(interaction, self.plan.asked(again(interaction, prompt), actor))

    async def settings(self, interaction: discord.Interaction[Any], quiz: str | None = None,
                       language: str | None = None) -> None:
        """/settings: confidence marks (a button) and the reminder; in a server also the
        server's quiz and language, which quiz:/language: set (Manage Server)."""
        actor = actor_of(interaction)
        if actor.chat_id is not None and (quiz or language):
            admin = bool(interaction.permissions.manage_guild)
            quiz = quiz_named(self.engine, self.cat.languages, quiz) if quiz else quiz
            chosen = await timely(interaction, self.engine.set_group(
                actor, admin=admin, quiz=quiz, language=language))
            await self.deliver(interaction, self.plan.group_settings(chosen, saved=True))
            return

        async def both() -> Reply:  # the learner's and the server's, inside the 3 seconds
            reply = self.plan.settings(await self.engine.settings(actor), actor)
            if actor.chat_id is not None:
                group = self.plan.group_settings(await self.engine.group_settings(actor))
                reply = replace(reply, send=reply.send + group.send)
            return reply

        await self.deliver(interaction, await self._do(interaction, both()))

    async def remind(self, interaction: discord.Interaction[Any], at: str,
                     offset: str | None) -> None:
        """/remind time:HH:MM [offset:+05:00], or time:off. Reminders come as DMs."""
        actor = actor_of(interaction)
        work = (self.engine.remind_off(actor) if at.strip().lower() == "off"
                else self.engine.remind(replace(actor, chat_id=None), at, offset))
        view = await self._do(interaction, work)
        await self.deliver(interaction, self.plan.reminder_set(view, by_dm=in_server(interaction)))

    async def stats(self, interaction: discord.Interaction[Any],
                    member: discord.User | discord.Member | None) -> None:
        """/stats [member]: attempts, scores and accuracy per question."""
        actor = actor_of(interaction)
        other = None
        if member is not None and member.id != interaction.user.id:
            other = Actor("discord", str(member.id), actor.chat_id, member.display_name)

        async def gather() -> Reply:  # both reads and the chart inside the 3 seconds
            stats = await self.engine.stats(actor, member=other)
            progress = await self.engine.progress(actor, member=other)
            return self.plan.progress(stats, progress, await progress_picture(progress))

        await self.deliver(interaction, await self._do(interaction, gather()))

    async def leaderboard(self, interaction: discord.Interaction[Any], scope: str,
                          kind: str = "all") -> None:
        """/leaderboard [server|global] [all|solo|rounds]: this server's board by default,
        public; every result, or only solo quizzes or only rounds."""
        where = GLOBAL if scope == "global" else CHAT
        work = self.engine.leaderboard(actor_of(interaction), scope=where, kind=kind)
        # while a round runs in this channel its posts own the channel: answer privately
        # (read inside the 3 seconds: a slow read acknowledges first, privately)
        running = interaction.guild_id is not None and await timely(
            interaction, self.engine.round_running("discord", str(interaction.channel_id)))
        board = await self._do(interaction, work, public=not running)
        reply = self.plan.leaderboard(board)
        await self.deliver(interaction, replace(reply, public=False) if running else reply)

    async def language(self, interaction: discord.Interaction[Any], choice: str | None) -> None:
        """/language [en|ur]: set it, or offer one button per language."""
        actor = actor_of(interaction)
        if choice:
            lang = await timely(interaction, self.engine.set_language(actor, choice))
            await self.deliver(interaction, self.plan.language_set(lang, actor))
            return
        lang = await timely(interaction, self.engine.language(actor))
        await self.deliver(interaction, self.plan.language_prompt(lang, actor))

    async def reset(self, interaction: discord.Interaction[Any]) -> None:
        """/reset: ask first, with Yes / Cancel buttons that only the asker may press."""
        lang = await timely(interaction, self.lang(interaction))
        await self.deliver(interaction, self.plan.reset_prompt(lang, actor_of(interaction)))

    async def dashboard(self, interaction: discord.Interaction[Any]) -> None:
        """/dashboard: an ephemeral link, signed for this user, valid for ten minutes."""
        lang = await timely(interaction, self.lang(interaction))
        user, guild = interaction.user, interaction.guild_id
        who = Identity("discord", str(user.id), user.display_name, None,
                       str(guild) if guild else None,
                       bool(guild and interaction.permissions.manage_guild))
        reply = discord_link(self.cat, lang, self.signer, self.public_url, who)
        for card in reply.send:
            await send(interaction, ephemeral=True, **message_of(card))

    async def help(self, interaction: discord.Interaction[Any]) -> None:
        """/help: what the bot does, with a Start button."""
        lang = await timely(interaction, self.lang(interaction))
        actor = actor_of(interaction)
        reply = self.plan.help(lang, await self.engine.first_quiz(actor, lang), actor,
                               quizzes=self.engine.quiz_count(),
                               admin=self.engine.is_admin(actor))
        await self.deliver(interaction, reply)

    async def report_note(self, interaction: discord.Interaction[Any], note: str) -> None:
        """/report note: a line added to the learner's latest problem report (private)."""
        actor = actor_of(interaction)
        added = await self._do(interaction, self.engine.report_note(actor, note))
        await self.deliver(interaction, self.plan.report_note(await self.lang(interaction),
                                                              added))

    async def reload(self, interaction: discord.Interaction[Any]) -> None:
        """/reload (admins): re-read the quiz files."""
        infos = await timely(interaction, self.engine.reload(actor_of(interaction)))
        await self.deliver(interaction, self.plan.reloaded(await self.lang(interaction), infos))

    async def upload(self, interaction: discord.Interaction[Any],
                     attachment: discord.Attachment, title: str = "") -> None:
        """/quiz upload:<file> [title:] (admins): check the file and install it as a quiz."""
        actor = actor_of(interaction)
        self.engine.admit_upload(actor, attachment.size)  # before fetching anything

        async def install() -> InstallOutcome:
            return await self.engine.install(actor, await attachment.read(),
                                             attachment.filename, title)

        done = await timely(interaction, install())
        await self.deliver(interaction, self.plan.installed(await self.lang(interaction), done))

    async def remove_quiz(self, interaction: discord.Interaction[Any], quiz_id: str) -> None:
        """/quiz remove:<id> (admins): take an installed quiz out."""
        title = await timely(interaction, self.engine.remove_quiz(actor_of(interaction), quiz_id))
        await self.deliver(interaction, self.plan.removed(await self.lang(interaction), title))

    async def topic_choices(self, interaction: discord.Interaction[Any], current: str,
                            ) -> list[app_commands.Choice[str]]:
        """Autocomplete for /review topic: (`names.topic_choices`)."""
        return topic_choices(self.engine, await self.lang(interaction), current)

    async def quiz_choices(self, interaction: discord.Interaction[Any], current: str,
                           ) -> list[app_commands.Choice[str]]:
        """Autocomplete for /quiz (`names.quiz_choices`)."""
        return quiz_choices(self.engine, await self.lang(interaction), current)

    # --- buttons ---------------------------------------------------------------------------

    async def press(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        """Any button of ours: decoded once, the engine decides (owner, current question,
        counted once) and the plan says what to show. "Type it" opens its modal."""
        if NUMBER_RE.fullmatch(custom_id):
            await self.type_it(interaction, custom_id)
            return
        try:
            actor = actor_of(interaction)
            where = where_of(interaction)
            if where.shared:
                # a message a whole channel presses at once (a round's question): the ack
                # goes before any database work, never queued behind a burst's writes
                await interaction.response.defer()
            outcome, reply = await self._prepared(
                interaction, self.engine.press(actor, payload.decode(custom_id), where),
                lambda pressed: self.plan.pressed(pressed, actor, where), update=True)
            await self.deliver(interaction, reply)
            await self._after_answer(interaction, outcome)
        except Exception as exc:
            await self.report(interaction, exc)

    async def type_it(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        """"Type it": the modal a typed answer is sent with (no engine call: its submission
        is checked like a tap, and a modal must open within the 3 seconds)."""
        try:
            lang = await self.lang(interaction)
            await interaction.response.send_modal(number_modal(
                custom_id, self.cat.t(lang, "typed.modal_title"),
                self.cat.t(lang, "typed.modal_label")))
        except Exception as exc:
            await self.report(interaction, exc)

    async def typed(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        """The modal's submission: a typed answer, through the engine's answer path."""
        try:
            target = NumberPayload.unpack(custom_id)
            assert target is not None  # the client routes only NUMBER_RE here
            actor = actor_of(interaction)
            outcome, reply = await self._prepared(
                interaction, self.engine.answer_typed(
                    actor, target.session_id, target.position, typed_value(interaction)),
                lambda typed: self.plan.typed(typed, actor),
                update=interaction.message is not None)
            await self.deliver(interaction, reply)
            await self._after_answer(interaction, outcome)
        except Exception as exc:
            await self.report(interaction, exc)

    async def _after_answer(self, interaction: discord.Interaction[Any], outcome: object
                            ) -> None:
        """A finished solo attempt: announced where configured, and its rewards granted."""
        if isinstance(outcome, AnswerResult) and outcome.summary and not outcome.duplicate:
            await self._announce(interaction, outcome.summary)
            summary = outcome.summary
            if summary.kind == SessionKind.FULL:
                await interaction.client.rounds.rewards.after_solo(
                    interaction, summary.quiz_id, summary.quiz_title, summary.score,
                    summary.lang)

    async def _announce(self, interaction: discord.Interaction[Any], summary: Summary) -> None:
        """Post "X scored 7/8" in the channel, when configured; a refusal is only logged."""
        if not (self.announce and summary.kind == SessionKind.FULL
                and interaction.guild_id and interaction.channel_id):
            return
        # the channel's post in the server's language when its admins chose one (as rounds)
        _, lang = await self.engine.group_choice(actor_of(interaction))
        title = (summary.quiz_title if lang in (None, summary.lang)
                 else self.engine.quiz_info(lang, summary.quiz_id).title)
        lang = lang or summary.lang
        name = person(lang, interaction.user.display_name, MARKDOWN.inert)
        text = self.cat.t(lang, "summary.public", name=MARKDOWN.escape(name),
                          score=summary.score, total=summary.total, title=MARKDOWN.escape(title))
        channel = interaction.client.get_partial_messageable(
            interaction.channel_id, guild_id=interaction.guild_id)
        try:
            await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:  # e.g. 403, code 50013 Missing Permissions
            log.warning("could not announce a result in channel %s (HTTP %s, code %s): %s",
                        interaction.channel_id, exc.status, exc.code, exc.text)

    async def misplaced(self, interaction: discord.Interaction[Any]) -> None:
        """A button of ours pressed on a message that does not carry it: counts nothing."""
        log.info("button %r pressed on message %s, which does not carry it: refused",
                 custom_id_of(interaction), getattr(interaction.message, "id", None))
        await note(interaction, self.cat, await self.lang(interaction), "round.misplaced")

    async def unknown_button(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        """A component no template matched: ours but unparseable gets a note; others nothing."""
        if not OURS.match(custom_id):
            log.debug("ignoring component %r: not one of ours", custom_id)
            return
        log.debug("button %r is ours but does not parse", custom_id)
        await self.press(interaction, custom_id)


def http_kind(error: discord.HTTPException) -> str:
    """A bounded metric label for a Discord API failure."""
    kinds = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
             429: "rate_limited"}
    return kinds.get(error.status, "server" if error.status >= 500 else "other")
