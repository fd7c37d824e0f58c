"""The slash commands, and syncing them to Discord.

Each command only forwards to `handlers.Flows`; its errors reach `QuizTree.on_error`, which
hands them to the one error mapping in `replies.report`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Literal, cast

import discord
from discord import app_commands

from adapters.discord.handlers import Flows
from adapters.discord.round_commands import DiscordRounds
from bot.domain.product_limits import (
    MAX_QUESTIONS,
    MAX_SECONDS,
    MAX_TEAMS,
    MIN_QUESTIONS,
    MIN_SECONDS,
    MIN_TEAMS,
    UNTIMED_SECONDS,
)
from bot.present.i18n import Catalogue

log = logging.getLogger(__name__)

# Discord shows command descriptions in the user's client locale and has no Urdu one, so the
# descriptions are registered in English.
DESCRIBE_IN = "en"


def flows_of(interaction: discord.Interaction[Any]) -> Flows:
    """The handlers of the client this interaction arrived on."""
    return cast(Flows, interaction.client.flows)


class QuizTree(app_commands.CommandTree[Any]):
    """A command tree whose failures all go to the adapter's error mapping."""

    async def on_error(self, interaction: discord.Interaction[Any],
                       error: app_commands.AppCommandError, /) -> None:
        await flows_of(interaction).report(interaction, error)


def rounds_of(interaction: discord.Interaction[Any]) -> DiscordRounds:
    """The round commands of the client this interaction arrived on."""
    return cast(DiscordRounds, interaction.client.rounds)


