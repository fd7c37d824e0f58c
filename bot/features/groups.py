"""A group's own choice (Telegram group, Discord server): the quiz a round or `/quiz` there
starts when none is named, and the language round posts use. Set by the group's admins
with /settings in the group (the adapter says who is one: Telegram's getChatMember, Discord's
Manage Server permission); read by rounds and /quiz there. A group the platform gives a new
id (a Telegram group upgraded to a supergroup) takes everything of its own there (`moved`)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.domain.errors import GroupsOnly, NotGroupAdmin, UnsupportedLanguage
from bot.domain.results import Actor, GroupView
from bot.domain.rights import Manages, platform_said
from bot.features.library import Library
from bot.store.commands.chat_moves_sql import move_chat
from bot.store.commands.groups_sql import (
    drop_manager,
    group_choice,
    is_manager,
    note_manager,
    save_group_choice,
)
from bot.store.protocol import Store

log = logging.getLogger(__name__)

RESET = ("default", "off", "none")  # `/settings quiz default`: back to the bot's own choice


class Groups:
    """Reads and sets each group's choice; the database holds it, nothing is cached."""

    def __init__(self, library: Library, store: Store, *, clock: Callable[[], float]) -> None:
        self.library, self.store, self.clock = library, store, clock

    async def choice(self, actor: Actor) -> tuple[str | None, str | None]:
        """(quiz id, language) chosen where `actor` is, as long as both are still on offer;
        (None, None) in a private chat or when nothing was chosen."""
        if actor.chat_id is None:
            return None, None
        return self._offered(*await self.store.read(group_choice, actor.platform,
                                                    actor.chat_id))

    def _offered(self, quiz_id: str | None, lang: str | None) -> tuple[str | None, str | None]:
        """A stored choice as it stands: a quiz or language no longer on offer is None."""
        return (quiz_id if quiz_id in self.library.quizzes else None,
                lang if lang in self.library.languages else None)

    async def view(self, actor: Actor) -> GroupView:
        """The group's settings as its members read them (in the reader's language)."""
        if actor.chat_id is None:
            raise GroupsOnly()
        stored, lang = await self.store.read(group_choice, actor.platform, actor.chat_id)
        quiz_id, lang = self._offered(stored, lang)  # read once: `gone` is what was dropped
        reader = await self.library.language(actor)
        quiz = self.library.quiz(quiz_id)  # the chosen one, else the bot's default
        return GroupView(reader, quiz.id, quiz.title.get(reader), quiz_id is not None, lang,
                         gone=stored is not None and quiz_id is None)

    async def choose(self, actor: Actor, *, admin: Manages, quiz: str | None = None,
                     language: str | None = None) -> GroupView:
        """Set the group's quiz and/or language (`default` clears one); admins only."""
        if actor.chat_id is None:
            raise GroupsOnly()
        if not await self.manages(actor, admin):
            raise NotGroupAdmin()
        quiz_id, lang = await self.choice(actor)
        if quiz is not None:
            quiz_id = None if quiz.lower() in RESET else self.library.quiz(quiz).id
        if language is not None:
            lang = None if language.lower() in RESET else language.lower()
            if lang is not None and lang not in self.library.languages:
                raise UnsupportedLanguage(lang=language)
        await self.store.write(save_group_choice, actor.platform, actor.chat_id, quiz_id, lang,
                               f"{actor.platform}:{actor.user_id}", self.clock())
        return await self.view(actor)

    async def manages(self, actor: Actor, manages: Manages, host_id: str | None = None) -> bool:
        """`rights.may_manage`, and what the platform said of the member on the way kept
        (`said`). A host is let in without asking: nothing is learnt of them."""
        allowed, said = await platform_said(actor, manages, host_id)
        if actor.chat_id is not None and said is not None:
            await self.said(actor.platform, actor.chat_id, actor.user_id, said)
        return allowed

    async def said(self, platform: str, chat_id: str, user_id: str, manages: bool) -> None:
        """The platform just said whether this member manages the group: one who does is
        noted as one of its managers (`group_managers`: their dashboard lists the group,
        labelled, though they neither play nor host there); one who no longer does (an
        admin demoted since) is no longer, so the label says what the group's page allows.
        The one place a manager is noted; a refusal costs a read, a write only when a note
        goes."""
        if manages:
            await self.store.write(note_manager, platform, chat_id, user_id, self.clock())
        elif await self.store.read(is_manager, platform, chat_id, user_id):
            await self.store.write(drop_manager, platform, chat_id, user_id)
            log.info("groups: %s user %s no longer manages chat %s; their note dropped",
                     platform, user_id, chat_id)

    async def moved(self, platform: str, old_chat_id: str, new_chat_id: str) -> bool:
        """Move everything kept under the chat's old id to its new one, in one transaction
        (`chat_moves_sql.move_chat`); False when nothing was there (already moved)."""
        moved = await self.store.write(move_chat, platform, old_chat_id, new_chat_id,
                                       self.clock())
        if moved:
            log.info("groups: %s chat %s is now chat %s; moved its %s", platform, old_chat_id,
                     new_chat_id, ", ".join(f"{t} ({n})" for t, n in sorted(moved.items())))
        return bool(moved)
