"""Sharded runs: separate ``nlu-tui run --shard I/N`` processes write one run in one shared
PostgreSQL store, against one loopback engine; a shard killed with SIGKILL is resumed by
another process; the last shard (or ``--finish``) ends the run once."""

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
from store_backends import pg_server, pg_url  # noqa: F401  (fixtures)

from nlu_tui.runner.shards import parse_shard, shard_of
from nlu_tui.store import RunStore

# ruff: noqa: F811  (a fixture imported from store_backends is an argument of the tests)

N = 300
LATENCY_KEYS = ("latency_p50_ms", "latency_p90_ms", "latency_p99_ms")


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "nlu_tui", *args]


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _cmd(*args), capture_output=True, text=True, timeout=180, env={**os.environ, **(env or {})}
    )


def _summary(store: str, run_id: str) -> dict[str, object]:
    shown = _cli("--store", store, "show", run_id, "-f", "json")
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    summary = {k: v for k, v in report["summary"].items() if k not in LATENCY_KEYS}
    results = sorted(
        (r["id"] if "id" in r else json.dumps(r, sort_keys=True)) for r in report["results"]
    )
    return {"summary": summary, "intent_report": report["intent_report"], "n": len(results)}


def test_every_case_belongs_to_exactly_one_shard() -> None:
    ids = [f"case-{i}" for i in range(3000)]
    for count in (1, 2, 3, 7):
        owners = [shard_of(i, count) for i in ids]
        assert set(owners) == set(range(1, count + 1))
        assert all(sum(parse_shard(f"{k}/{count}").owns(i) for k in range(1, count + 1)) == 1
                   for i in ids[:200])  # fmt: skip
    assert shard_of("case-1", 3) == shard_of("case-1", 3)  # stable: SHA-256, not hash()


@pytest.mark.parametrize("spec", ["3/2", "0/0", "0/2", "1/0", "2", "a/b"])
def test_bad_shard_specs_exit_2_before_anything(spec: str, tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", 5)
    done = _cli("run", str(suite), "--engine", "rasa:http://127.0.0.1:9", "--shard", spec,
                "--run-id", "r1")  # fmt: skip
    assert done.returncode == 2 and "--shard" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (Path(os.environ["NLU_TUI_DATA_DIR"]) / "runs.sqlite3").exists()


@pytest.mark.slow
def test_three_shard_processes_write_one_run_each_case_once(pg_url: str, tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", N)
    plain = f"sqlite:///{tmp_path / 'plain.sqlite3'}"
    with LoopbackNlu(latency=0.002) as server:
        engine = f"rasa:{server.url}"
        shards = [
            subprocess.Popen(
                _cmd(
                    "--store",
                    pg_url,
                    "run",
                    str(suite),
                    "--engine",
                    engine,
                    "--shard",
                    f"{i}/3",
                    "--run-id",
                    "nightly-1",
                    "--json",
                    str(tmp_path / f"shard{i}.json"),
                ),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in (1, 2, 3)
        ]
        outs = [p.communicate(timeout=180) for p in shards]
        assert [p.returncode for p in shards] == [0, 0, 0], outs
        sent = dict(server.counts)
        unsharded = _cli("--store", plain, "run", str(suite), "--engine", engine)
        assert unsharded.returncode == 0, unsharded.stderr
    assert len(sent) == N and set(sent.values()) == {1}  # every case sent once, by one shard
    store = RunStore(pg_url)
    (run,) = store.list_runs()
    assert run.id == "nightly-1" and run.status.value == "success" and run.done == N
    rows = store._query("SELECT count(*) AS n, count(DISTINCT case_id) AS d FROM results")
    assert rows[0]["n"] == rows[0]["d"] == N
    # exactly one shard (the last) finished the run and wrote its report
    assert sum((tmp_path / f"shard{i}.json").exists() for i in (1, 2, 3)) == 1
    assert sum("done; run nightly-1 has" in out for out, _err in outs) == 2
    (plain_run,) = RunStore(plain).list_runs()
    assert _summary(pg_url, "nightly-1") == _summary(plain, plain_run.id)


@pytest.mark.slow
def test_a_killed_shard_is_resumed_by_another_process(pg_url: str, tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", N)
    with LoopbackNlu(latency=0.05) as server:
        engine = f"rasa:{server.url}"
        base = ["--store", pg_url, "run", str(suite), "--engine", engine, "--run-id", "r-kill"]
        victim = subprocess.Popen(_cmd(*base, "--shard", "1/2", "--concurrency", "2"),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        store = RunStore(pg_url)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            run = store.find_run("r-kill")
            if run is not None and run.done >= 20:
                break
            time.sleep(0.05)
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
        time.sleep(0.3)
        kept = store.done_case_ids("r-kill")
        assert 20 <= len(kept) < N
        other = _cli(*base, "--shard", "2/2")
        assert other.returncode == 0 and "done; run r-kill has" in other.stdout, other.stderr
        early = _cli("--store", pg_url, "run", "--finish", "r-kill")
        assert early.returncode == 2 and "not in yet" in early.stderr
        resumed = _cli("--store", pg_url, "run", "--resume", "r-kill", "--shard", "1/2")
        assert resumed.returncode == 0, resumed.stderr + resumed.stdout
        counts = dict(server.counts)
    final = store.get_run("r-kill")
    assert final.status.value == "success" and final.done == N
    rows = store._query("SELECT count(*) AS n, count(DISTINCT case_id) AS d FROM results")
    assert rows[0]["n"] == rows[0]["d"] == N
    by_text = {c.utterance: c.id for c in store.load_cases("r-kill")}
    for text, count in counts.items():
        if by_text[text] in kept:
            assert count == 1  # stored before the kill: never sent again
    assert _cli("--store", pg_url, "run", "--finish", "r-kill").returncode == 0


def test_a_shard_whose_run_another_shard_ended_writes_no_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last shards end at once: each sees every case in, one claims the run's end (and
    writes its reports); the other says its part is done. CI once saw both write the report."""
    from nlu_tui.cli.main import run as cli
    from nlu_tui.store_location import ENV_VAR

    suite = write_suite(tmp_path / "s.suite.yaml", 40)
    store_url = f"sqlite:///{tmp_path / 'runs.sqlite3'}"
    # --store sets the variable for the process (its children too): undone after this test
    monkeypatch.setenv(ENV_VAR, store_url)
    with LoopbackNlu() as server:
        base = ["--store", store_url, "run", str(suite), "--engine", f"rasa:{server.url}"]
        assert (
            cli([*base, "--shard", "1/2", "--run-id", "r", "--json", str(tmp_path / "1.json")]) == 0
        )
        claim = RunStore.claim_finish

        def lost(self: RunStore, run_id: str, status: object, reason: str | None) -> bool:
            claim(self, run_id, status, reason)  # type: ignore[arg-type]  # the other shard's
            return False  # ...claim came first

        monkeypatch.setattr(RunStore, "claim_finish", lost)
        assert (
            cli([*base, "--shard", "2/2", "--run-id", "r", "--json", str(tmp_path / "2.json")]) == 0
        )
    out = capsys.readouterr().out
    assert out.count("done; run r has") == 2  # both shards say their part is done
    assert not (tmp_path / "1.json").exists() and not (tmp_path / "2.json").exists()
    (run,) = RunStore(store_url).list_runs()
    assert run.status.value == "success" and run.done == 40
