"""The catalogue on Discord: /quizzes (ephemeral in a server), its buttons, /quiz naming it."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

from bot.app.compose import App
from bot.domain import payloads as payload
from bot.domain.platforms import DISCORD, units
from bot.domain.results import Actor
from tests.helpers import play_through

from .conftest import ALICE, BOB, GUILD, replied, running, write_config
from .fake_discord import FakeDiscord
from .test_rounds import CAROL


async def test_quizzes_in_a_server(fake: FakeDiscord, bot: App) -> None:
    await play_through(bot.engine, Actor("discord", ALICE["id"]), "parallelism", miss=2)
    ix = await replied(fake, await fake.slash(ALICE, "quizzes", guild=GUILD))
    listing = ix.original
    assert listing is not None and listing.ephemeral
    assert listing.content.startswith("**Quizzes**\nTap a quiz to start it")
    assert units(listing.content) <= DISCORD.content_limit
    labels = [b["label"] for b in listing.buttons]
    assert len(labels) == 6 and all(len(label) <= 80 for label in labels)
    assert labels[0] == "Model and pipeline parallelism · 8 q · Introduction · 6/8"
    # Discord allows 5 rows: 6 quizzes go two a row, in catalogue order
    assert [len(row["components"]) for row in listing.components] == [2, 2, 2]

    deep = next(b for b in listing.buttons if b["label"].startswith("Parallelism in depth"))
    ix = await replied(fake, await fake.press(ALICE, listing, deep["custom_id"]))
    question = ix.original
    assert question is not None and question.ephemeral
    assert question.embeds[0]["title"].startswith("Question 1/22")


async def test_quiz_without_id_opens_the_catalogue_marking_the_unfinished_one(
        fake: FakeDiscord, bot: App) -> None:
    """/quiz with no quiz is the catalogue (INTERFACES.md); a quiz left at question 3 is
    marked there, the one button styled primary, and pressing it goes on at question 3."""
    alice = Actor("discord", ALICE["id"])
    prompt = await bot.engine.start(alice, "parallelism-deep")
    for position in range(2):
        await bot.engine.answer(alice, prompt.session_id, position, 0)
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD))
    listing = ix.original
    assert listing is not None and listing.ephemeral
    assert listing.content.startswith(  # the point first: where to go on
        "**Quizzes**\nYou are at question 3 of 22 of Parallelism in depth: schedules, memory "
        "and communication: tap its ▶ button to go on, or pick another quiz.\n")
    line = next(x for x in listing.content.splitlines()
                if x.startswith("• Parallelism in depth"))
    assert line.endswith(" · at question 3 of 22")
    going = [b for b in listing.buttons if b["label"].endswith(" · ▶ 3/22")]
    assert len(going) == 1 and going[0]["label"].startswith("Parallelism in depth")
    assert [b["label"] for b in listing.buttons if b["style"] == 1] == [going[0]["label"]]
    ix = await replied(fake, await fake.press(ALICE, listing, going[0]["custom_id"]))
    assert ix.original is not None
    assert ix.original.embeds[0]["title"].startswith("Question 3/22")
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                              options={"quiz": "nope"}))
    # it listed "• Title (id)" for a learner to retype; now what is missing, then the
    # catalogue's buttons (as Telegram), ephemeral in a server, no ids
    listing = ix.original
    assert listing is not None and listing.ephemeral
    assert listing.content.startswith("There is no quiz called nope.\n\n**Quizzes**\n")
    assert "(long-context)" not in listing.content and "The quizzes:" not in listing.content
    assert [payload.decode(b["custom_id"]).arg for b in listing.buttons] == [
        q.id for q in bot.engine.library.ordered()]


async def test_answer_leads_with_the_takeaway_explanation_in_a_field(
        fake: FakeDiscord, bot: App) -> None:
    quiz = bot.engine.quiz("parallelism-deep")
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                              options={"quiz": "parallelism-deep"}))
    question = ix.original
    assert question is not None
    description = question.embeds[0]["description"]
    asked = next(q for q in quiz.questions if q.text.get("en")[:40] in description)
    right = next(b["custom_id"] for b in question.buttons
                 if description.splitlines()[-len(asked.options):][
                     "ABCDEFGHIJ".index(b["label"])].endswith(
                         asked.options[asked.correct].text.get("en")[-30:]))
    ix = await replied(fake, await fake.press(ALICE, question, right), followups=1)
    embed = question.embeds[0]
    assert embed["title"] == "Question 1/22 · 1 right"
    assert asked.takeaway is not None
    assert "**✅ Correct\\!**" in embed["description"] or "**✅ Correct!**" in (
        embed["description"])
    assert "Right answer" not in embed["description"]
    assert [f["name"] for f in embed["fields"]][:1] == ["Explanation"]
    assert all(len(f["value"]) <= 1024 for f in embed["fields"])
    assert [what for what, _ in ix.events] == ["callback 7", "follow-up"]  # calls unchanged


async def test_review_a_topic(fake: FakeDiscord, bot: App) -> None:
    ix = await replied(fake, await fake.slash(ALICE, "review", guild=GUILD,
                                              options={"topic": "bubble"}))
    assert ix.original is not None and ix.original.ephemeral
    assert ix.original.embeds[0]["title"].startswith("Practice: Pipeline bubble 1/8")
    ix = await replied(fake, await fake.autocomplete(ALICE, "review", "topic", "bub",
                                                     guild=GUILD))
    assert ix.callback is not None
    assert {"name": "Pipeline bubble", "value": "bubble"} in ix.callback.data["choices"]


async def test_more_topics_than_buttons_says_how_to_reach_the_rest(fake: FakeDiscord,
                                                                   tmp_path: Path) -> None:
    """/review topic:<unknown> answers with a button per topic; Discord carries 25 (5 rows
    of 5): with 30 topics the last 5 were cut without a word. It shows 25 and says how to
    reach the others (the option's suggestions), which do find one past the 25."""
    minimal = Path(__file__).parents[2] / "fixtures" / "content" / "minimal.yaml"
    data = yaml.safe_load(minimal.read_text(encoding="utf-8"))
    data["topics"] = {f"t{i:02}": {"en": f"Topic {i:02}", "ur": f"موضوع {i:02}"}
                      for i in range(1, 31)}
    data["questions"] = [dict(copy.deepcopy(data["questions"][0]), id=f"q{i:02}",
                              text={"en": f"{i} plus one?", "ur": f"{i} جمع ایک؟"},
                              topics=[f"t{i:02}"]) for i in range(1, 31)]
    content = tmp_path / "content"
    content.mkdir()
    (content / "many.yaml").write_text(yaml.safe_dump(data, allow_unicode=True),
                                       encoding="utf-8")
    async with running(write_config(tmp_path, fake, content=content)):
        ix = await replied(fake, await fake.slash(ALICE, "review", guild=GUILD,
                                                  options={"topic": "nope"}))
        assert ix.original is not None and ix.original.ephemeral
        assert ix.original.text == (
            "There is no topic called nope. Tap one of these to practise it:\nThese are 25 "
            "of 30 topics; for another, type part of its name in /review topic: and pick "
            "it from the suggestions.")
        assert [b["label"] for b in ix.original.buttons] == [
            f"Topic {i:02}" for i in range(1, 26)]
        ix = await replied(fake, await fake.autocomplete(ALICE, "review", "topic", "Topic 28",
                                                         guild=GUILD))
        assert ix.callback is not None
        assert ix.callback.data["choices"] == [{"name": "Topic 28", "value": "t28"}]


async def test_a_typed_title_or_topic_name_is_understood(fake: FakeDiscord, bot: App) -> None:
    """Discord sends what was typed when Enter comes before a suggestion is picked: the
    title or name the suggestions (and the error's list) show means that quiz or topic;
    it used to answer "There is no topic called pipeline bubble. The topics: • Pipeline
    bubble (bubble) …"."""
    for typed in ("Pipeline bubble", "ببل"):  # its English name; not a name: refused
        ix = await replied(fake, await fake.slash(ALICE, "review", guild=GUILD,
                                                  options={"topic": typed}))
        assert ix.original is not None
        if typed == "ببل":  # the topics to tap, by name (no "(bubble)" to copy)
            assert ix.original.text.startswith("There is no topic called ببل. Tap one of "
                                               "these to practise it:")
            labels = [b["label"] for b in ix.original.buttons]
            assert "Pipeline bubble" in labels and "Tensor parallelism" in labels
            assert not set(labels) & set(bot.engine.topics()) and "(" not in ix.original.text
            practice = await replied(fake, await fake.press(
                ALICE, ix.original, ix.original.button("Tensor parallelism")["custom_id"]))
            assert practice.original is not None and practice.original.embeds[0][
                "title"].startswith("Practice: Tensor parallelism 1/")
        else:
            assert ix.original.embeds[0]["title"].startswith("Practice: Pipeline bubble 1/")
    ur_name = bot.engine.topic_name("bubble", "ur")
    ix = await replied(fake, await fake.slash(BOB, "review", guild=GUILD,
                                              options={"topic": f" {ur_name} "}))
    assert ix.original is not None and ix.original.embeds[0]["title"].startswith(
        "Practice: Pipeline bubble 1/")
    for typed in ("long sequences and sharded data parallelism",
                  "Long sequences and sharded data parallelism (long-context)"):
        ix = await replied(fake, await fake.slash(CAROL, "quiz", guild=GUILD,
                                                  options={"quiz": typed}))
        assert ix.original is not None
        assert ix.original.embeds[0]["footer"]["text"] == \
            "Long sequences and sharded data parallelism"
    # the other commands that name a quiz take its title the same way
    ix = await replied(fake, await fake.slash(ALICE, "settings", guild=GUILD,
                                              options={"quiz": "Parallelism in depth: "
                                                       "schedules, memory and communication"}))
    assert ix.original is not None and "Quiz for rounds and /quiz here: Parallelism in depth: " \
        "schedules, memory and communication\n" in ix.original.text
    ix = await replied(fake, await fake.slash(ALICE, "reward", guild=GUILD, subcommand="remove",
                                              options={"quiz": "model and pipeline "
                                                       "parallelism"}))
    assert ix.original is not None and ix.original.content.startswith(
        "Model and pipeline parallelism had no reward here")
    ix = await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                              options={"quiz": "Mixture of experts and "
                                                       "expert parallelism"}))
    assert ix.original is not None and ix.original.content.startswith(
        "Alice started a round of Mixture of experts and expert parallelism")
    ix = await replied(fake, await fake.slash(ALICE, "daily", guild=GUILD, subcommand="on",
                                              options={"time": "09:00",
                                                       "quiz": "Long sequences and sharded "
                                                       "data parallelism"}))
    assert ix.original is not None and ix.original.content.startswith(
        "📅 A question of the day from Long sequences and sharded data parallelism")


