"""A group's own quiz and language: set by its admins, used by rounds and /quiz there,
refused to everyone else, and never a quiz or language that is not on offer."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.app.compose import build_engine
from bot.domain.errors import GroupsOnly, NotGroupAdmin, UnknownQuiz, UnsupportedLanguage
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.present.i18n import Catalogue
from bot.present.plan import Planner
from bot.present.render import PLAIN
from bot.store.sqlite import SQLiteStore
from tests.clock import FakeClock

GROUP = Actor("telegram", "42", chat_id="-100", display_name="Ada")
MEMBER = Actor("telegram", "7", chat_id="-100", display_name="Lin")
OTHER_GROUP = Actor("telegram", "42", chat_id="-200", display_name="Ada")
PRIVATE = Actor("telegram", "42", display_name="Ada")


async def test_admins_choose_and_rounds_and_quiz_use_it(
        store: SQLiteStore, quizzes: dict[str, Quiz]) -> None:
    engine = build_engine(store, quizzes, rng=random.Random(3), clock=FakeClock())
    view = await engine.group_settings(MEMBER)
    assert (view.quiz_id, view.chosen, view.group_lang) == (engine.quiz().id, False, None)

    view = await engine.set_group(GROUP, admin=True, quiz="long-context", language="ur")
    assert (view.quiz_id, view.chosen, view.group_lang) == ("long-context", True, "ur")
    assert await engine.group_choice(MEMBER) == ("long-context", "ur")
    assert await engine.group_choice(OTHER_GROUP) == (None, None)  # per group
    assert await engine.group_choice(PRIVATE) == (None, None)

    started = await engine.rounds.start(MEMBER, "-100")  # no quiz named: the group's
    assert started.lang == "ur"
    assert started.quiz_title == engine.quiz("long-context").title.get("ur")
    prompt = await engine.start(MEMBER)  # /quiz with no id in the group
    assert prompt.quiz_id == "long-context"
    assert (await engine.start(PRIVATE)).quiz_id == engine.quiz().id  # private: unchanged

    view = await engine.set_group(GROUP, admin=True, quiz="default")
    assert (view.chosen, view.group_lang) == (False, "ur")  # the language stays


async def test_refusals(store: SQLiteStore, quizzes: dict[str, Quiz]) -> None:
    engine = build_engine(store, quizzes, rng=random.Random(3))
    with pytest.raises(NotGroupAdmin):
        await engine.set_group(MEMBER, admin=False, quiz="long-context")
    with pytest.raises(GroupsOnly):
        await engine.set_group(PRIVATE, admin=True, quiz="long-context")
    with pytest.raises(UnknownQuiz):
        await engine.set_group(GROUP, admin=True, quiz="nope")
    with pytest.raises(UnsupportedLanguage):
        await engine.set_group(GROUP, admin=True, language="fr")
    assert await engine.group_choice(MEMBER) == (None, None)


async def test_a_chosen_quiz_that_is_gone_falls_back_to_the_default(
        tmp_path: Path, store: SQLiteStore, quizzes: dict[str, Quiz]) -> None:
    engine = build_engine(store, quizzes, rng=random.Random(3))
    await engine.set_group(GROUP, admin=True, quiz="long-context")
    fewer = {k: v for k, v in quizzes.items() if k != "long-context"}
    later = build_engine(store, fewer, rng=random.Random(3))  # the file was taken out
    assert await later.group_choice(MEMBER) == (None, None)
    assert (await later.start(MEMBER)).quiz_id == later.quiz().id
    # /settings there says why the default stands in, and what to do (it was silent)
    view = await later.group_settings(MEMBER)
    assert (view.chosen, view.gone, view.quiz_id) == (False, True, later.quiz().id)
    plan = Planner(Catalogue.load(), PLAIN, shared_chats=True)
    body = plan.group_settings(view).send[0].body
    assert "the quiz the admins chose was removed" in body and view.quiz_title in body
    assert not (await engine.group_settings(OTHER_GROUP)).gone  # nothing chosen: not gone
