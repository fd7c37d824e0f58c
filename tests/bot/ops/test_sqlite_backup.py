"""Backup while learners answer, restore and its refusals, stats and export contents."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import random
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from bot.app.compose import build_engine, open_app
from bot.app.config import load_config
from bot.domain.errors import StoreRefused
from bot.domain.quiz import Quiz
from bot.domain.results import Actor, AnswerResult, QuestionPrompt
from bot.features.engine import Engine
from bot.ops import sqlite_backup
from bot.ops.reader import inspect, open_reader
from bot.present import reporting
from bot.store.commands import sessions_sql
from bot.store.commands.dashboard_sql import save_chat_title
from bot.store.commands.report_sql import Scope, export_rows, overview
from bot.store.protocol import Store
from bot.store.sqlite import SQLiteStore
from bot.store.sqlite_lock import hold
from tests.helpers import right_option, wrong_option

LEARNERS = 50


def answers_in(path: Path) -> set[tuple[int, int]]:
    db = sqlite3.connect(path)
    try:
        return {(r[0], r[1]) for r in db.execute("SELECT session_id, position FROM answers")}
    finally:
        db.close()


async def test_backup_while_50_learners_answer_holds_every_acknowledged_answer(
        tmp_path: Path, quizzes: dict[str, Quiz]) -> None:
    store = await SQLiteStore.open(tmp_path / "live.db")
    engine = build_engine(store, quizzes, rng=random.Random(1))
    acked: set[tuple[int, int]] = set()
    enough = asyncio.Event()
    stop = asyncio.Event()

    async def learner(n: int) -> None:
        actor = Actor("telegram", str(n), display_name=f"L{n}")
        prompt: QuestionPrompt | None = await engine.restart(actor)
        rng = random.Random(n)
        while not stop.is_set():
            assert prompt is not None
            pick = right_option if rng.random() < 0.5 else wrong_option
            result = await engine.answer(actor, prompt.session_id, prompt.position,
                                         pick(quizzes, prompt))
            assert isinstance(result, AnswerResult) and not result.duplicate
            acked.add((prompt.session_id, prompt.position))  # acknowledged: committed
            if len(acked) >= 300:
                enough.set()
            prompt = result.next or await engine.restart(actor)

    tasks = [asyncio.create_task(learner(n)) for n in range(LEARNERS)]
    try:
        await asyncio.wait_for(enough.wait(), 30)
        before = set(acked)  # every answer acknowledged before the backup starts
        result = await asyncio.to_thread(sqlite_backup.backup, store.path, tmp_path / "copy.db")
    finally:
        stop.set()
        await asyncio.gather(*tasks)
        await store.close()

    copy = tmp_path / "copy.db"
    db = sqlite3.connect(copy)
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one file
    finally:
        db.close()
    in_copy = answers_in(copy)
    assert before <= in_copy, f"{len(before - in_copy)} acknowledged answers missing"
    assert result.answers == len(in_copy)
    assert in_copy <= answers_in(tmp_path / "live.db")  # a snapshot of the live file
    assert not (tmp_path / ".copy.db.partial").exists()


async def finished_store(path: Path, quizzes: dict[str, Quiz], users: int) -> None:
    store = await SQLiteStore.open(path)
    engine = build_engine(store, quizzes, rng=random.Random(3))
    try:
        for n in range(users):
            actor = Actor("terminal", f"u{n}")
            prompt: QuestionPrompt | None = await engine.start(actor)
            while prompt is not None:
                result = await engine.answer(actor, prompt.session_id, prompt.position,
                                             right_option(quizzes, prompt))
                assert isinstance(result, AnswerResult)
                prompt = result.next
    finally:
        await store.close()


async def test_restore_round_trip(tmp_path: Path, quizzes: dict[str, Quiz]) -> None:
    live = tmp_path / "live.db"
    await finished_store(live, quizzes, users=2)
    sqlite_backup.backup(live, tmp_path / "b.db")
    expected = answers_in(live)
    live.unlink()  # the disk failed

    result = sqlite_backup.restore(tmp_path / "b.db", live)
    assert result.answers == 16 and answers_in(live) == expected
    store = await SQLiteStore.open(live)  # the bot starts on it
    try:
        assert await store.read(sessions_sql.attempts, "terminal", "u1", "parallelism") == (1, 8, 8)
    finally:
        await store.close()


async def test_restore_refuses_while_a_bot_has_the_database_open(
        tmp_path: Path, quizzes: dict[str, Quiz]) -> None:
    live = tmp_path / "live.db"
    await finished_store(live, quizzes, users=1)
    sqlite_backup.backup(live, tmp_path / "b.db")
    config = load_config(None, env={})
    config = replace(config, storage_url=f"sqlite:///{live}")
    async with open_app(config):  # a running bot (or quizbot play) on the file
        with pytest.raises(StoreRefused, match="a quizbot process is using it"):
            await asyncio.to_thread(sqlite_backup.restore, tmp_path / "b.db", live)
    with hold(live, exclusive=True), pytest.raises(StoreRefused, match="being restored"):
        async with open_app(config):  # a bot started during a restore does not start
            pass
    assert sqlite_backup.restore(tmp_path / "b.db", live).answers == 8  # once nobody holds it


async def test_restore_refuses_a_backup_from_a_newer_quizbot(
        tmp_path: Path, quizzes: dict[str, Quiz]) -> None:
    live = tmp_path / "live.db"
    await finished_store(live, quizzes, users=1)
    sqlite_backup.backup(live, tmp_path / "b.db")
    db = sqlite3.connect(tmp_path / "b.db")
    db.execute("INSERT INTO schema_migrations VALUES (999, '0999_future.sql', 0)")
    db.commit()
    db.close()
    before = (live.read_bytes())
    with pytest.raises(sqlite_backup.OpsError, match="version 999, newer than this quizbot"):
        sqlite_backup.restore(tmp_path / "b.db", live)
    assert live.read_bytes() == before


async def test_restore_refuses_to_discard_newer_activity_without_force(
        tmp_path: Path, quizzes: dict[str, Quiz]) -> None:
    live = tmp_path / "live.db"
    await finished_store(live, quizzes, users=1)
    sqlite_backup.backup(live, tmp_path / "b.db")
    await finished_store(live, quizzes, users=2)  # u0 and u1 play after the backup
    with pytest.raises(sqlite_backup.OpsError, match="newer than the backup"):
        sqlite_backup.restore(tmp_path / "b.db", live)
    assert len(answers_in(live)) == 24  # untouched (u0 played twice, u1 once)
    assert sqlite_backup.restore(tmp_path / "b.db", live, force=True).replaced_newer
    assert len(answers_in(live)) == 8


def test_backup_refuses_bad_input(tmp_path: Path) -> None:
    with pytest.raises(sqlite_backup.OpsError, match="no such database file"):
        sqlite_backup.backup(tmp_path / "missing.db", tmp_path / "b.db")
    (tmp_path / "notes.db").write_text("hello")
    with pytest.raises(sqlite_backup.OpsError, match="not a SQLite database"):
        sqlite_backup.backup(tmp_path / "notes.db", tmp_path / "b.db")
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE t (x)")
    other.close()
    with pytest.raises(sqlite_backup.OpsError, match="not quizbot's"):
        sqlite_backup.backup(tmp_path / "other.db", tmp_path / "b.db")
    empty = sqlite3.connect(tmp_path / "empty.db")  # a SQLite file, no tables: none to copy
    empty.execute("PRAGMA user_version = 1")  # writes the header
    empty.close()
    with pytest.raises(sqlite_backup.OpsError, match=r"empty\.db: refused: .*no tables"):
        sqlite_backup.backup(tmp_path / "empty.db", tmp_path / "b.db")
    assert not (tmp_path / "b.db").exists()



async def test_the_operations_leave_the_database_folder_as_they_found_it(
        tmp_path: Path, quizzes: dict[str, Quiz]) -> None:
    live = tmp_path / "live.db"
    await finished_store(live, quizzes, users=1)  # the bot stopped: no -wal, no -shm
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    async with open_reader(f"sqlite:///{live}") as reader:  # stats, export
        await reader.read(overview)
    inspect(live)  # check
    sqlite_backup.backup(live, tmp_path / "b.db")
    # Read-only, they used to leave an empty -wal and a -shm (root's, under sudo: then the
    # bot's own user could not open its database).
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name != "b.db"} == before
    store = await SQLiteStore.open(live)  # while a bot runs its files stay, and it writes on
    try:
        async with open_reader(f"sqlite:///{live}") as reader:
            await reader.read(overview)
        assert Path(f"{live}-wal").exists() and Path(f"{live}-shm").exists()
        await sessions_sql.touch_user(store, "telegram", "7", "Late", 1.0)
    finally:
        await store.close()
    assert (await asyncio.to_thread(inspect, live) or (0, 0))[1] == 2  # users

def damage_rows(path: Path) -> None:
    """Overwrite the root page of every table but schema_migrations: the schema still reads
    as quizbot's (the look on open passes), its rows do not (SQLITE_CORRUPT on a read)."""
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA journal_mode = DELETE")  # everything in the one file
        size = db.execute("PRAGMA page_size").fetchone()[0]
        roots = [r[0] for r in db.execute("SELECT rootpage FROM sqlite_master WHERE type = "
                                          "'table' AND name != 'schema_migrations'")]
    finally:
        db.close()
    data = bytearray(path.read_bytes())
    for root in roots:
        data[(root - 1) * size:root * size] = b"\xff" * size
    path.write_bytes(bytes(data))