def build_commands(cat: Catalogue) -> list[app_commands.Command[Any, ..., None]
                                           | app_commands.Group]:
    """/quiz, /review, /stats, /leaderboard, /language, /reset, /help, /reload (admins)."""

    def text(key: str, **params: Any) -> str:
        return cat.t(DESCRIBE_IN, key, **params)

    languages = [app_commands.Choice(name=f"{cat.t(code, 'language.name')} ({code})",
                                     value=code) for code in cat.languages]

    @app_commands.command(name="quiz", description=text("command.quiz"))
    @app_commands.describe(quiz=text("command.param_quiz"), upload=text("command.param_upload"),
                           remove=text("command.param_remove"), title=text("command.param_title"))
    async def quiz(interaction: discord.Interaction[Any], quiz: str | None = None,
                   upload: discord.Attachment | None = None,
                   remove: str | None = None, title: str | None = None) -> None:
        if upload is not None:  # admins: /quiz upload:<file> [title:<its title>]
            await flows_of(interaction).upload(interaction, upload, title or "")
        elif remove is not None:  # admins: /quiz remove:<id>
            await flows_of(interaction).remove_quiz(interaction, remove)
        else:
            await flows_of(interaction).quiz(interaction, quiz)

    @quiz.autocomplete("quiz")
    async def quiz_autocomplete(interaction: discord.Interaction[Any], current: str,
                                ) -> list[app_commands.Choice[str]]:
        return await flows_of(interaction).quiz_choices(interaction, current)

    @app_commands.command(name="quizzes", description=text("command.quizzes"))
    async def quizzes(interaction: discord.Interaction[Any]) -> None:
        await flows_of(interaction).quizzes(interaction)

    @app_commands.command(name="review", description=text("command.review"))
    @app_commands.describe(what=text("command.param_what"), topic=text("command.param_topic"))
    async def review(interaction: discord.Interaction[Any],
                     what: Literal["due", "last"] = "due", topic: str | None = None) -> None:
        await flows_of(interaction).review(interaction, what, topic)

    @review.autocomplete("topic")
    async def topic_autocomplete(interaction: discord.Interaction[Any], current: str,
                                 ) -> list[app_commands.Choice[str]]:
        return await flows_of(interaction).topic_choices(interaction, current)

    @app_commands.command(name="settings", description=text("command.settings"))
    @app_commands.describe(quiz=text("command.param_group_quiz"),
                           language=text("command.param_group_language"))
    @app_commands.choices(language=[*languages, app_commands.Choice(name="default",
                                                                    value="default")])
    async def settings(interaction: discord.Interaction[Any], quiz: str | None = None,
                       language: app_commands.Choice[str] | None = None) -> None:
        await flows_of(interaction).settings(interaction, quiz,
                                             language.value if language else None)

    @settings.autocomplete("quiz")
    async def settings_autocomplete(interaction: discord.Interaction[Any], current: str,
                                    ) -> list[app_commands.Choice[str]]:
        return await flows_of(interaction).quiz_choices(interaction, current)

    @app_commands.command(name="remind", description=text("command.remind"))
    @app_commands.describe(time=text("command.param_time"), offset=text("command.param_offset"))
    async def remind(interaction: discord.Interaction[Any], time: str,
                     offset: str | None = None) -> None:
        await flows_of(interaction).remind(interaction, time, offset)

    @app_commands.command(name="stats", description=text("command.stats"))
    @app_commands.describe(member=text("command.param_member"))
    async def stats(interaction: discord.Interaction[Any],
                    member: discord.User | None = None) -> None:
        await flows_of(interaction).stats(interaction, member)

    @app_commands.command(name="leaderboard", description=text("command.leaderboard"))
    @app_commands.describe(scope=text("command.param_scope"), kind=text("command.param_kind"))
    async def leaderboard(interaction: discord.Interaction[Any],
                          scope: Literal["server", "global"] = "server",
                          kind: Literal["all", "solo", "rounds"] = "all") -> None:
        await flows_of(interaction).leaderboard(interaction, scope, kind)

    @app_commands.command(name="language", description=text("command.language"))
    @app_commands.describe(language=text("command.param_language"))
    @app_commands.choices(language=languages)
    async def language(interaction: discord.Interaction[Any],
                       language: app_commands.Choice[str] | None = None) -> None:
        await flows_of(interaction).language(interaction, language.value if language else None)

    @app_commands.command(name="reset", description=text("command.reset"))
    async def reset(interaction: discord.Interaction[Any]) -> None:
        await flows_of(interaction).reset(interaction)

    @app_commands.command(name="dashboard", description=text("command.dashboard"))
    async def dashboard(interaction: discord.Interaction[Any]) -> None:
        await flows_of(interaction).dashboard(interaction)

    @app_commands.command(name="report", description=text("command.report"))
    @app_commands.describe(note=text("command.param_note"))
    async def report(interaction: discord.Interaction[Any], note: str) -> None:
        await flows_of(interaction).report_note(interaction, note)

    @app_commands.command(name="help", description=text("command.help"))
    async def help_(interaction: discord.Interaction[Any]) -> None:
        await flows_of(interaction).help(interaction)

    # Shown only to server admins by default; the engine still checks the configured ids.
    @app_commands.command(name="reload", description=text("command.reload"))
    @app_commands.default_permissions(administrator=True)
    async def reload(interaction: discord.Interaction[Any]) -> None:
        await flows_of(interaction).reload(interaction)

    round_ = app_commands.Group(name="round", description=text("command.round"),
                                guild_only=True)

    @round_.command(name="start", description=text("command.round"))
    @app_commands.describe(quiz=text("command.param_quiz"),
                           seconds=text("command.param_seconds", low=MIN_SECONDS,
                                        high=MAX_SECONDS),
                           questions=text("command.param_questions"),
                           teams=text("command.param_teams", low=MIN_TEAMS, high=MAX_TEAMS),
                           scoring=text("command.param_scoring"),
                           untimed=text("command.param_untimed",
                                        minutes=UNTIMED_SECONDS // 60))
    async def round_start(interaction: discord.Interaction[Any], quiz: str | None = None,
                          seconds: app_commands.Range[int, MIN_SECONDS, MAX_SECONDS] | None
                          = None,
                          questions: app_commands.Range[int, MIN_QUESTIONS, MAX_QUESTIONS]
                          | None = None,
                          teams: app_commands.Range[int, MIN_TEAMS, MAX_TEAMS] | None = None,
                          scoring: Literal["accuracy", "speed", "streak"] = "accuracy",
                          untimed: bool = False) -> None:
        await rounds_of(interaction).start(interaction, quiz, seconds, questions,
                                           teams=teams or 0, scoring=scoring, untimed=untimed)

    @round_start.autocomplete("quiz")
    async def round_quiz_autocomplete(interaction: discord.Interaction[Any], current: str,
                                      ) -> list[app_commands.Choice[str]]:
        return await flows_of(interaction).quiz_choices(interaction, current)

    @round_.command(name="stop", description=text("command.round_stop"))
    async def round_stop(interaction: discord.Interaction[Any]) -> None:
        await rounds_of(interaction).stop(interaction)

    @round_.command(name="skip", description=text("command.round_skip"))
    async def round_skip(interaction: discord.Interaction[Any]) -> None:
        await rounds_of(interaction).skip(interaction)

    daily = app_commands.Group(name="daily", description=text("command.daily"),
                               guild_only=True,
                               default_permissions=discord.Permissions(manage_guild=True))

    @daily.command(name="on", description=text("command.daily"))
    @app_commands.describe(time=text("command.param_time"), offset=text("command.param_offset"),
                           quiz=text("command.param_quiz"))
    async def daily_on(interaction: discord.Interaction[Any], time: str,
                       offset: str | None = None, quiz: str | None = None) -> None:
        await rounds_of(interaction).daily(interaction, True, time, offset, quiz)

    @daily_on.autocomplete("quiz")
    async def daily_quiz_autocomplete(interaction: discord.Interaction[Any], current: str,
                                      ) -> list[app_commands.Choice[str]]:
        return await flows_of(interaction).quiz_choices(interaction, current)

    @daily.command(name="off", description=text("command.daily_off"))
    async def daily_off(interaction: discord.Interaction[Any]) -> None:
        await rounds_of(interaction).daily(interaction, False)

    @daily.command(name="status", description=text("command.daily_status"))
    async def daily_status(interaction: discord.Interaction[Any]) -> None:
        await rounds_of(interaction).daily_status(interaction)

    reward = app_commands.Group(name="reward", description=text("command.reward"),
                                guild_only=True,
                                default_permissions=discord.Permissions(manage_guild=True))

    @reward.command(name="set", description=text("command.reward"))
    @app_commands.describe(quiz=text("command.param_quiz"), role=text("command.param_role"),
                           score=text("command.param_score"))
    async def reward_set(interaction: discord.Interaction[Any], quiz: str, role: discord.Role,
                         score: app_commands.Range[int, MIN_QUESTIONS, MAX_QUESTIONS]) -> None:
        await rounds_of(interaction).rewards.set(interaction, quiz, role, score)

    @reward_set.autocomplete("quiz")
    async def reward_quiz_autocomplete(interaction: discord.Interaction[Any], current: str,
                                       ) -> list[app_commands.Choice[str]]:
        return await flows_of(interaction).quiz_choices(interaction, current)

    @reward.command(name="remove", description=text("command.reward_remove"))
    @app_commands.describe(quiz=text("command.param_quiz"))
    async def reward_remove(interaction: discord.Interaction[Any], quiz: str) -> None:
        await rounds_of(interaction).rewards.remove(interaction, quiz)

    return [quiz, quizzes, review, settings, remind, stats, leaderboard, language, dashboard, reset,
            help_, reload, round_, daily, reward, report]


async def sync_commands(tree: app_commands.CommandTree[Any], guild_ids: Sequence[int]) -> None:
    """Register the commands: in the listed guilds (instant, for testing), else globally.

    A failure is logged, not raised: the commands Discord already has keep working, and the
    buttons do not depend on them.
    """
    targets: list[discord.abc.Snowflake | None] = (
        [discord.Object(id=g) for g in guild_ids] if guild_ids else [None])
    for guild in targets:
        if guild is not None:
            tree.copy_global_to(guild=guild)
        where = f"guild {guild.id}" if guild is not None else "everywhere"
        try:
            synced = await tree.sync(guild=guild)
        except discord.Forbidden as exc:
            log.warning("cannot register commands in %s (is the bot invited with the "
                        "applications.commands scope?): %s", where, exc.text)
        except discord.HTTPException:
            log.exception("registering commands in %s failed", where)
        else:
            log.info("registered %d commands in %s", len(synced), where)
