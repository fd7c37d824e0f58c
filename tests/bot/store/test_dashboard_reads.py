"""The dashboard's reads (bot.store.commands.dashboard_sql, and report_sql.accuracy for a group's
questions) give the same rows on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random

from bot.app.compose import build_engine
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.features.dashboard.group_export import exporter_for
from bot.store.commands import dashboard_sql, quizzes_sql, rounds_sql, sessions_sql
from bot.store.commands.report_sql import Scope, accuracy
from bot.store.protocol import Store
from bot.store.round_rows import NewPress, NewRound
from tests.dashboard_support import play

GROUP = "-100500"


async def test_learner_and_group_reads(any_store: Store, quizzes: dict[str, Quiz]) -> None:
    engine = build_engine(any_store, quizzes, rng=random.Random(3))
    ada = Actor("telegram", "1", GROUP, "Ada")
    bob = Actor("telegram", "2", GROUP, "Bob")
    solo = Actor("telegram", "1", None, "Ada")
    assert await play(engine, quizzes, ada, wrong={0, 3}) == 6
    assert await play(engine, quizzes, solo, wrong={0}) == 7
    assert await play(engine, quizzes, bob, wrong={0}) == 7

    assert await any_store.read(sessions_sql.user, "telegram", "1") == ("Ada", None)
    assert await any_store.read(sessions_sql.user, "telegram", "404") is None
    attempts = await any_store.read(dashboard_sql.attempts, "telegram", "1")
    assert [(a.quiz_id, a.score, a.total) for a in attempts] == [
        ("parallelism", 6, 8), ("parallelism", 7, 8)]
    answers = await any_store.read(dashboard_sql.answers, "telegram", "1")
    assert len(answers) == 16 and answers[0].answered_at >= answers[-1].answered_at
    assert sum(a.correct for a in answers) == 13
    assert await any_store.read(dashboard_sql.groups_of, "telegram", "1") == [(GROUP, None)]
    await any_store.write(dashboard_sql.save_chat_title, "telegram", GROUP, "Study club", 1.0)
    assert await any_store.read(dashboard_sql.groups_of, "telegram", "1") == [
        (GROUP, "Study club")]
    assert await any_store.read(dashboard_sql.chat_titles, "telegram", [GROUP, "-1"]) == {
        GROUP: "Study club"}
    assert await any_store.read(dashboard_sql.groups_of, "telegram", "3") == []

    questions = {(q.quiz_id, q.question_id): q for q in
                 await any_store.read(accuracy, Scope(GROUP, "telegram"))}
    first = quizzes["parallelism"].questions[0]
    row = questions[("parallelism", first.id)]
    assert (row.answered, row.correct, row.wrong_count) == (2, 0, 2)
    assert row.wrong_choice == (first.correct + 1) % len(first.options)
    fourth = questions[("parallelism", quizzes["parallelism"].questions[3].id)]
    assert (fourth.answered, fourth.correct, fourth.wrong_count) == (2, 1, 1)
    assert all(q.wrong_choice is None for q in questions.values() if q.correct == q.answered)
    assert await any_store.read(accuracy, Scope("-1", "telegram")) == []
    assert await any_store.read(accuracy, Scope(GROUP, "discord")) == []

    members, everyone = await any_store.read(dashboard_sql.group_members, "telegram", GROUP)
    assert [(m.display_name, m.best, m.attempts) for m in members] == [("Ada", 6, 1),
                                                                       ("Bob", 7, 1)]
    assert everyone == 2
    page, everyone = await any_store.read(dashboard_sql.group_members, "telegram", GROUP,
                                          limit=1)
    assert [m.display_name for m in page] == ["Ada"] and everyone == 2
    assert await any_store.read(dashboard_sql.group_rounds, "telegram", GROUP) == []

    # A round of two questions: Ada gets both, Bob one; then one stopped before anyone played.
    ids = ("q1", "q2")
    new = NewRound("telegram", GROUP, GROUP, "1", "Ada", "parallelism", "en", ids,
                   ((0, 1, 2, 3), (0, 1, 2, 3)), 30, 0.0)
    rnd = await any_store.write(rounds_sql.create_round, new, 1000.0)
    assert rnd is not None
    await any_store.write(rounds_sql.open_due_questions, "telegram", 1000.0)
    for qindex, at in ((0, 1000.0), (1, 1100.0)):
        await any_store.write(rounds_sql.open_due_questions, "telegram", at)
        await any_store.write(rounds_sql.press_round,
                              NewPress(rnd.id, qindex, "1", "Ada", 0, True, at + 1))
        await any_store.write(rounds_sql.press_round,
                              NewPress(rnd.id, qindex, "2", "Bob", 1 - qindex, qindex == 1,
                                             at + 2))
        await any_store.write(rounds_sql.reveal_due_questions, "telegram", at + 31)
    later = await any_store.write(rounds_sql.create_round, new, 5000.0)
    assert later is not None
    await any_store.write(rounds_sql.stop_round, later.id, 5001.0)
    rounds = await any_store.read(dashboard_sql.group_rounds, "telegram", GROUP)
    assert [(r.id, r.status, r.players, r.best, r.total) for r in rounds] == [
        (later.id, "stopped", 0, None, 2), (rnd.id, "finished", 2, 2, 2)]
    assert rounds[1].mean == 1.5 and rounds[1].host_name == "Ada"
    assert await any_store.read(dashboard_sql.group_rounds, "discord", GROUP) == []


async def test_group_export_runs_the_report_through_the_store(any_store: Store, store_url: str,
                                                              quizzes: dict[str, Quiz]) -> None:
    engine = build_engine(any_store, quizzes, rng=random.Random(4))
    await play(engine, quizzes, Actor("telegram", "1", GROUP, "=HYPERLINK(x)"), wrong={0})
    await play(engine, quizzes, Actor("telegram", "2", "-999", "Elsewhere"))
    export = exporter_for(any_store, lambda: quizzes)
    lines = (await export("telegram", GROUP, "csv")).splitlines()
    assert lines[0].startswith("platform,user_id,display_name,quiz_id")
    assert len(lines) == 1 + 8 and all(line.startswith("telegram,1,'=HYPERLINK(x)")
                                       for line in lines[1:])
    data = json.loads(await export("telegram", GROUP, "json"))
    assert [r["user_id"] for r in data["learners"]] == ["1"]
    first = next(q for q in data["questions"]
                 if q["question_id"] == quizzes["parallelism"].questions[0].id)
    assert (first["answered"], first["correct"], first["wrong_count"]) == (1, 0, 1)


async def test_a_members_best_is_out_of_its_own_attempts_questions(any_store: Store,
                                                                  quizzes: dict[str, Quiz]
                                                                  ) -> None:
    """A best from a short round is 2 of 2, not 2 of the quiz's 8: each member row carries
    the total of the attempt its best came from (the group's board keeps the same best)."""
    engine = build_engine(any_store, quizzes, rng=random.Random(3))
    assert await play(engine, quizzes, Actor("telegram", "2", GROUP, "Bob"),
                      wrong=set(range(2, 8))) == 2  # 2/8 first: a tie keeps the earlier
    new = NewRound("telegram", GROUP, GROUP, "1", "Cara", "parallelism", "en", ("q1", "q2"),
                   ((0, 1, 2, 3), (0, 1, 2, 3)), 30, 0.0)
    rnd = await any_store.write(rounds_sql.create_round, new, 1000.0)
    assert rnd is not None
    for qindex, at in ((0, 1000.0), (1, 1100.0)):
        await any_store.write(rounds_sql.open_due_questions, "telegram", at)
        for uid, name in (("1", "Cara"), ("2", "Bob")):
            await any_store.write(rounds_sql.press_round,
                                  NewPress(rnd.id, qindex, uid, name, 0, True, at + 1))
        await any_store.write(rounds_sql.reveal_due_questions, "telegram", at + 31)
    members, everyone = await any_store.read(dashboard_sql.group_members, "telegram", GROUP)
    assert [(m.display_name, m.best, m.total, m.attempts) for m in members] == [
        ("Bob", 2, 8, 2), ("Cara", 2, 2, 1)]  # weakest first: 2 of 8 before 2 of 2
    assert everyone == 2
    board = await any_store.read(sessions_sql.best, "parallelism", f"telegram:{GROUP}", 10)
    assert sorted((b.display_name, b.score, b.total) for b in board) == sorted(
        (m.display_name, m.best, m.total) for m in members)


async def test_the_member_table_leads_with_who_needs_help_and_keeps_them_when_cut(
        any_store: Store, quizzes: dict[str, Quiz]) -> None:
    """A teacher's table of members: the lowest share right first, each best out of its own
    attempt's questions (a round's 2 of 2 is a full mark, a quiz's 7 of 8 is not; a deep
    quiz's 11 of 22 is weaker than 5 of 8), of equals the one who played longest ago first;
    cut to fewer rows, the table keeps the weakest, not the best."""
    engine = build_engine(any_store, quizzes, rng=random.Random(3))
    deep = len(quizzes["parallelism-deep"].questions)
    for uid, name, wrong in (("1", "Ada", {0}), ("2", "Bob", {0, 1, 2, 3, 4, 5}),
                             ("3", "Cy", {0, 1, 2}), ("4", "Dee", {0, 1, 2})):
        await play(engine, quizzes, Actor("telegram", uid, GROUP, name), wrong=wrong)
    await play(engine, quizzes, Actor("telegram", "5", GROUP, "Eve"), quiz_id="parallelism-deep",
               wrong=set(range(deep // 2)))
    new = NewRound("telegram", GROUP, GROUP, "6", "Fay", "parallelism", "en", ("q1", "q2"),
                   ((0, 1, 2, 3), (0, 1, 2, 3)), 30, 0.0)
    rnd = await any_store.write(rounds_sql.create_round, new, 1000.0)
    assert rnd is not None
    for qindex, at in ((0, 1000.0), (1, 1100.0)):
        await any_store.write(rounds_sql.open_due_questions, "telegram", at)
        await any_store.write(rounds_sql.press_round,
                              NewPress(rnd.id, qindex, "6", "Fay", 0, True, at + 1))
        await any_store.write(rounds_sql.reveal_due_questions, "telegram", at + 31)
    members, everyone = await any_store.read(dashboard_sql.group_members, "telegram", GROUP)
    assert [(m.display_name, m.best, m.total or 8) for m in members] == [
        ("Bob", 2, 8), ("Eve", deep - deep // 2, deep), ("Cy", 5, 8), ("Dee", 5, 8),
        ("Ada", 7, 8), ("Fay", 2, 2)]
    assert everyone == 6
    page, everyone = await any_store.read(dashboard_sql.group_members, "telegram", GROUP,
                                          limit=2)
    assert [m.display_name for m in page] == ["Bob", "Eve"] and everyone == 6
    # When a member last played here is their latest attempt of any quiz, on each row.
    await play(engine, quizzes, Actor("telegram", "1", GROUP, "Ada"), quiz_id="parallelism-deep")
    members, _ = await any_store.read(dashboard_sql.group_members, "telegram", GROUP)
    ada = [m for m in members if m.display_name == "Ada"]
    assert len(ada) == 2 and ada[0].last_at != ada[1].last_at
    assert {m.played_at for m in ada} == {max(m.last_at for m in ada)}
    assert all(m.played_at == m.last_at for m in members if m.display_name != "Ada")


async def test_a_removed_quizs_stored_file_is_still_read(any_store: Store) -> None:
    """The dashboard names a quiz removed since by the file it was installed as: the newest
    stored file, not the removal's empty row; a quiz never installed has none."""
    await any_store.write(quizzes_sql.install_quiz, "week3", "title: Old", "{}", "cli:a", 1.0)
    await any_store.write(quizzes_sql.install_quiz, "week3", "title: Week 3", "{}", "cli:a", 2.0)
    assert await any_store.write(quizzes_sql.remove_quiz, "week3", "cli:a", 3.0)
    assert await any_store.read(quizzes_sql.stored_files, ["week3", "never"]) == {
        "week3": "title: Week 3"}
    assert await any_store.read(quizzes_sql.stored_files, []) == {}


async def test_an_organiser_who_only_hosts_finds_the_groups_they_host(any_store: Store) -> None:
    """A teacher who runs rounds in two groups and never plays one: both are their groups
    (the one hosted last first), with their titles, so their own page links to each; a
    Discord round counts on its server (board_chat), not the channel it was posted in."""
    orders = ((0, 1, 2, 3),)
    for chat, at in (("-1001", 1000.0), ("-1002", 2000.0)):
        new = NewRound("telegram", chat, chat, "77", "Tess", "parallelism", "en", ("q1",),
                       orders, 30, 0.0)
        await any_store.write(rounds_sql.create_round, new, at)
    await any_store.write(dashboard_sql.save_chat_title, "telegram", "-1002", "Year 9", 1.0)
    assert await any_store.read(dashboard_sql.groups_of, "telegram", "77") == [
        ("-1002", "Year 9"), ("-1001", None)]
    new = NewRound("discord", "555", "900", "77", "Tess", "parallelism", "en", ("q1",),
                   orders, 30, 0.0)
    await any_store.write(rounds_sql.create_round, new, 3000.0)
    assert await any_store.read(dashboard_sql.groups_of, "discord", "77") == [("900", None)]
    assert await any_store.read(dashboard_sql.groups_of, "telegram", "78") == []


async def test_a_learners_group_quizzes_put_the_chosen_one_first(
        any_store: Store, quizzes: dict[str, Quiz]) -> None:
    """The quizzes the learner's page may suggest (`group_quizzes`): each group's chosen quiz
    first, then its rounds' and the learner's own in a group, latest first; a quiz played
    alone or in a group the learner is not in is none of them."""
    from bot.store.commands.groups_sql import save_group_choice

    engine = build_engine(any_store, quizzes, rng=random.Random(3))
    await play(engine, quizzes, Actor("telegram", "1", GROUP, "Ada"), quiz_id="long-context")
    await play(engine, quizzes, Actor("telegram", "1", None, "Ada"), quiz_id="parallelism-deep")
    new = NewRound("telegram", GROUP, GROUP, "9", "Tess", "pipeline-schedules", "en",
                   ("q1",), ((0, 1, 2, 3),), 30, 0.0)
    await any_store.write(rounds_sql.create_round, new, engine.clock() + 5)
    other = NewRound("telegram", "-7", "-7", "9", "Tess", "expert-parallelism", "en",
                     ("q1",), ((0, 1, 2, 3),), 30, 0.0)
    await any_store.write(rounds_sql.create_round, other, engine.clock() + 6)
    assert await any_store.read(dashboard_sql.group_quizzes, "telegram", "1") == [
        "pipeline-schedules", "long-context"]
    await any_store.write(save_group_choice, "telegram", GROUP, "parallelism", None, "9", 1.0)
    assert await any_store.read(dashboard_sql.group_quizzes, "telegram", "1") == [
        "parallelism", "pipeline-schedules", "long-context"]
    assert await any_store.read(dashboard_sql.group_quizzes, "telegram", "9") == [
        "parallelism", "expert-parallelism", "pipeline-schedules"]
    assert await any_store.read(dashboard_sql.group_quizzes, "telegram", "404") == []
