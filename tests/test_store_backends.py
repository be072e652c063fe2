"""What the PostgreSQL run store adds to the SQLite one: concurrent writer processes, bad store
URLs and credentials, a schema from a newer nlu-tui, and passwords never shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psycopg
import pytest
from postgres_peer import PASSWORD
from runner_loopback import write_suite
from store_backends import pg_server, pg_url, store_where  # noqa: F401  (fixtures)

# ruff: noqa: F811  (a fixture imported from store_backends is an argument of the tests)
from nlu_tui.model import RunStatus, Suite, TestCase
from nlu_tui.store import RunStore
from nlu_tui.store.schema import SCHEMA_VERSION
from nlu_tui.store_location import StoreUrlError, parse, redact

REPO = Path(__file__).resolve().parent.parent
N = 400


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


WRITER = textwrap.dedent(
    """
    import sys
    from nlu_tui.model import CaseResult, Prediction, ResultType
    from nlu_tui.store import RunStore

    where, run_id, first, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    store = RunStore(where, detect_interrupted=False)
    kinds = [ResultType.TP, ResultType.FN, ResultType.FP, ResultType.ERROR]
    batch = []
    for seq in range(first, last):
        kind = kinds[seq % 4]
        batch.append((seq, Prediction(intent="a"), CaseResult(f"c{seq}", kind, "a", 0.9)))
        if len(batch) == 5:
            store.add_results(run_id, batch)
            batch = []
    store.add_results(run_id, batch)
    """
)


def test_concurrent_writer_processes_store_every_result_once(store_where: Path | str) -> None:
    """Three processes write overlapping parts of one run at the same time (a resumed run
    racing the one it resumes): each result once, the counters equal to the table."""
    store = RunStore(store_where)
    suite = Suite(name="s", path=None, cases=[TestCase("u", id=f"c{i}") for i in range(N)])
    run = store.create_run(suite, engine_name="e")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(store_where), run.id, str(a), str(b)], env=env
        )
        for a, b in ((0, N * 3 // 4), (N // 4, N), (0, N))
    ]
    assert [w.wait(120) for w in writers] == [0, 0, 0]
    rows = store._query(
        "SELECT case_id, count(*) AS n FROM results WHERE run_id=? GROUP BY case_id", (run.id,)
    )
    assert len(rows) == N and {r["n"] for r in rows} == {1}
    stored = store.get_run(run.id)
    assert stored.done == N
    assert (stored.tp, stored.fn, stored.fp, stored.errors) == (N // 4,) * 4
    assert store.done_case_ids(run.id) == {f"c{i}" for i in range(N)}


def test_a_store_from_a_newer_nlu_tui_is_refused_before_a_run(
    store_where: Path | str, tmp_path: Path
) -> None:
    RunStore(store_where).close()
    if isinstance(store_where, Path):
        import sqlite3

        with sqlite3.connect(store_where) as conn:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    else:
        with psycopg.connect(store_where, autocommit=True) as conn:
            conn.execute("UPDATE nlu_tui_schema SET version = %s", (SCHEMA_VERSION + 1,))
    suite = write_suite(tmp_path / "s.suite.yaml", 3)
    done = _cli(
        "--store", str(store_where), "run", str(suite), "--engine", "rasa:http://127.0.0.1:9"
    )
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "written by a newer nlu-tui" in line and PASSWORD not in line


def test_refused_credentials_and_wrong_urls_are_one_line_without_the_password(
    pg_url: str,
) -> None:
    wrong = pg_url.replace(PASSWORD, "not-the-pw-0000")
    for url in (wrong, pg_url.replace("postgresql://", "mysql://"), pg_url + "x:y"):
        done = _cli("runs", env={"NLU_TUI_STORE_URL": url})
        assert done.returncode == 2, (url, done.stderr)
        (line,) = done.stderr.strip().splitlines()
        assert line.startswith("nlu-tui: error: ")
        assert "not-the-pw-0000" not in line and PASSWORD not in line
    refused = _cli("--store", wrong, "runs")
    assert "password authentication failed" in refused.stderr
    assert "postgres:***@" in refused.stderr and "not-the-pw-0000" not in refused.stderr
    assert _cli("--store", pg_url, "runs", "--json").returncode == 0


def test_the_password_is_never_kept_in_settings_or_shown(tmp_path: Path) -> None:
    assert redact("postgresql://u:s3cret@h:5/db") == "postgresql://u:***@h:5/db"
    assert redact("postgresql://h/db?password=s3cret&x=1") == "postgresql://h/db?password=***&x=1"
    assert parse("postgresql://u:s3cret@h/db").label == "postgresql://u:***@h/db"
    config = Path(os.environ["NLU_TUI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.yaml").write_text("store: postgresql://u:s3cret@127.0.0.1:9/db\n")
    done = _cli("runs")
    assert done.returncode == 2 and "holds a password" in done.stderr
    assert "s3cret" not in done.stderr
    with pytest.raises(StoreUrlError, match="sqlite:///"):
        parse("sqlite://relative")


def test_settings_name_the_store_and_the_cli_overrides_them(pg_url: str, tmp_path: Path) -> None:
    no_password = pg_url.replace(f":{PASSWORD}@", "@")
    config = Path(os.environ["NLU_TUI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.yaml").write_text(f"store: {no_password}\n")
    info = _cli("store", "info", env={"PGPASSWORD": PASSWORD})
    assert info.returncode == 0, info.stderr
    assert "backend: postgresql" in info.stdout and f"schema:  {SCHEMA_VERSION}" in info.stdout
    local = tmp_path / "local.sqlite3"
    info = _cli("--store", f"sqlite:///{local}", "store", "info")
    assert info.returncode == 0 and "backend: sqlite" in info.stdout and local.is_file()


def test_a_finished_run_reads_the_same_from_both_backends(pg_url: str, tmp_path: Path) -> None:
    """Floats keep 8 bytes on PostgreSQL (its REAL has 4): times and latencies are exact."""
    store = RunStore(pg_url)
    suite = Suite(name="s", path=None, cases=[TestCase("u", id="c0")])
    run = store.create_run(suite, engine_name="e", note="ünïcode ✓")
    finished = store.finish_run(run.id, RunStatus.SUCCESS)
    assert finished.started_at == run.started_at and isinstance(finished.started_at, float)
    assert abs(finished.finished_at - finished.started_at) < 5  # type: ignore[operator]
    assert json.loads(json.dumps(finished.to_json()))["note"] == "ünïcode ✓"


def test_store_copy_round_trips_byte_equal(pg_url: str, tmp_path: Path) -> None:
    """SQLite -> PostgreSQL -> SQLite: ``show -f json`` prints the same bytes from each, the
    runs list the same, and copying again adds nothing."""
    from runner_loopback import LoopbackNlu

    first, back = tmp_path / "first.sqlite3", tmp_path / "back.sqlite3"
    suite = write_suite(tmp_path / "s.suite.yaml", 25)
    with LoopbackNlu() as server:
        for note in ("baseline", "second"):
            done = _cli("--store", str(first), "run", str(suite), "--engine",
                        f"rasa:{server.url}", "--note", note)  # fmt: skip
            assert done.returncode in (0, 1), done.stderr
    copied = _cli("store", "copy", str(first), pg_url)
    assert copied.returncode == 0, copied.stderr
    assert copied.stdout.startswith("copied 2 run(s)") and PASSWORD not in copied.stdout
    again = _cli("store", "copy", f"sqlite:///{first}", pg_url)
    assert again.stdout.startswith("copied 0 run(s)") and "2 already there" in again.stdout
    assert _cli("store", "copy", pg_url, str(back)).returncode == 0
    runs = [
        json.loads(_cli("--store", s, "runs", "--json").stdout)
        for s in (str(first), pg_url, str(back))
    ]
    assert runs[0] == runs[1] == runs[2] and len(runs[0]) == 2
    for run in runs[0]:
        shown = [
            _cli("--store", s, "show", run["id"], "-f", "json").stdout
            for s in (str(first), pg_url, str(back))
        ]
        assert shown[0] and shown[0] == shown[1] == shown[2]
    missing = _cli("store", "copy", str(tmp_path / "nope.sqlite3"), pg_url)
    assert missing.returncode == 2 and "no such run store file" in missing.stderr


def test_a_recount_never_misses_a_writer_that_commits_meanwhile(store_where: Path | str) -> None:
    """A batch that finds a case stored already recounts the run's counters from the table.
    While another writer's transaction is open (its row added, the counter moved, not yet
    committed), that recount must wait for it, not count without it: on PostgreSQL a
    statement's snapshot predates the row lock it waits for, so the store's lock is what
    keeps the counter right."""
    import threading

    from nlu_tui.model import CaseResult, Prediction, ResultType

    first, second = RunStore(store_where), RunStore(store_where, detect_interrupted=False)
    suite = Suite(name="s", path=None, cases=[TestCase("u", id=f"c{i}") for i in range(3)])
    run = first.create_run(suite, engine_name="e")

    def rows(*seqs: int) -> list[tuple[str, str, int, str, float | None, str, str]]:
        made = [
            (s, Prediction(intent="a"), CaseResult(f"c{s}", ResultType.TP, "a", 0.9)) for s in seqs
        ]
        return first.result_rows(run.id, made)

    first.insert_result_rows(run.id, rows(0))
    racer = threading.Thread(target=first.insert_result_rows, args=(run.id, rows(0, 2)))
    with second._tx() as conn:  # another writer, in the middle of its transaction
        conn.execute(
            "INSERT INTO results (run_id, case_id, seq, result, latency_ms, prediction_json,"
            " result_json) VALUES (?,?,?,?,?,?,?)",
            rows(1)[0],
        )
        conn.execute("UPDATE runs SET done = done + 1, tp = tp + 1 WHERE id = ?", (run.id,))
        racer.start()
        time.sleep(0.5)  # the racer's batch now waits for this transaction
    racer.join(30)
    stored = first.get_run(run.id)
    assert (stored.done, stored.tp) == (3, 3)
