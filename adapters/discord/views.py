"""Embeds, buttons and views: engine results rendered for Discord.

Buttons are `DynamicItem`s whose `template` is the payload regex, registered once on the
client, so a button keeps working after a restart: the custom_id only points, the database
decides. Views are rendering only (see `_frozen`).
"""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from bot import payload
from bot.i18n import Catalogue
from bot.payload import ActionPayload, AnswerPayload
from bot.render import (
    Markup,
    answered_question_text,
    letter,
    progress_bar,
    question_body,
    question_header,
    summary_text,
)
from bot.results import AnswerResult, QuestionPrompt, Summary

MESSAGE_LIMIT = 2000  # characters in a message's content; an embed description holds 4096
COLOUR = discord.Colour.blurple()


def _escape(text: str) -> str:
    return discord.utils.escape_markdown(text)


MARKDOWN = Markup(
    escape=_escape,
    bold=lambda text: f"**{text}**",
    link=lambda title, url: f"[{title}](<{url}>)",  # <url> keeps Discord from unfurling it
)


class ButtonHandler(Protocol):
    """What a pressed button calls; the client carries one as `flows`."""

    async def answer(self, interaction: discord.Interaction[Any], pressed: AnswerPayload) -> None:
        ...

    async def action(self, interaction: discord.Interaction[Any],
                     pressed: ActionPayload | None) -> None:
        ...


def handler_of(interaction: discord.Interaction[Any]) -> ButtonHandler:
    """The handler of the client this interaction arrived on."""
    return cast(ButtonHandler, interaction.client.flows)


class AnswerButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=payload.ANSWER_RE):
    """A lettered answer button; its custom_id is `payload.encode_answer(...)`."""

    def __init__(self, custom_id: str, *, label: str,
                 style: discord.ButtonStyle = discord.ButtonStyle.primary,
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, disabled=disabled,
                                           custom_id=custom_id))
        pressed = payload.decode(custom_id)
        assert isinstance(pressed, AnswerPayload)  # the template guarantees it
        self.pressed = pressed

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str],
                             ) -> AnswerButton:
        return cls(match.group(0), label=getattr(item, "label", None) or "?")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await handler_of(interaction).answer(interaction, self.pressed)


class ActionButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=payload.ACTION_RE):
    """Review missed, Try again, a language, a reset confirmation: `payload.encode_action`."""

    def __init__(self, custom_id: str, *, label: str,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id))
        pressed = payload.decode(custom_id)
        # None for an action this version does not know (an old or forged button)
        self.pressed = pressed if isinstance(pressed, ActionPayload) else None

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str],
                             ) -> ActionButton:
        return cls(match.group(0), label=getattr(item, "label", None) or "?")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await handler_of(interaction).action(interaction, self.pressed)


DYNAMIC_ITEMS = (AnswerButton, ActionButton)


def _frozen(*items: discord.ui.Item[Any]) -> discord.ui.View:
    """A view to send, stopped before it goes out.

    Presses are dispatched by the DynamicItem templates registered on the client, never by
    this object, so it must not sit in discord.py's view store: a stopped view is not stored,
    gets no 15-minute ephemeral timer, and cannot leak memory over thousands of questions.
    """
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    view.stop()
    return view


# --- questions -------------------------------------------------------------------------------


def question_embed(cat: Catalogue, prompt: QuestionPrompt) -> discord.Embed:
    """"Question 3/8 ▰▰▱▱…" over the question and its lettered options."""
    title = f"{question_header(cat, prompt)}  {progress_bar(prompt.position, prompt.total)}"
    body = question_body(cat, prompt, MARKDOWN)
    if prompt.resumed:
        body = f"*{_escape(cat.t(prompt.lang, 'question.resumed'))}*\n\n{body}"
    embed = discord.Embed(title=title, description=body, colour=COLOUR)
    embed.set_footer(text=prompt.quiz_title)
    return embed


def question_view(prompt: QuestionPrompt) -> discord.ui.View:
    """One lettered button per option."""
    return _frozen(*(
        AnswerButton(payload.encode_answer(prompt.session_id, prompt.position, i),
                     label=letter(i))
        for i in range(len(prompt.options))))


def answered_embed(cat: Catalogue, result: AnswerResult) -> discord.Embed:
    """The question after the press: the choice and the right answer marked."""
    colour = discord.Colour.green() if result.is_correct else discord.Colour.red()
    embed = discord.Embed(description=answered_question_text(cat, result, MARKDOWN),
                          colour=colour)
    embed.set_footer(text=result.question.quiz_title)
    return embed


def answered_view(result: AnswerResult) -> discord.ui.View:
    """The same buttons, disabled: green for the right answer, red for a wrong choice."""
    prompt = result.question

    def style(i: int) -> discord.ButtonStyle:
        if i == result.correct:
            return discord.ButtonStyle.success
        if i == result.chosen:
            return discord.ButtonStyle.danger
        return discord.ButtonStyle.secondary

    return _frozen(*(
        AnswerButton(payload.encode_answer(prompt.session_id, prompt.position, i),
                     label=letter(i), style=style(i), disabled=True)
        for i in range(len(prompt.options))))


# --- everything else -----------------------------------------------------------------------


def summary_embed(cat: Catalogue, summary: Summary) -> discord.Embed:
    """Final score, missed questions with their right answers, best score."""
    return discord.Embed(description=summary_text(cat, summary, MARKDOWN), colour=COLOUR)


def summary_view(cat: Catalogue, summary: Summary) -> discord.ui.View:
    """Review missed (when something was missed) and Try again."""
    items: list[discord.ui.Item[Any]] = []
    if summary.missed:
        items.append(ActionButton(payload.encode_action("review", summary.quiz_id),
                                  label=cat.t(summary.lang, "button.review"),
                                  style=discord.ButtonStyle.primary))
    items.append(ActionButton(payload.encode_action("retry", summary.quiz_id),
                              label=cat.t(summary.lang, "button.retry")))
    return _frozen(*items)


def start_view(cat: Catalogue, lang: str, quiz_id: str) -> discord.ui.View:
    """A single Start button."""
    return _frozen(ActionButton(payload.encode_action("start", quiz_id),
                                label=cat.t(lang, "button.start"),
                                style=discord.ButtonStyle.primary))


def language_view(cat: Catalogue) -> discord.ui.View:
    """One button per shipped language, each labelled in its own language."""
    return _frozen(*(ActionButton(payload.encode_action("lang", code),
                                  label=cat.t(code, "language.name"))
                     for code in cat.languages))


def reset_view(cat: Catalogue, lang: str) -> discord.ui.View:
    """Yes, delete / Cancel."""
    return _frozen(
        ActionButton(payload.encode_action("reset", "yes"), label=cat.t(lang, "button.yes"),
                     style=discord.ButtonStyle.danger),
        ActionButton(payload.encode_action("reset", "no"), label=cat.t(lang, "button.no")),
    )


def text_message(text: str) -> dict[str, Any]:
    """Keyword arguments that show `text`: as content, or as an embed when it is too long."""
    if len(text) <= MESSAGE_LIMIT:
        return {"content": text}
    return {"embed": discord.Embed(description=text, colour=COLOUR)}
