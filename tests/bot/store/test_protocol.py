"""The store has one door: every operation is a command run by `read` or `write`, so no
method per command (a binding, a hand-kept Protocol copy) creeps back onto the store."""

from __future__ import annotations

import inspect

import pytest

from bot.store.commands import jobs_sql, sessions_sql
from bot.store.postgres import PostgresStore
from bot.store.protocol import Store
from bot.store.sqlite import SQLiteStore

DOORS = {"read", "write", "close", "on_commit"}


def public(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


def test_the_port_is_read_write_and_close() -> None:
    assert public(Store) | set(Store.__annotations__) == DOORS


@pytest.mark.parametrize("executor", [SQLiteStore, PostgresStore])
def test_an_executor_adds_no_operation_of_its_own(executor: type) -> None:
    # opening, and what benchmarks and messages read (commits, where it is)
    assert public(executor) - DOORS <= {"open", "commits", "path", "url"}


def test_commands_are_generators_the_executors_drive() -> None:
    for command in (sessions_sql.record_answer, sessions_sql.get_session, jobs_sql.claim_due):
        assert inspect.isgeneratorfunction(command), command.__name__