async def test_a_damaged_database_is_refused_in_one_line_and_never_replaced(
        tmp_path: Path, quizzes: dict[str, Quiz]) -> None:
    live = tmp_path / "live.db"
    await finished_store(live, quizzes, users=1)
    sqlite_backup.backup(live, tmp_path / "b.db")
    damage_rows(live)
    before = live.read_bytes()
    live_damaged = r"live\.db: refused: it is corrupt \(.+\); stop the bot, move the file aside"
    with pytest.raises(sqlite_backup.OpsError, match=live_damaged):  # stats, export
        async with open_reader(f"sqlite:///{live}") as reader:
            await reader.read(overview)
    with pytest.raises(sqlite_backup.OpsError, match=r"live\.db: refused: it is corrupt"):  # check
        inspect(live)
    with pytest.raises(sqlite_backup.OpsError, match=live_damaged):
        sqlite_backup.backup(live, tmp_path / "b2.db")
    assert not (tmp_path / "b2.db").exists()
    # Replacing it would lose what sqlite3's .recover may still get out of it.
    with pytest.raises(sqlite_backup.OpsError, match=r"corrupt .*move it aside, then run this "
                                                  "restore again"):
        sqlite_backup.restore(tmp_path / "b.db", live, force=True)
    assert live.read_bytes() == before
    # A damaged file given as the backup: the target is not even created.
    with pytest.raises(sqlite_backup.OpsError, match=r"live\.db: refused: it is corrupt .*"
                                                  "choose another backup"):
        sqlite_backup.restore(live, tmp_path / "new.db")
    assert not (tmp_path / "new.db").exists()
    assert live.read_bytes() == before
    assert sqlite_backup.restore(tmp_path / "b.db", tmp_path / "new.db").answers == 8

