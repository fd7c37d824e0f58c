"""A throwaway PostgreSQL for tests and benchmarks: initdb in a temp dir, loopback port.

`QUIZBOT_TEST_POSTGRES_URL` (a superuser URL, e.g. the server `.ci/run` starts) wins;
otherwise the server binaries under /usr/lib/postgresql/*/bin (or on PATH) are used. The
server refuses to run as root, so as root it runs as an unprivileged user through
`runuser`. `python -m tests.pgserver` starts one and prints its URL until stdin closes.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

URL_ENV = "QUIZBOT_TEST_POSTGRES_URL"
USER, PASSWORD = "quizbot", "pg-Pa55word-test"
RUN_AS = ("quizbot-ci", "nobody")


def server_bin() -> Path | None:
    """The folder holding `postgres` and `initdb`, newest version first, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("postgres")
    return Path(on_path).parent if on_path and shutil.which("initdb") else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_user() -> tuple[list[str], int | None, int | None]:
    """The command prefix (and uid/gid for chown) to run the server unprivileged."""
    if os.geteuid() != 0:
        return [], None, None
    for name in RUN_AS:
        with contextlib.suppress(KeyError):
            entry = pwd.getpwnam(name)
            return ["runuser", "-u", name, "--"], entry.pw_uid, entry.pw_gid
    raise RuntimeError("running as root and no unprivileged user to run PostgreSQL as")


@contextlib.contextmanager
def throwaway_server(*, fsync: bool = True) -> Iterator[str]:
    """Start a PostgreSQL on 127.0.0.1; yield its superuser URL; stop and delete it."""
    bindir = server_bin()
    if bindir is None:
        raise RuntimeError("no PostgreSQL server binaries found")
    prefix, uid, gid = _as_user()
    root = Path(tempfile.mkdtemp(prefix="quizbot-pg-"))
    data, pwfile = root / "data", root / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if uid is not None:
        os.chown(root, uid, gid or 0)
        os.chown(pwfile, uid, gid or 0)
    port = _free_port()
    proc = None
    try:
        subprocess.run(
            [*prefix, str(bindir / "initdb"), "-D", str(data), "-U", USER, "-E", "UTF8",
             "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256",
             f"--pwfile={pwfile}"], check=True, capture_output=True)
        options = ["-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={root}",
                   "-c", "max_connections=200", "-c", "shared_buffers=64MB"]
        if not fsync:  # tests only: faster, and a crash of the test server loses nothing
            options += ["-c", "fsync=off", "-c", "synchronous_commit=off",
                        "-c", "full_page_writes=off"]
        with (root / "server.log").open("wb") as log:  # the child keeps its own copy
            proc = subprocess.Popen([*prefix, str(bindir / "postgres"), "-D", str(data),
                                     "-p", str(port), *options], stdout=log,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        _wait_ready(bindir, port, proc, root / "server.log")
        yield f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{port}/postgres"
    finally:
        if proc is not None:
            proc.terminate()  # SIGTERM: smart shutdown; the clients are gone by now
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(root, ignore_errors=True)


def _wait_ready(bindir: Path, port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"postgres exited at start: {log.read_text()[-2000:]}")
        ready = subprocess.run([str(bindir / "pg_isready"), "-h", "127.0.0.1", "-p", str(port)],
                               capture_output=True)
        if ready.returncode == 0:
            return
        time.sleep(0.05)  # polling a process we do not control; bounded by the deadline
    raise RuntimeError(f"postgres did not get ready in 30 s: {log.read_text()[-2000:]}")


def database_url(server_url: str, name: str) -> str:
    """The URL of database `name` on the server of `server_url`."""
    return server_url.rsplit("/", 1)[0] + "/" + name


async def create_database(server_url: str, prefix: str = "t", template: str | None = None
                          ) -> str:
    """A new database on the server (empty, or a copy of database `template`); its URL."""
    import asyncpg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    conn = await asyncpg.connect(server_url)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"{copy}')  # identifiers: no parameters
    finally:
        await conn.close()
    return database_url(server_url, name)


async def drop_database(server_url: str, url: str) -> None:
    import asyncpg

    name = url.rsplit("/", 1)[1]
    conn = await asyncpg.connect(server_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


if __name__ == "__main__":
    with throwaway_server() as server_url:
        print(server_url, flush=True)
        sys.stdin.read()  # until the caller closes our stdin
