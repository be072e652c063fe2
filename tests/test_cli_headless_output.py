"""What ``run``, ``runs`` and ``show`` print (issue 10, item 21).

(a) a failing gate is printed once (stderr), (b) ``runs`` lists the latest 50 unless ``--all`` or
``--limit N`` and says how many it left out, from a limited, indexed query, (c) a failed run
shows F1 ``-``, not ``0.000``, (d) an unreachable engine's reason is one clean line.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from runner_loopback import LoopbackNlu, make_suite, write_suite

from nlu_tui.engines.base import ParseContext, create_engine
from nlu_tui.engines.transport_errors import EngineUnreachableError, transport_reason
from nlu_tui.model import RunStatus
from nlu_tui.runner.retry import classify
from nlu_tui.store import RunStore


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args], capture_output=True, text=True, timeout=timeout
    )


def _closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- (a) gates ----------------------------------------------------------------------------------


def test_a_failing_gate_is_printed_once_on_stderr(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", 12)
    thresholds = tmp_path / "t.yml"
    thresholds.write_text(
        "thresholds:\n"
        "  - {type: intent, threshold: 0.999, comparison: absolute}\n"
        "  - {type: intent, threshold: 0.01, comparison: absolute}\n",
        encoding="utf-8",
    )
    worse = {c.utterance: "greet" for c in make_suite(12).cases[1:12:4]}
    with LoopbackNlu(rename=worse) as server:
        ran = _cli(
            "run", str(suite), "--engine", f"rasa:{server.url}", "--thresholds", str(thresholds)
        )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    failed = [line for line in ran.stderr.splitlines() if line.startswith("FAIL ")]
    assert len(failed) == 1 and "all intents" in failed[0], ran.stderr
    assert "FAIL" not in ran.stdout, ran.stdout  # before: the same line on stdout too
    passed = [line for line in ran.stdout.splitlines() if line.startswith("PASS ")]
    assert len(passed) == 1 and "PASS" not in ran.stderr


# --- (b) runs: the latest 50 --------------------------------------------------------------------


def _store_with_runs(n: int) -> RunStore:
    store = RunStore()
    suite = make_suite(1)
    for _ in range(n):
        run = store.create_run(suite, engine_name="e")
        store.finish_run(run.id, RunStatus.SUCCESS)
    return store


def test_runs_lists_the_latest_50_and_says_how_many_there_are() -> None:
    store = _store_with_runs(57)
    newest = store.list_runs(limit=1)[0].id
    store.close()

    shown = _cli("runs")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[-1] == "showing 50 of 57 (--all for every run)"
    assert sum(1 for line in lines if line.split(" ", 1)[0] == newest) == 1
    assert len([line for line in lines if " success " in line]) == 50

    limited = _cli("runs", "--limit", "5").stdout.splitlines()
    assert limited[-1] == "showing 5 of 57 (--all for every run)"
    assert len([line for line in limited if " success " in line]) == 5

    every = _cli("runs", "--all").stdout
    assert "showing" not in every and every.count(" success ") == 57

    as_json = _cli("runs", "--json")
    assert len(json.loads(as_json.stdout)) == 50  # stdout stays one JSON document
    assert as_json.stderr.strip() == "showing 50 of 57 (--all for every run)"

    few = _cli("runs", "--limit", "100")
    assert "showing" not in few.stdout + few.stderr  # nothing left out: nothing said

    bad = _cli("runs", "--limit", "0")
    assert bad.returncode == 2 and bad.stderr.startswith("nlu-tui: error:")
    assert _cli("runs", "--all", "--limit", "3").returncode == 2


def test_listing_runs_reads_the_newest_through_an_index_and_stops() -> None:
    store = _store_with_runs(5)
    assert [r.id for r in store.list_runs(limit=2)] == [r.id for r in store.list_runs()[:2]]
    assert store.count_runs() == 5 and store.count_runs("loop") == 5
    assert store.count_runs("no such suite") == 0
    path = store.path
    store.close()
    conn = sqlite3.connect(path)
    plan = " ".join(
        str(row[-1])
        for row in conn.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM runs ORDER BY started_at DESC, rowid DESC LIMIT 50"
        )
    )
    conn.close()
    assert "runs_by_start" in plan and "TEMP B-TREE" not in plan, plan  # no sort of every run


# --- (c) and (d): a failed run on a closed port --------------------------------------------------


def test_a_failed_run_shows_no_f1_and_a_clean_unreachable_reason(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", 3)
    port = _closed_port()
    ran = _cli("run", str(suite), "--engine", f"rasa:http://127.0.0.1:{port}", "--retries", "0")
    assert ran.returncode == 3, ran.stdout + ran.stderr
    reason = f"engine unreachable: cannot connect to http://127.0.0.1:{port} (connection refused)"
    last = ran.stdout.splitlines()[-1]
    assert last.endswith(f"ERR 0, F1 - ({reason})"), last
    for noise in ("ssl:default", "Connect call failed", "Errno", "ClientConnector"):
        assert noise not in ran.stdout + ran.stderr

    runs = _cli("runs").stdout.splitlines()
    row = next(line for line in runs if " failed " in line)
    # F1 is the column before who ran it (user, host)
    assert row.split()[-3] == "-" and "0.000" not in row, row
    listed = json.loads(_cli("runs", "--json").stdout)[0]
    assert listed["f1"] is None and listed["reason"] == reason

    shown = _cli("show", listed["id"]).stdout
    assert "F1         -\n" in shown and "precision  -\n" in shown, shown
    assert "0.0000" not in shown


async def test_transport_errors_on_a_closed_port_read_as_one_clean_line() -> None:
    port = _closed_port()
    engine = create_engine("http", {"url": f"http://127.0.0.1:{port}/parse?token=s3cret"})
    with pytest.raises(httpx.TransportError) as caught:
        await engine.parse("hello", ParseContext())
    await engine.close()
    clean = f"cannot connect to http://127.0.0.1:{port} (connection refused)"
    assert str(caught.value) == clean
    assert classify(caught.value).reason == clean and classify(caught.value).retryable

    rasa = create_engine("rasa", {"url": f"http://127.0.0.1:{port}"})
    with pytest.raises(EngineUnreachableError) as unreachable:
        await rasa.open(None)
    await rasa.close()
    assert str(unreachable.value) == f"engine unreachable: {clean}"

    # The run's shared client (httpx on aiohttp, which reports refusals as ConnectTimeout).
    from nlu_tui.runner.client import make_client

    client = make_client(concurrency=2, timeout=5.0)
    try:
        with pytest.raises(httpx.TransportError) as through_aiohttp:
            await client.get(f"http://127.0.0.1:{port}/version")
    finally:
        await client.aclose()
    assert transport_reason(through_aiohttp.value) == clean
    assert classify(through_aiohttp.value).reason == clean


def test_reasons_for_other_transport_failures() -> None:
    timeout = httpx.ReadTimeout("", request=httpx.Request("GET", "http://h:5005/x?token=t"))
    assert transport_reason(timeout) == "no answer from http://h:5005 (timed out)"
    reset = httpx.ReadError("", request=httpx.Request("POST", "https://u:p@h/p"))
    reset.__cause__ = ConnectionResetError(104, "Connection reset by peer")
    assert transport_reason(reset) == (
        "connection to https://h failed (connection reset by the server)"
    )
    dns = httpx.ConnectError("", request=httpx.Request("GET", "http://nlu.invalid:7/p"))
    dns.__cause__ = socket.gaierror(-2, "Name or service not known")
    assert transport_reason(dns) == "cannot connect to http://nlu.invalid:7 (host not found)"