# --- stats and export against a known set of sessions ------------------------------------

def file_letter(quizzes: dict[str, Quiz], prompt: QuestionPrompt, shown: int) -> str:
    question = quizzes[prompt.quiz_id].question(prompt.question_id)
    assert question is not None
    texts = [o.text.get(prompt.lang) for o in question.options]
    return "ABCDEFGHIJ"[texts.index(prompt.options[shown])]


async def play(engine: Engine, quizzes: dict[str, Quiz], actor: Actor, picks: list[bool],
               ) -> dict[str, str]:
    """Answer right (True) or wrong (False) in order; return question id -> letter chosen."""
    prompt: QuestionPrompt | None = await engine.start(actor)
    chosen = {}
    for right in picks:
        assert prompt is not None
        shown = (right_option if right else wrong_option)(quizzes, prompt)
        chosen[prompt.question_id] = file_letter(quizzes, prompt, shown)
        result = await engine.answer(actor, prompt.session_id, prompt.position, shown)
        assert isinstance(result, AnswerResult)
        prompt = result.next
    return chosen


async def test_export_and_stats_match_the_sessions_played(
        backend_store: Store, store_url: str, quizzes: dict[str, Quiz]) -> None:
    """The same figures from a SQLite file and from PostgreSQL: one report over both."""
    engine = build_engine(backend_store, quizzes, rng=random.Random(7))
    alice = Actor("telegram", "1", chat_id="-100", display_name="Alice")
    bob = Actor("telegram", "2", chat_id="-100", display_name="Bob")
    carol = Actor("telegram", "3", display_name="Carol")  # private chat, unfinished
    await play(engine, quizzes, alice, [True] * 8)
    bob_chose = await play(engine, quizzes, bob, [False] * 8)
    carol_chose = await play(engine, quizzes, carol, [True, True, False])
    order = [q.id for q in quizzes["parallelism"].questions]
    await backend_store.write(save_chat_title, "telegram", "-100", "Pipeline Club", 1.0)

    async with open_reader(store_url) as reader:
        group = await reader.read(export_rows, Scope.parse("telegram:-100"))
        group_questions = await reader.read(export_rows, Scope.parse("-100"))
        everyone = await reader.read(export_rows, Scope())
        view = await reader.read(overview)

    data = json.loads(reporting.export_json(group, quizzes))
    assert data["chat"] == {"platform": "telegram", "chat_id": "-100", "title": "Pipeline Club"}
    heads = [(r["display_name"], r["attempts_finished"], r["best_score"], r["last_score"])
             for r in data["learners"]]
    assert heads == [("Alice", 1, 8, 8), ("Bob", 1, 0, 0)]
    bob_row = data["learners"][1]
    assert [q["question_id"] for q in bob_row["questions"]] == order
    assert {q["question_id"]: q["last_option"] for q in bob_row["questions"]} == bob_chose
    assert all(q["answered"] == 1 and q["correct"] == 0 for q in bob_row["questions"])
    group_csv = list(csv.DictReader(io.StringIO(reporting.export_csv(group, quizzes))))
    assert {(r["chat_id"], r["chat_title"]) for r in group_csv} == {("-100", "Pipeline Club")}
    assert [(q["question_id"], q["answered"], q["correct"], q["accuracy"], q["wrong_option"])
            for q in reporting.question_rows(group_questions.questions, quizzes)] == [
        (qid, 2, 1, 0.5, bob_chose[qid]) for qid in order]
    assert data["questions"] == reporting.question_rows(group_questions.questions, quizzes)

    rows = list(csv.DictReader(io.StringIO(reporting.export_csv(everyone, quizzes))))
    assert len(rows) == 8 + 8 + 3
    carol_rows = [r for r in rows if r["display_name"] == "Carol"]
    assert [(r["question_id"], r["correct"], r["attempts_finished"], r["best_score"])
            for r in carol_rows] == [(order[0], "1", "0", ""), (order[1], "1", "0", ""),
                                     (order[2], "0", "0", "")]
    assert {(r["chat_id"], r["chat_title"]) for r in rows} == {("", "")}  # every chat

    assert (view.users, view.answers, dict(view.sessions)) == (3, 19,
                                                               {"active": 1, "finished": 2})
    questions = reporting.question_rows(view.questions, quizzes)
    first = questions[0]
    assert (first["question_id"], first["answered"], first["correct"]) == (order[0], 3, 2)
    third, picks = questions[2], sorted({bob_chose[order[2]], carol_chose[order[2]]})
    same = len(picks) == 1  # Bob and Carol saw different orders: maybe the same option
    assert (third["answered"], third["correct"], third["wrong_option"],
            third["wrong_count"]) == (3, 1, picks[0], 2 if same else 1)  # ties: earlier option
    text = reporting.format_overview(view, quizzes)
    assert "users     3" in text and "sessions  3 (1 active, 2 finished)" in text
    assert "\nparallelism  Q2 " in text and "67%" in text  # by number and text, not id
    # Groups by name (their id is there for --chat); the private chat is no group.
    assert "  Pipeline Club  telegram:-100  2 learners" in text.splitlines()
