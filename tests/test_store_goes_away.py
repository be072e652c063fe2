"""A PostgreSQL run store that goes away mid-run (a TCP proxy in front of a real server cuts
every connection): the results not yet written are kept in memory and their write retried;
the run goes on when the store is back, or ends ``interrupted`` with the resume command after
``--store-retry`` seconds, and ``--resume`` completes it. Every result is stored once, and the
counters equal a clean run's."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from typing import Any

import psycopg
from child_runs import start_cli
from runner_loopback import LoopbackNlu, write_suite
from store_backends import pg_server, pg_url  # noqa: F401  (fixtures)
from tcp_cut_proxy import TcpCutProxy

# ruff: noqa: F811  (a fixture imported from store_backends is an argument of the tests)

N = 240


def _via(url: str, port: int) -> str:
    """The same database, reached through the proxy's port."""
    return re.sub(r"@127\.0\.0\.1:\d+/", f"@127.0.0.1:{port}/", url)


def _stored(url: str) -> tuple[int, int]:
    """(results rows, distinct case ids) in the store, read directly (not through the proxy)."""
    with psycopg.connect(url) as conn:
        try:
            row = conn.execute("SELECT count(*), count(DISTINCT case_id) FROM results").fetchone()
        except psycopg.errors.UndefinedTable:
            return 0, 0
    assert row is not None
    return int(row[0]), int(row[1])


def _counters(url: str, run_id: str) -> dict[str, Any]:
    with psycopg.connect(url) as conn:
        run = conn.execute(
            "SELECT done, tp, tn, fp, fn, errors, status FROM runs WHERE id = %s", (run_id,)
        ).fetchone()
        table = dict(
            conn.execute(
                "SELECT result, count(*) FROM results WHERE run_id = %s GROUP BY result",
                (run_id,),
            ).fetchall()
        )
    assert run is not None
    done, tp, tn, fp, fn, errors, status = run
    assert done == sum(table.values())  # the counters are the table's, never counted twice
    assert (tp, tn, fp, fn, errors) == tuple(
        table.get(k, 0) for k in ("TP", "TN", "FP", "FN", "ERROR")
    )
    return {"done": done, "tp": tp, "tn": tn, "fp": fp, "fn": fn, "errors": errors, "st": status}


def _wait_for_results(url: str, at_least: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while _stored(url)[0] < at_least:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no results reached the store"
        time.sleep(0.05)


def _run_id(url: str) -> str:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT id FROM runs ORDER BY started_at DESC LIMIT 1").fetchone()
    assert row is not None
    return str(row[0])


def test_a_store_that_comes_back_loses_nothing(pg_url: str, tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", N)
    with LoopbackNlu(latency=0.02) as engine, TcpCutProxy(_pg_address(pg_url)) as proxy:
        store = _via(pg_url, proxy.port)
        proc = start_cli("--store", store, "run", str(suite), "-e", f"rasa:{engine.url}",
                    "--concurrency", "4")  # fmt: skip
        _wait_for_results(pg_url, 20, proc)
        proxy.cut()  # the server is gone: writes fail, reconnecting fails
        time.sleep(2.0)
        during = _stored(pg_url)[0]
        proxy.restore()
        _out, err = proc.communicate(timeout=180)
    assert proc.returncode in (0, 1), err
    assert during < N, "the store was cut while cases were still running"
    assert _stored(pg_url) == (N, N)  # every result, each once
    counters = _counters(pg_url, _run_id(pg_url))
    assert counters["done"] == N and counters["st"] in ("success", "success_with_warning")
    assert "interrupted" not in err
    # the engine answered each case once: nothing was sent again
    assert sum(engine.counts.values()) == N


def test_a_store_that_stays_away_interrupts_and_resume_stores_each_result_once(
    pg_url: str, tmp_path: Path
) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", N)
    with LoopbackNlu(latency=0.02) as engine, TcpCutProxy(_pg_address(pg_url)) as proxy:
        store = _via(pg_url, proxy.port)
        proc = start_cli("--store", store, "run", str(suite), "-e", f"rasa:{engine.url}",
                    "--concurrency", "4", "--store-retry", "2")  # fmt: skip
        _wait_for_results(pg_url, 20, proc)
        proxy.cut()
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 3, (out, err)
        run_id = _run_id(pg_url)
        assert f"run {run_id} interrupted: lost the run store" in err
        assert f"resume with: nlu-tui run --resume {run_id}" in err
        stored, distinct = _stored(pg_url)
        assert stored == distinct and 20 <= stored < N
        proxy.restore()
        resumed = start_cli("--store", store, "run", "--resume", run_id)
        out, err = resumed.communicate(timeout=180)
        assert resumed.returncode in (0, 1), err
        # the whole suite again, in one clean run, for the figures to compare with
        clean = start_cli("--store", store, "run", str(suite), "-e", f"rasa:{engine.url}")
        _clean_out, clean_err = clean.communicate(timeout=180)
        assert clean.returncode in (0, 1), clean_err
    with psycopg.connect(pg_url) as conn:
        per_run = dict(
            conn.execute(
                "SELECT run_id, count(*) FROM results GROUP BY run_id HAVING count(*) > 0"
            ).fetchall()
        )
        dupes = conn.execute(
            "SELECT count(*) FROM (SELECT run_id, case_id FROM results"
            " GROUP BY run_id, case_id HAVING count(*) > 1) d"
        ).fetchone()
    assert per_run[run_id] == N and dupes == (0,)
    interrupted = _counters(pg_url, run_id)
    clean_id = next(i for i in per_run if i != run_id)
    again = _counters(pg_url, clean_id)
    assert interrupted["st"] == again["st"]
    assert {k: v for k, v in interrupted.items() if k != "st"} == {
        k: v for k, v in again.items() if k != "st"
    }


def _pg_address(url: str) -> tuple[str, int]:
    match = re.search(r"@(127\.0\.0\.1):(\d+)/", url)
    assert match is not None
    return match.group(1), int(match.group(2))
