"""The dashboard's reads (bot.store.commands.dashboard_sql, and report_sql.accuracy for a group's
questions) give the same rows on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random

from bot.app.compose import build_engine
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.features.dashboard.group_export import exporter_for
from bot.store.commands import dashboard_sql, rounds_sql, sessions_sql
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
    assert [(m.display_name, m.best, m.attempts) for m in members] == [("Bob", 7, 1),
                                                                       ("Ada", 6, 1)]
    assert everyone == 2
    page, everyone = await any_store.read(dashboard_sql.group_members, "telegram", GROUP,
                                          limit=1)
    assert len(page) == 1 and everyone == 2
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
        ("Cara", 2, 2, 1), ("Bob", 2, 8, 2)]
    assert everyone == 2
    board = await any_store.read(sessions_sql.best, "parallelism", f"telegram:{GROUP}", 10)
    assert [(b.display_name, b.score, b.total) for b in board] == [
        (m.display_name, m.best, m.total) for m in members]
