"""Answering an interaction inside Discord's 3-second window, and the one place errors
become messages.

Discord drops an interaction that gets no callback within 3 seconds (the user sees "This
interaction failed"; a late callback gets 10062 Unknown interaction). Handlers therefore call
the engine through `timely`, which acknowledges first when the engine is slow; `send` and
`update` then pick the response or the follow-up/edit endpoint accordingly.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar, cast

import discord
from discord import app_commands

from adapters.discord.views import MARKDOWN
from bot.domain.errors import QuizError
from bot.domain.results import Actor, QuestionPrompt
from bot.present.i18n import Catalogue, person

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFER_AFTER = 2.0  # seconds of engine work before we acknowledge and finish in a follow-up
UNKNOWN_INTERACTION = 10062  # the 3 seconds (or the 15-minute token) ran out
ALREADY_ACKNOWLEDGED = 40060
UNKNOWN_COMMAND = "error.unknown_command"
PEOPLE = ("host", "name")  # the parameters of a UI string that hold a member's name


def actor_of(interaction: discord.Interaction[Any]) -> Actor:
    """The engine's view of who pressed or typed, and where (a server, or None in DMs)."""
    user = interaction.user
    chat = str(interaction.guild_id) if interaction.guild_id else None
    # Discord has no Urdu locale, so its locale says nothing about our two languages:
    # the choice made with /language (or the configured default) decides.
    return Actor("discord", str(user.id), chat, user.display_name, None)


def custom_id_of(interaction: discord.Interaction[Any]) -> str:
    """The custom_id of the pressed component ("" for other interactions)."""
    data = cast(dict[str, Any], interaction.data or {})
    return str(data.get("custom_id", ""))


def in_server(interaction: discord.Interaction[Any]) -> bool:
    """True in a server channel, where a learner's quiz messages are ephemeral."""
    return interaction.guild_id is not None


def again(interaction: discord.Interaction[Any], prompt: QuestionPrompt) -> QuestionPrompt:
    """A command's question, shown even when the same attempt began seconds ago: in a
    server it is private, so showing it twice floods nobody, and "it is just above" is
    wrong when the first reply was lost or came in a direct message (a press on a button
    still gets that note: its question is above it)."""
    if in_server(interaction) and prompt.joined:
        return replace(prompt, joined=False)
    return prompt


async def timely(interaction: discord.Interaction[Any], work: Awaitable[T], *,
                 update: bool = False, ephemeral: bool = True) -> T:
    """Await `work`; if it outlasts DEFER_AFTER, acknowledge the interaction meanwhile.

    `update`: the reply will edit the message the button is on (a deferred update);
    otherwise a new message follows ("thinking…"), `ephemeral` or not.
    """
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.wait_for(asyncio.shield(task), DEFER_AFTER)
    except TimeoutError:
        if not interaction.response.is_done():
            log.info("interaction %s: the engine is slow, acknowledging first", interaction.id)
            if update:
                await interaction.response.defer()
            else:
                await interaction.response.defer(ephemeral=ephemeral, thinking=True)
        return await task


async def send(interaction: discord.Interaction[Any], *, ephemeral: bool,
               **message: Any) -> None:
    """A new message: the interaction response if still open, else a follow-up."""
    if interaction.response.is_done():
        await interaction.followup.send(ephemeral=ephemeral, **message)
    else:
        await interaction.response.send_message(ephemeral=ephemeral, **message)


async def update(interaction: discord.Interaction[Any], **message: Any) -> None:
    """Edit the message the pressed button is on."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**message)
    else:
        await interaction.response.edit_message(**message)


async def note(interaction: discord.Interaction[Any], cat: Catalogue, lang: str, key: str,
               **params: Any) -> None:
    """A short message only the user sees."""
    await send(interaction, ephemeral=True, content=MARKDOWN.escape(cat.t(lang, key, **params)))


async def report(interaction: discord.Interaction[Any], error: BaseException, *,
                 cat: Catalogue, lang: Callable[[], Awaitable[str]]) -> None:
    """Turn any failure in a handler into a short ephemeral message (or just a log line).

    The one place where exceptions meet users: a `QuizError` names its UI string, an unknown
    command gets a hint, Discord refusing us is logged, anything else is logged with its
    traceback and the user gets an apology.
    """
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    key, params = "error.generic", {}
    if isinstance(error, QuizError):
        key, params = error.key, error.params
        log.debug("quiz error %s for interaction %s", key, interaction.id)
    elif isinstance(error, app_commands.CommandNotFound):
        key = UNKNOWN_COMMAND
        log.info("unknown command %r (not synced yet, or removed)", error.name)
    elif isinstance(error, discord.NotFound) and error.code == UNKNOWN_INTERACTION:
        log.warning("interaction %s expired before we could answer it", interaction.id)
        return  # nothing more can be sent on it
    elif isinstance(error, discord.HTTPException) and error.code == ALREADY_ACKNOWLEDGED:
        log.warning("interaction %s was already acknowledged", interaction.id)
        return
    elif isinstance(error, discord.Forbidden):
        log.warning("Discord refused us (HTTP %s, code %s): %s", error.status, error.code,
                    error.text)
    else:
        log.error("interaction %s failed", interaction.id, exc_info=error)
    try:
        language = await lang()
    except Exception:
        log.exception("could not look up the user's language")
        language = cat.default
    if f"{key}_server" in cat.keys(language):  # Discord's own way to say it (/round start)
        key = f"{key}_server"
    # a person a refusal names ("Only Alice, who started it, …") is shown as every name is
    params = {k: person(language, v, MARKDOWN.inert) if k in PEOPLE and isinstance(v, str) else v
              for k, v in params.items()}
    try:
        text = cat.t(language, key, **params)
    except (KeyError, IndexError):
        log.exception("UI string %s does not fit its parameters", key)
        text = cat.t(language, "error.generic")
    try:
        await send(interaction, ephemeral=True, content=MARKDOWN.escape(text))
    except discord.HTTPException as exc:
        log.warning("could not tell the user about the failure: %s", exc)
