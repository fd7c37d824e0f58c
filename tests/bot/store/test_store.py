"""SQLite store: migrations, durability under concurrency, refusing files it must not touch."""

from __future__ import annotations

import asyncio
import hashlib
import random
import sqlite3
import time
from pathlib import Path

import pytest

from bot.app.compose import build_engine
from bot.domain.errors import ConfigError, StoreRefused
from bot.domain.results import Actor, AnswerResult
from bot.store.commands import sessions_sql
from bot.store.sqlite import SQLiteStore, migrations, path_from_url
from tests.helpers import right_option


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def assert_refused_untouched(path: Path, match: str) -> None:
    """Opening `path` fails with a message matching `match`; the file keeps its bytes."""
    before = digest(path)
    with pytest.raises(StoreRefused, match=match):
        await SQLiteStore.open(path)
    assert digest(path) == before


async def test_migrations_from_empty_are_recorded(tmp_path: Path):
    store = await SQLiteStore.open(f"sqlite:///{tmp_path}/nested/dir/q.db")
    await store.close()
    db = sqlite3.connect(tmp_path / "nested/dir/q.db")
    try:
        versions = [r[0] for r in db.execute("SELECT version FROM schema_migrations")]
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        db.close()
    assert versions == [v for v, _, _ in migrations()]
    assert {"users", "sessions", "answers", "best_scores"} <= tables
    assert mode == "wal"


async def test_reopen_applies_nothing_twice(tmp_path: Path):
    for _ in range(3):
        store = await SQLiteStore.open(tmp_path / "q.db")
        await store.close()
    db = sqlite3.connect(tmp_path / "q.db")
    try:
        assert db.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] == len(
            migrations())
    finally:
        db.close()


@pytest.mark.parametrize("url, expected", [
    ("sqlite:///data/quizbot.db", Path("data/quizbot.db")),
    ("sqlite:////var/lib/quizbot/q.db", Path("/var/lib/quizbot/q.db")),
])
def test_storage_url_forms(url: str, expected: Path):
    assert path_from_url(url) == expected


@pytest.mark.parametrize("url", ["postgres://x", "sqlite://", "data/q.db"])
def test_bad_storage_url(url: str):
    with pytest.raises(ConfigError, match=r"storage\.url"):
        path_from_url(url)


async def test_non_sqlite_file_is_refused_untouched(tmp_path: Path):
    path = tmp_path / "q.db"
    path.write_text("these are my notes, not a database\n" * 50)
    await assert_refused_untouched(path, "not a SQLite database")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.db"]


async def test_corrupt_database_is_refused_untouched(tmp_path: Path, quizzes):
    path = tmp_path / "q.db"
    store = await SQLiteStore.open(path)
    engine = build_engine(store, quizzes)
    for i in range(300):
        await engine.start(Actor("t", f"user-{i}", None, "x" * 200))
    await store.close()
    data = bytearray(path.read_bytes())
    assert len(data) > 8 * 4096
    for offset in range(4096 * 2, len(data) - 4096, 4096):  # scribble over page bodies
        data[offset + 100 : offset + 400] = b"\xde\xad\xbe\xef" * 75
    path.write_bytes(bytes(data))
    await assert_refused_untouched(path, "corrupt")


async def test_newer_schema_is_refused_untouched(tmp_path: Path):
    path = tmp_path / "q.db"
    await (await SQLiteStore.open(path)).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO schema_migrations VALUES (999, '0999_future.sql', 0)")
    db.commit()
    db.close()
    await assert_refused_untouched(path, "newer")