async def test_every_quiz_option_suggests_quizzes(fake: FakeDiscord, bot: App) -> None:
    """/round start, /daily on and /reward set name a quiz too: each suggests titles as
    /quiz does (they offered nothing, so a member had to know the id)."""
    for name, sub in (("round", "start"), ("daily", "on"), ("reward", "set")):
        ix = await replied(fake, await fake.autocomplete(ALICE, name, "quiz", "long",
                                                         guild=GUILD, subcommand=sub))
        assert ix.callback is not None and ix.callback.type == 8, name
        assert ix.callback.data["choices"] == [{  # shown by title; the id is only the value
            "name": "Long sequences and sharded data parallelism",
            "value": "long-context"}], name


async def test_an_urdu_members_suggestions_read_right_to_left(fake: FakeDiscord,
                                                             bot: App) -> None:
    """A suggestion and a topic button whose Urdu name opens in Latin ("MoE اور ایکسپرٹ
    متوازیت", "micro-batch شیڈول") isolate the Latin: left bare, Discord laid the name out
    left to right, the Urdu half backwards."""
    from bot.present.i18n import strip_isolates
    from tests.helpers import first_strong_direction

    await replied(fake, await fake.slash(ALICE, "language", options={"language": "ur"}))
    for command, option, typed in (("review", "topic", "MoE"), ("review", "topic", "micro"),
                                   ("quiz", "quiz", "Mixture")):
        ix = await replied(fake, await fake.autocomplete(ALICE, command, option, typed,
                                                         guild=GUILD))
        assert ix.callback is not None
        names = [c["name"] for c in ix.callback.data["choices"]]
        assert names and all(typed in strip_isolates(n) for n in names), names
        assert all(first_strong_direction(n) == "R" for n in names), names
    ix = await replied(fake, await fake.slash(ALICE, "review", guild=GUILD,
                                              options={"topic": "nope"}))
    assert ix.original is not None
    labels = [b["label"] for b in ix.original.buttons]
    assert any(strip_isolates(label).startswith("MoE") for label in labels)
    assert all(first_strong_direction(label) == "R" for label in labels), labels
