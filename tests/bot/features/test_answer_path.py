"""The answer path under concurrency: two engines on one file, resets racing answers, an old
database upgraded. Only the defined outcomes ever come back, and nothing counts twice."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from bot.app.compose import build_engine
from bot.domain.errors import NoActiveSession
from bot.domain.quiz import Quiz
from bot.domain.results import Actor, AnswerResult, NotYours, StaleAnswer
from bot.features.engine import Engine
from bot.store.commands import sessions_sql
from bot.store.migrate import migrations
from bot.store.sqlite import SQLiteStore
from tests.helpers import right_option

ROOT = Path(__file__).resolve().parents[3]
OUTCOMES = (AnswerResult, StaleAnswer, NotYours)


def check_database(path: Path, quiz: Quiz) -> dict[int, int]:
    """Every session agrees with a serial replay of its stored answers; returns the scores."""
    db = sqlite3.connect(path)
    try:
        scores = {}
        for sid, position, score, status, qids, orders in db.execute(
                "SELECT id, position, score, status, question_ids, option_orders FROM sessions"):
            answers = db.execute("SELECT position, question_id, chosen, correct FROM answers "
                                 "WHERE session_id = ? ORDER BY position", (sid,)).fetchall()
            assert [a[0] for a in answers] == list(range(len(answers)))  # no gap, no double
            assert position == len(answers)
            replay = 0
            for pos, qid, chosen, correct in answers:
                assert qid == json.loads(qids)[pos]
                assert chosen in json.loads(orders)[pos]
                question = quiz.question(qid)
                assert question is not None and bool(correct) == (chosen == question.correct)
                replay += correct
            assert score == replay
            assert (status == "finished") == (position == len(json.loads(qids)))
            scores[sid] = score
        return scores
    finally:
        db.close()


async def learner_chaos(engine: Engine, quizzes: dict[str, Quiz], actor: Actor,
                        rng: random.Random, steps: int) -> list[object]:
    """Answer, double-answer, reset and restart in a random mix; collect every outcome."""
    seen: list[object] = []
    for _ in range(steps):
        try:
            prompt = await engine.current(actor)
        except NoActiveSession:
            prompt = await engine.start(actor)
        move = rng.random()
        if move < 0.1:
            seen.append(await engine.reset(actor))
        elif move < 0.15:
            seen.append(await engine.restart(actor))
        else:
            option = right_option(quizzes, prompt) if rng.random() < 0.6 else 0
            taps = [engine.answer(actor, prompt.session_id, prompt.position, option)
                    for _ in range(2 if move < 0.4 else 1)]
            seen.extend(await asyncio.gather(*taps))
    return seen


async def test_two_engines_on_one_file_agree_with_a_serial_replay(
        tmp_path: Path, quizzes: dict[str, Quiz]) -> None:
    path = tmp_path / "shared.db"
    first = await SQLiteStore.open(path)
    second = await SQLiteStore.open(path)
    try:
        engines = [build_engine(first, quizzes, rng=random.Random(1)),
                   build_engine(second, quizzes, rng=random.Random(2))]
        actors = [Actor("telegram", str(100 + i), None, f"L{i}") for i in range(6)]
        runs = [learner_chaos(engines[(i + k) % 2], quizzes, actor, random.Random(i * 10 + k),
                              40)
                for i, actor in enumerate(actors) for k in range(2)]  # each user on both
        outcomes = [o for run in await asyncio.gather(*runs) for o in run]
        # a tap the other engine already moved past is stale there too
        me = actors[0]
        prompt = await engines[0].start(me)
        answered = await engines[1].answer(me, prompt.session_id, prompt.position, 0)
        late = await engines[0].answer(me, prompt.session_id, prompt.position, 1)
        assert isinstance(answered, AnswerResult) and isinstance(late, AnswerResult)
        assert late.duplicate and late.chosen == answered.chosen  # the first one stands
    finally:
        await first.close()
        await second.close()
    answered = [o for o in outcomes if isinstance(o, OUTCOMES)]
    assert len(answered) > 100
    assert any(isinstance(o, AnswerResult) and o.duplicate for o in answered)
    check_database(path, quizzes["parallelism"])


async def test_reset_racing_an_answer_never_fails_a_tap(engine: Engine,
                                                        quizzes: dict[str, Quiz]) -> None:
    me = Actor("telegram", "7", None, "Me")
    for _ in range(20):
        prompt = await engine.start(me)
        option = right_option(quizzes, prompt)
        _, outcome = await asyncio.gather(
            engine.reset(me), engine.answer(me, prompt.session_id, prompt.position, option))
        assert isinstance(outcome, OUTCOMES)
        # the tap after the race: on the deleted session, or counted once on the live one
        again = await engine.answer(me, prompt.session_id, prompt.position, option)
        assert isinstance(again, OUTCOMES)
        if isinstance(outcome, AnswerResult):
            assert isinstance(again, StaleAnswer | AnswerResult)
    check_database(engine.store.path, quizzes["parallelism"])  # type: ignore[attr-defined]


WORKER = """
import asyncio, random, sys
from pathlib import Path
from bot.app.compose import build_engine
from bot.domain.errors import NoActiveSession
from bot.domain.quiz import default_content_dir, load_quizzes
from bot.domain.results import Actor, AnswerResult
from bot.store.sqlite import SQLiteStore