async def test_someone_elses_sqlite_database_is_refused(tmp_path: Path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    db.commit()
    db.close()
    await assert_refused_untouched(path, "not quizbot's")


async def test_200_concurrent_learners_lose_nothing_and_count_nothing_twice(
        tmp_path: Path, quizzes):
    store = await SQLiteStore.open(tmp_path / "q.db")
    engine = build_engine(store, quizzes, rng=random.Random(11))
    learners = [Actor("telegram", str(i), None, f"L{i}") for i in range(200)]

    async def learner(actor: Actor, seed: int) -> int:
        rng = random.Random(seed)
        prompt = await engine.start(actor)
        score = 0
        while prompt is not None:
            option = right_option(quizzes, prompt) if rng.random() < 0.5 else (
                (right_option(quizzes, prompt) + 1) % 4)
            # Every tap is delivered twice, concurrently, as Telegram may after a restart.
            first, second = await asyncio.gather(
                engine.answer(actor, prompt.session_id, prompt.position, option),
                engine.answer(actor, prompt.session_id, prompt.position, option))
            assert isinstance(first, AnswerResult) and isinstance(second, AnswerResult)
            assert first.duplicate != second.duplicate
            score += first.is_correct
            prompt = first.next
        return score

    expected = await asyncio.gather(*[learner(a, i) for i, a in enumerate(learners)])
    commits = store.commits
    await store.close()

    db = sqlite3.connect(tmp_path / "q.db")
    try:
        answers = db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
        scores = dict(db.execute("SELECT user_id, score FROM sessions WHERE status='finished'"))
        dupes = db.execute("SELECT COUNT(*) FROM (SELECT session_id, position FROM answers "
                           "GROUP BY 1, 2 HAVING COUNT(*) > 1)").fetchone()[0]
    finally:
        db.close()
    assert answers == 200 * 8 and dupes == 0
    assert scores == {str(i): s for i, s in enumerate(expected)}
    assert commits < 200 * 8  # answers shared commits (group commit)


async def test_close_commits_writes_already_queued(tmp_path: Path):
    store = await SQLiteStore.open(tmp_path / "q.db")
    pending = [asyncio.create_task(store.write(sessions_sql.set_language,
                                               "t", str(i), "ur", time.time())) for i in range(20)]
    await asyncio.sleep(0)  # one turn: every task has queued its write and awaits the commit
    await store.close()
    async with asyncio.timeout(5):  # a close that dropped queued writes would hang here
        await asyncio.gather(*pending)
    db = sqlite3.connect(tmp_path / "q.db")
    try:
        assert db.execute("SELECT COUNT(*) FROM users WHERE lang = 'ur'").fetchone()[0] == 20
    finally:
        db.close()


async def test_a_repeated_answer_counts_once_and_says_repeat(store: SQLiteStore):
    from bot.domain.results import SessionKind
    from bot.store.rows import NewAnswer, NewSession, Write

    await sessions_sql.touch_user(store, "t", "1", "T", time.time())
    row = await store.write(sessions_sql.start_session,
                            NewSession("t", "1", None, "quiz", SessionKind.FULL,
                                               ("a", "b"), ((0, 1), (1, 0)),
                                               started_at=time.time()), replace=False)
    sid = row.id

    def answer(position: int, qid: str, chosen: int, correct: bool, finished: bool) -> NewAnswer:
        return NewAnswer(sid, position, qid, chosen, correct, finished, answered_at=time.time())

    first = answer(0, "a", 1, True, False)
    outcomes = await asyncio.gather(store.write(sessions_sql.record_answer,
                                                first), store.write(sessions_sql.record_answer,
                                                                    first))
    assert sorted(o.outcome for o in outcomes) == [Write.APPLIED, Write.REPEAT]
    row = await store.read(sessions_sql.get_session, sid)
    assert (row.position, row.score) == (1, 1)
    # an answer for a position the session is not at is stale, and changes nothing
    assert (await store.write(sessions_sql.record_answer,
                              answer(0 + 5, "b", 0, True, True))).outcome == Write.STALE
    last = answer(1, "b", 0, False, True)
    assert (await store.write(sessions_sql.record_answer, last)).outcome == Write.APPLIED
    again = await store.write(sessions_sql.record_answer,
                              answer(1, "b", 1, True, True))  # a different choice
    assert again.outcome == Write.REPEAT and again.answer.chosen == 0  # the first one stands
    row = await store.read(sessions_sql.get_session, sid)
    assert (row.position, row.score, row.status) == (2, 1, "finished")
    assert [b.score for b in await store.read(sessions_sql.best, "quiz", "", 10)] == [1]
