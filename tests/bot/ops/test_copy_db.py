"""copy-db: SQLite -> PostgreSQL -> SQLite keeps every row; a non-empty target is refused."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
from pathlib import Path

import asyncpg
import pytest

from adapters.cli.main import main
from bot.app.compose import build_engine
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.domain.round_results import LockedIn, RoundQuestion
from bot.ops import reader
from bot.ops.copy_db import CopyRefused, copy_db
from bot.store import open_url
from bot.store.commands import boards_sql, jobs_sql, learning_sql, rounds_sql, sessions_sql
from bot.store.commands.report_sql import Scope, accuracy
from bot.store.protocol import Store
from bot.store.round_rows import NewRound
from tests.helpers import due, right_option, rounds_of, wrong_option


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def fill(store: Store, quizzes: dict[str, Quiz]) -> None:
    """Finished, abandoned and active sessions, languages, group boards; cards and reviews
    (with and without confidence marks), learner settings and reminder jobs; a finished
    round and one in flight."""
    engine = build_engine(store, quizzes, rng=random.Random(3))
    for i in range(12):
        actor = Actor("telegram" if i % 2 else "discord", str(100 + i), str(i % 3) or None,
                      f"Learner {i}")
        if i % 4 == 0:
            await engine.set_language(actor, "ur")
        if i % 3 == 0:
            await engine.set_confidence(actor, True)
        if i % 4 == 1:
            await engine.remind(actor, "19:30", "+05:00")  # settings and a due job
        prompt = await engine.start(actor)
        for n in range(8 if i % 3 else 5):  # every third learner stops half-way
            assert prompt is not None
            pick = right_option if (i + n) % 3 else wrong_option
            result = await engine.answer(actor, prompt.session_id, prompt.position,
                                         pick(quizzes, prompt), sure=bool(n % 2)
                                         if i % 3 == 0 else None)
            prompt = result.next  # type: ignore[union-attr]
        if i % 5 == 0:
            await engine.restart(actor)  # an abandoned attempt stays in history
    clock = Clock()
    rounds = rounds_of(engine, clock=clock, default_seconds=20, reveal_seconds=5,
                    rng=random.Random(3))
    host, guest = (Actor("telegram", u, "-100", f"Member {u}") for u in ("101", "103"))
    await rounds.start(host, "-100", questions=2)
    for qindex in range(2):  # a finished round: sessions with round_id, round boards
        [question] = await due(rounds, "telegram")
        assert isinstance(question, RoundQuestion)
        await rounds.posted(question, f"m{qindex}")
        for who in (host, guest)[: 2 - qindex]:  # the guest is silent on question 2
            locked = await rounds.press(who, question.round_id, qindex, qindex)
            assert isinstance(locked, LockedIn), locked
        clock.now += 20
        await due(rounds, "telegram")
        clock.now += 5
    # and one in flight, a question open whose post is not shown yet (a job)
    started = await rounds.start(guest, "-100", questions=3)
    await rounds.claim("telegram", clock())
    assert isinstance(await rounds.press(host, started.round_id, 0, 1), LockedIn)


async def dump(store: Store, users: list[tuple[str, str]]) -> list[object]:
    """Everything the engine can read back about these users."""
    out: list[object] = []
    for platform, user in users:
        out.append(await sessions_sql.touch_user(store, platform, user, "", time.time()))
        out.append(await store.read(sessions_sql.attempts, platform, user, "parallelism"))
        out.append(await store.read(accuracy, Scope(platform=platform, user_id=user,
                                                    quiz_id="parallelism")))
        active = await store.read(sessions_sql.active_session, platform, user, "parallelism")
        out.append(active)
        if active is not None:
            out.append(await store.read(sessions_sql.answers, active.id))
        last = await store.read(sessions_sql.last_finished, platform, user, "parallelism")
        out.append(last)
        if last is not None:
            out.append(await store.read(sessions_sql.answers, last.id))
        out.append(await store.read(learning_sql.cards, platform, user))
        out.append(await store.read(learning_sql.review_totals, platform, user))
        out.append(await store.read(learning_sql.review_days, platform, user, 0))
        out.append(await store.read(learning_sql.learner_settings, platform, user))
        out.append(await store.read(learning_sql.next_due, platform, user))
    for scope in ("", "telegram:1", "discord:2", "telegram:-100"):
        out.append(await store.read(sessions_sql.best, "parallelism", scope, 50))
    for rounds in (True, False):
        out.append(await store.read(boards_sql.board,
                                    "parallelism", "telegram", "-100", rounds=rounds,
                                    limit=50))
    for round_id in (1, 2):
        out.append(await store.read(rounds_sql.get_round, round_id))
        out.append([await store.read(rounds_sql.round_message, round_id, q) for q in range(3)])
    out.append(await store.read(rounds_sql.next_round_due, "telegram"))
    return out


def jobs_in(path: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(path)
    try:
        return [(k, kind, due, json.loads(payload)) for k, kind, due, payload in db.execute(
            "SELECT key, kind, due_at, payload FROM jobs ORDER BY due_at, id")]
    finally:
        db.close()


USERS = [("telegram" if i % 2 else "discord", str(100 + i)) for i in range(12)]


async def test_sqlite_to_postgres_and_back_keeps_everything(tmp_path: Path, postgres_url: str,
                                                            quizzes: dict[str, Quiz],
                                                            monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(reader, "CHUNK", 7)  # rows move a chunk at a time, on both ends
    first, back = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    store = await open_url(first)
    try:
        await fill(store, quizzes)
        before = await dump(store, USERS)
    finally:
        await store.close()
    jobs = jobs_in(tmp_path / "a.db")

    copied = await copy_db(first, postgres_url)
    assert copied.rows["users"] == 12 and copied.rows["answers"] > 12 * 5
    assert (copied.rows["rounds"], copied.rows["round_questions"]) == (2, 3)
    assert copied.rows["round_answers"] == 4 and copied.rows["jobs"] == len(jobs)
    # three reminders, and the rounds' posts (each question, reveal and stop is a job)
    assert sum(str(kind).startswith("remind") for _, kind, _, _ in jobs) == 3
    assert sum(kind == "round:telegram" or kind == "round:discord"
               for _, kind, _, _ in jobs) == len(jobs) - 3 > 0
    assert copied.rows["reviews"] >= copied.rows["cards"] > 12 * 4
    assert copied.rows["learner_settings"] == 6  # confidence: 0, 3, 6, 9; remind: 1, 5, 9
    pg = await open_url(postgres_url)
    try:
        assert await dump(pg, USERS) == before
        # new sessions get ids after the copied ones (buttons carry the old ids)
        fresh = await build_engine(pg, quizzes).start(Actor("telegram", "new", None, "New"))
        assert fresh.session_id > max(r.id for r in [
            await pg.read(sessions_sql.last_finished, p, u, "parallelism") for p, u in USERS] if r)
        claimed = await pg.write(jobs_sql.claim_due, 2e9, 10, "w", 60.0)
        assert [(j.key, j.kind, j.due_at, j.payload) for j in claimed] == jobs
        rnd = await pg.write(rounds_sql.create_round, NewRound("discord", "-200", "-200", "1", "H",
                                             "parallelism", "en", ("a",), ((0, 1),), 20, 5.0),
                             0.0)
        assert rnd is not None and rnd.id == 3  # after the copied rounds, too
    finally:
        await pg.close()

    # and back, new session and round included
    again = await copy_db(postgres_url, back)
    assert again.rows == {**copied.rows, "users": 13, "sessions": copied.rows["sessions"] + 1,
                          "rounds": 3}
    db = sqlite3.connect(tmp_path / "b.db")
    try:
        assert db.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 13
        corrects = {r[0] for r in db.execute("SELECT DISTINCT correct FROM answers")}
        sure = {r[0] for r in db.execute("SELECT DISTINCT sure FROM reviews")}
        confidence = {r[0] for r in db.execute("SELECT confidence FROM learner_settings")}
    finally:
        db.close()
    assert corrects == {0, 1}  # booleans became SQLite's 0/1 again
    assert sure == {None, 0, 1} and confidence == {0, 1}
    store = await open_url(back)
    try:
        assert await dump(store, USERS) == before
    finally:
        await store.close()


def test_a_non_empty_target_is_refused_and_kept(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]):
    source, target = tmp_path / "a.db", tmp_path / "b.db"

    async def seed() -> None:
        for path, user in ((source, "1"), (target, "2")):
            store = await open_url(f"sqlite:///{path}")
            await store.write(sessions_sql.set_language, "t", user, "ur", time.time())
            await store.close()

    asyncio.run(seed())
    before = target.read_bytes()
    assert main(["copy-db", "--from", f"sqlite:///{source}", "--to", f"sqlite:///{target}"]) == 1
    assert "not empty (1 users)" in capsys.readouterr().err
    assert target.read_bytes() == before
    fresh = tmp_path / "c.db"
    assert main(["copy-db", "--from", f"sqlite:///{source}", "--to", f"sqlite:///{fresh}"]) == 0
    out = capsys.readouterr().out
    assert "copied 1 users, 0 rounds, 0 sessions, 0 answers, 0 best_scores, " in out


async def test_a_copy_into_a_used_postgres_changes_nothing(tmp_path: Path, postgres_url: str):
    store = await open_url(postgres_url)
    await store.write(sessions_sql.set_language, "t", "9", "en", time.time())
    await store.close()
    source = f"sqlite:///{tmp_path / 'a.db'}"
    store = await open_url(source)
    await store.write(sessions_sql.set_language, "t", "1", "ur", time.time())
    await store.close()
    with pytest.raises(CopyRefused, match="not empty"):
        await copy_db(source, postgres_url)
    conn = await asyncpg.connect(postgres_url)
    try:
        assert [tuple(r) for r in await conn.fetch("SELECT user_id, lang FROM users")] == [
            ("9", "en")]
    finally:
        await conn.close()


async def test_the_same_database_twice_is_refused(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'a.db'}"
    with pytest.raises(CopyRefused, match="same database"):
        await copy_db(url, f"sqlite:///{tmp_path}/../{tmp_path.name}/a.db")


def test_a_source_file_that_is_not_there_is_refused_and_nothing_is_created(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    typo, target = tmp_path / "tpyo.db", tmp_path / "b.db"
    assert main(["copy-db", "--from", f"sqlite:///{typo}", "--to", f"sqlite:///{target}"]) == 1
    err = capsys.readouterr().err
    assert f"no database file {typo}" in err and "check --from" in err
    assert not typo.exists() and not target.exists()


def test_a_url_copy_db_cannot_use_names_its_flag_never_its_password(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    good = f"sqlite:///{tmp_path / 'a.db'}"
    for args, said in ((["--from", "mysql://ann:hunter2@db/quiz", "--to", good],
                        "quizbot: --from must be sqlite:///path/to.db or "
                        "postgresql://user@host:port/db, got a mysql: URL\n"),
                       (["--from", good, "--to", str(tmp_path / "b.db")],  # sqlite:/// left out
                        "quizbot: --to must be sqlite:///path/to.db or "
                        "postgresql://user@host:port/db, got no scheme\n")):
        assert main(["copy-db", *args]) == 1
        assert capsys.readouterr().err == said  # was "storage.url must be ...": no such key here
    assert list(tmp_path.iterdir()) == []


def test_a_source_or_target_that_is_not_quizbots_names_the_option_that_gave_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    junk, other = tmp_path / "junk.db", tmp_path / "other.db"
    junk.write_bytes(b"not a database at all, " * 20)
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    conn.close()
    good = f"sqlite:///{tmp_path / 'good.db'}"

    async def make() -> None:
        await (await open_url(good)).close()
    asyncio.run(make())
    before = {p.name: p.read_bytes() for p in (junk, other)}
    for args, flag in ((["--from", f"sqlite:///{junk}", "--to", f"sqlite:///{tmp_path}/b.db"],
                        "--from"),
                       (["--from", f"sqlite:///{other}", "--to", f"sqlite:///{tmp_path}/c.db"],
                        "--from"),
                       (["--from", good, "--to", f"sqlite:///{junk}"],
                        "--to")):
        assert main(["copy-db", *args]) == 1
        err = capsys.readouterr().err
        assert f"point {flag} at another file" in err, err
        assert "storage.url" not in err  # copy-db has no config: there is no such key here
    assert {p.name: p.read_bytes() for p in (junk, other)} == before


def test_the_config_s_storage_url_stands_for_the_side_left_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """docs/deploy.md's `qb` runs every command with `--config /etc/quizbot/config.yaml`
    appended: copy-db refused it ('unrecognized arguments'), so moving the service's SQLite
    file into PostgreSQL could not be run as the service runs. Its storage.url now stands
    for --from or --to, whichever is left out."""
    old, live, out = tmp_path / "old.db", tmp_path / "live.db", tmp_path / "out.db"

    async def seed() -> None:
        store = await open_url(f"sqlite:///{old}")
        await store.write(sessions_sql.set_language, "t", "1", "ur", time.time())
        await store.close()

    asyncio.run(seed())
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{live}\n")

    assert main(["copy-db", "--from", f"sqlite:///{old}", "--config", str(config)]) == 0
    assert capsys.readouterr().out.endswith(f"to sqlite:///{live}; counts verified\n")
    assert main(["copy-db", "--to", f"sqlite:///{out}", "--config", str(config)]) == 0
    assert capsys.readouterr().out.startswith("copied 1 users, ")
    with sqlite3.connect(out) as db:
        assert db.execute("SELECT user_id, lang FROM users").fetchall() == [("1", "ur")]
    db.close()
    for args in ([], ["--config", str(config)], ["--from", f"sqlite:///{old}"]):
        assert main(["copy-db", *args]) == 2
        assert capsys.readouterr().err == (
            "quizbot copy-db: give --from URL and --to URL, or one of them with --config "
            "PATH: its storage.url is the other\n")


def test_a_refusal_names_the_config_when_the_config_gave_that_side(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """`qb copy-db --from sqlite:///old.db` (docs/deploy.md) fills the config's storage.url:
    when that database is not empty, the refusal said 'point --to at an empty database', an
    option the maintainer never gave. It names the config's storage.url instead, and the
    options that were given keep their names."""
    old, live = tmp_path / "old.db", tmp_path / "live.db"

    async def seed() -> None:
        for path, user in ((old, "1"), (live, "2")):
            store = await open_url(f"sqlite:///{path}")
            await store.write(sessions_sql.set_language, "t", user, "ur", time.time())
            await store.close()

    asyncio.run(seed())
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{live}\n")
    named = f"storage.url in {config}"

    assert main(["copy-db", "--from", f"sqlite:///{old}", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert f"point {named} at an empty database" in err and "--to" not in err, err
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'tpyo.db'}\n")
    assert main(["copy-db", "--to", f"sqlite:///{tmp_path / 'new.db'}",
                 "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert f"check {named} (nothing" in err and "--from" not in err, err
    config.write_text(f"storage:\n  url: sqlite:///{old}\n")
    assert main(["copy-db", "--from", f"sqlite:///{old}", "--config", str(config)]) == 1
    assert capsys.readouterr().err == f"quizbot: --from and {named} name the same database\n"
