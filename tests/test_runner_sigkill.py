"""``kill -9`` mid-run: the run shows as interrupted with its results, and resumes to the end
without sending a stored case again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_loopback import LoopbackNlu, write_suite

# ruff: noqa: F811
from store_backends import pg_server, pg_url, store_where  # noqa: F401  (fixtures)

from nlu_tui.store import RunStore

N = 150


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.slow
def test_sigkill_then_interrupted_then_resume(
    tmp_path: Path, store_where: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the default SQLite file, and on PostgreSQL through ``NLU_TUI_STORE_URL``."""
    suite = write_suite(tmp_path / "loop.suite.yaml", N)
    store_path: Path | str = Path(os.environ["NLU_TUI_DATA_DIR"]) / "runs.sqlite3"
    if isinstance(store_where, str):
        monkeypatch.setenv("NLU_TUI_STORE_URL", store_where)
        store_path = store_where
    with LoopbackNlu(latency=0.05) as server:
        engine = f"rasa:{server.url}"
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "nlu_tui",
                "run",
                str(suite),
                "--engine",
                engine,
                "--concurrency",
                "4",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        done = 0
        while time.monotonic() < deadline and done < 30:
            time.sleep(0.05)
            if isinstance(store_path, str) or store_path.exists():
                runs = RunStore(store_path).list_runs()
                done = runs[0].done if runs else 0
        assert done >= 30, child.stderr.read() if child.stderr else ""
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        assert child.returncode == -signal.SIGKILL
        time.sleep(0.3)  # let requests the child left in flight reach the server
        sent_before = dict(server.counts)

        listed = _cli("runs", "--json")
        assert listed.returncode == 0, listed.stderr
        (run,) = json.loads(listed.stdout)
        assert run["status"] == "interrupted" and 30 <= run["done"] < N
        shown = _cli("show", run["id"], "--format", "json")
        report = json.loads(shown.stdout)
        assert report["run"]["status"] == "interrupted"
        kept_ids = RunStore(store_path).done_case_ids(run["id"])
        assert len(report["results"]) == len(kept_ids) == run["done"]

        resumed = _cli("run", "--resume", run["id"][:6])
        assert resumed.returncode == 0, resumed.stderr + resumed.stdout
    store = RunStore(store_path)
    final = store.get_run(run["id"])
    assert final.status.value == "success" and final.done == N
    rows = store.load_results(run["id"])
    assert sorted(c.id for c, _p, _r in rows) == sorted(c.id for c in store.load_cases(run["id"]))
    resent = 0
    for case, _p, _r in rows:
        count = server.counts[case.utterance]
        if case.id in kept_ids:
            assert count == 1, f"{case.id} was stored before the kill but sent {count} times"
        else:
            # not stored at the kill: sent once by the resume, plus once if it was in flight
            assert count - sent_before.get(case.utterance, 0) == 1
            resent += count - 1
    assert resent <= 12  # at most the in-flight requests and the ~100 ms commit window
