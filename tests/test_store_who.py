"""Who ran what: every run keeps the user and the host that started it (schema 6), on both
backends; ``runs`` lists them (and ``--json``), a store from before keeps its runs, shown ``-``."""

from __future__ import annotations

import getpass
import json
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

from runner_loopback import LoopbackNlu, write_suite
from store_backends import pg_server, pg_url, store_where  # noqa: F401  (fixtures)

# ruff: noqa: F811  (a fixture imported from store_backends is an argument of the tests)
from nlu_tui.model import Suite, TestCase
from nlu_tui.store import RunStore
from nlu_tui.store.schema import _V1, _V2, _V3, _V4, SCHEMA_VERSION


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def _cell(table: list[str], column: str) -> str:
    """The first row's cell of a left-aligned column of ``runs``' table."""
    start = table[0].index(f"  {column}  ") + 2
    return table[1][start:].split()[0]


def test_a_run_keeps_who_started_it_and_where(store_where: Path | str, tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", 6)
    store_arg = str(store_where)
    with LoopbackNlu() as server:
        done = _cli("--store", store_arg, "run", str(suite), "-e", f"rasa:{server.url}",
                    env={"LOGNAME": "tester-ana"})  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    listed = json.loads(_cli("--store", store_arg, "runs", "--json").stdout)
    assert [(r["user"], r["host"]) for r in listed] == [("tester-ana", socket.gethostname())]
    table = _cli("--store", store_arg, "runs").stdout.splitlines()
    assert _cell(table, "user") == "tester-ana"
    assert _cell(table, "host") == socket.gethostname()
    # the store API says the same, for a run this process starts
    store = RunStore(store_where)
    run = store.create_run(Suite(name="t", cases=[TestCase("hi", id="c0")]), engine_name="e")
    assert (run.started_by, run.started_on) == (getpass.getuser(), socket.gethostname())


def test_a_version_4_store_gains_the_columns_and_keeps_its_runs(tmp_path: Path) -> None:
    path = tmp_path / "v4.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(_V1 + _V2 + _V3 + _V4)
    conn.execute(
        "INSERT INTO runs (id, suite_name, suite_hash, engine_name, stage, status, total,"
        " started_at) VALUES ('old1', 's', 'h', 'e', 'development', 'success', 0, 1.0)"
    )
    conn.execute("PRAGMA user_version = 4")
    conn.commit()
    conn.close()
    store = RunStore(path)
    assert store.schema_version() == SCHEMA_VERSION == 6
    old = store.get_run("old1")
    assert (old.started_by, old.started_on) == (None, None)
    assert old.to_json()["user"] is None and old.to_json()["host"] is None
    store.close()
    table = _cli("--store", str(path), "runs").stdout.splitlines()
    assert _cell(table, "user") == _cell(table, "host") == "-"