async def main(path, seed):
    # the quiz it plays only: the whole folder would sample the computed quiz, a second of CPU
    quizzes = load_quizzes([default_content_dir() / "parallelism.yaml"])
    store = await SQLiteStore.open(Path(path))
    engine = build_engine(store, quizzes, rng=random.Random(seed))
    rng, counted = random.Random(seed), 0
    try:
        for step in range(300):
            actor = Actor("telegram", str(rng.randrange(4)), None, "x")
            try:
                prompt = await engine.current(actor)
            except NoActiveSession:
                prompt = await engine.start(actor)
            out = await engine.answer(actor, prompt.session_id, prompt.position,
                                      rng.randrange(len(prompt.options)))
            counted += isinstance(out, AnswerResult) and not out.duplicate
    finally:
        await store.close()
    print(counted)

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


async def test_two_processes_on_one_file_count_each_answer_once(
        tmp_path: Path, quizzes: dict[str, Quiz]) -> None:
    path = tmp_path / "shared.db"
    await (await SQLiteStore.open(path)).close()  # migrate once, before the race
    procs = [await asyncio.create_subprocess_exec(
        sys.executable, "-c", WORKER, str(path), str(seed), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE) for seed in (1, 2)]
    async with asyncio.timeout(120):
        results = [await p.communicate() for p in procs]
    for proc, (_, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err.decode()[-2000:]
    counted = sum(int(out) for out, _ in results)
    db = sqlite3.connect(path)
    try:
        stored = db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    finally:
        db.close()
    assert stored == counted  # what each process was told counted is exactly what is kept
    check_database(path, quizzes["parallelism"])


async def test_version_one_database_with_sessions_is_upgraded_and_kept(
        tmp_path: Path, quizzes: dict[str, Quiz]) -> None:
    path = tmp_path / "old.db"
    version, name, sql = migrations("sqlite")[0]
    quiz = quizzes["parallelism"]
    qids = [q.id for q in quiz.questions]
    db = sqlite3.connect(path)
    db.executescript(sql)
    db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
               " applied_at REAL NOT NULL)")
    db.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, time.time()))
    db.execute("INSERT INTO users VALUES ('telegram', '5', 'Old', 'ur', 0)")
    db.execute("INSERT INTO sessions (id, platform, user_id, quiz_id, kind, status, "
               "question_ids, option_orders, position, score, started_at) VALUES "
               "(9, 'telegram', '5', 'parallelism', 'full', 'active', ?, ?, 1, 1, 0)",
               (json.dumps(qids), json.dumps([[0, 1, 2, 3]] * len(qids))))
    db.execute("INSERT INTO answers VALUES (9, 0, ?, ?, 1, 0)",
               (qids[0], quiz.questions[0].correct))
    db.commit()
    db.close()

    store = await SQLiteStore.open(path)
    try:
        engine = build_engine(store, quizzes)
        old = Actor("telegram", "5", None, "Old")
        prompt = await engine.start(old)
        assert (prompt.session_id, prompt.position, prompt.resumed, prompt.lang) == (
            9, 1, True, "ur")
        result = await engine.answer(old, 9, 1, quiz.questions[1].correct)
        assert isinstance(result, AnswerResult) and result.score == 2
        row = await store.read(sessions_sql.get_session, 9)
        assert row is not None and row.position == 2  # advanced once: no trigger left behind
    finally:
        await store.close()
    db = sqlite3.connect(path)
    try:
        versions = [r[0] for r in db.execute("SELECT version FROM schema_migrations")]
        triggers = db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall()
    finally:
        db.close()
    assert versions == [v for v, _, _ in migrations("sqlite")] and triggers == []


async def test_a_reload_serves_the_new_content(store: SQLiteStore, quizzes: dict[str, Quiz]):
    quiz = quizzes["parallelism"]
    first = quiz.questions[0]
    reworded = dataclasses.replace(first, text=dataclasses.replace(
        first.text, values=(("en", "Reworded: why split a model?"), ("ur", "نیا سوال؟"))))
    changed = {"parallelism": dataclasses.replace(quiz, questions=(reworded,
                                                                   *quiz.questions[1:]))}
    admin = Actor("telegram", "42", None, "Admin")
    engine = build_engine(store, quizzes, admins={"telegram": frozenset({"42"})},
                          reload=lambda: changed)
    before = await engine.start(Actor("telegram", "1", None, "A"))
    assert before.text == first.text.get("en")
    await engine.reload(admin)
    after = await engine.start(Actor("telegram", "2", None, "B"))
    assert after.text == "Reworded: why split a model?"
    again = await engine.current(Actor("telegram", "1", None, "A"))  # a live session too
    assert again.text == "Reworded: why split a model?"


@pytest.mark.parametrize("shown", [0, 3])
async def test_forged_option_on_the_current_question_is_stale(engine: Engine, shown: int):
    me = Actor("telegram", "8", None, "Me")
    prompt = await engine.start(me)
    out = await engine.answer(me, prompt.session_id, prompt.position, 9 if shown else -1)
    assert isinstance(out, StaleAnswer) and out.current is not None
    assert out.current.position == prompt.position
