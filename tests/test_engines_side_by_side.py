"""``nlu-tui run SUITE --engine a --engine b``: engines side by side, linked as a comparison.

Real CLI processes, two real loopback NLU servers on 127.0.0.1 (Rasa's ``/model/parse``
contract, :mod:`runner_loopback`) that answer a known set of utterances differently, and both
run store backends (an SQLite file and a throwaway PostgreSQL server, :mod:`store_backends`).
The expected figures follow from what the servers are told to answer, not from nlu-tui.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from runner_loopback import LoopbackNlu, make_suite, write_suite
from store_backends import pg_server, pg_url, store_where  # noqa: F401  (fixtures)

from nlu_tui.store import RunStore
from nlu_tui.store.comparisons import comparisons_of_run, get_comparison, list_comparisons

# ruff: noqa: F811  (a fixture imported from store_backends is an argument of the tests)

N = 24
PRICE = 0.002


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=cwd,
    )


def _comparison_id(proc: subprocess.CompletedProcess[str]) -> str:
    first = proc.stdout.splitlines()[0]
    assert first.startswith("comparison cmp-"), proc.stdout + proc.stderr
    return first.split()[1].rstrip(":")


def _profiles(folder: Path, url: str) -> None:
    (folder / "engines.yaml").write_text(
        f"engines:\n  priced:\n    type: rasa\n    url: {url}\n    price_per_request: {PRICE}\n",
        encoding="utf-8",
    )


def _setup(tmp_path: Path) -> tuple[Path, set[str], set[str]]:
    """The suite, the utterances engine B answers "pay" instead of "greet", and all."""
    suite = make_suite(N)
    path = write_suite(tmp_path / "loop.suite.yaml", N)
    greets = [c.utterance for c in suite.cases if c.utterance.endswith(" greet")]
    renamed = set(greets[:3])
    return path, renamed, {c.utterance for c in suite.cases}


def test_two_engines_one_table_each_run_once_gates_per_engine(
    tmp_path: Path, store_where: Path | str
) -> None:
    path, renamed, said = _setup(tmp_path)
    store = str(store_where)
    with (
        LoopbackNlu() as a,
        LoopbackNlu(rename={u: "pay" for u in renamed}, latency=0.05) as b,
    ):
        _profiles(tmp_path, b.url)
        proc = _cli(
            "--store", store, "run", str(path), "--engine", f"rasa:{a.url}",
            "--engine", "priced", "--fail-on", "any",
        )  # fmt: skip
        # each engine was sent every case once, through its own run
        assert dict(a.counts) == dict.fromkeys(said, 1)
        assert dict(b.counts) == dict.fromkeys(said, 1)
    # --fail-on judges each engine: A answers every case right, B does not (exit 1)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    fails = [line for line in proc.stderr.splitlines() if line.startswith("FAIL ")]
    assert fails and all(line.startswith("FAIL priced: ") for line in fails), proc.stderr
    cmp_id = _comparison_id(proc)
    assert "engines disagree on 3 of 24 cases" in proc.stdout

    with RunStore(store_where) as st:
        comparison = get_comparison(st, cmp_id)
        assert len(comparison.run_ids) == 2
        runs = [st.get_run(r) for r in comparison.run_ids]
        assert [r.engine_name for r in runs] == [f"rasa:{a.url}", "priced"]  # the order given
        assert all(r.done == N for r in runs)
        assert [c.id for c in comparisons_of_run(st, runs[1].id)] == [cmp_id]
        assert [c.id for c in list_comparisons(st)] == [cmp_id]
        renamed_ids = sorted(
            c.id for c, _p, _r in st.load_results(runs[0].id) if c.utterance in renamed
        )

    doc = json.loads(_cli("--store", store, "show", cmp_id, "-f", "json").stdout)
    assert doc["comparison"] == cmp_id and doc["compared_cases"] == N
    assert doc["disagreement_count"] == 3
    assert sorted(d["case_id"] for d in doc["disagreements"]) == renamed_ids
    assert all(d["answers"] == ["greet", "pay"] for d in doc["disagreements"])
    a_col, b_col = doc["engines"]
    # per-intent F1 as scikit-learn defines it: 2 tp / (true + predicted)
    g = sum(1 for u in said if u.endswith(" greet"))
    p = sum(1 for u in said if u.endswith(" pay"))
    f1 = {i["intent"]: i["f1"] for i in doc["intents"]}
    assert f1["greet"] == {a_col["label"]: 1.0, "priced": pytest.approx(2 * (g - 3) / (2 * g - 3))}
    assert f1["pay"] == {a_col["label"]: 1.0, "priced": pytest.approx(2 * p / (2 * p + 3))}
    assert f1["bye"] == {a_col["label"]: 1.0, "priced": 1.0}
    # latency: B answers after 50 ms; cost: B's profile has a price, A's engine none
    assert b_col["latency_p50"] >= 50.0 and b_col["latency_p95"] >= b_col["latency_p50"]
    assert a_col["latency_p50"] < b_col["latency_p50"]
    assert a_col["cost"] is None and b_col["cost"] == pytest.approx(PRICE * N)
    assert b_col["requests"] == N and b_col["cached"] == 0

    text = _cli("--store", store, "show", cmp_id)
    assert text.returncode == 0 and text.stdout.startswith(f"comparison {cmp_id}: loop on 2")
    assert "  [2] priced" in text.stdout and f"{PRICE * N:.4f}" in text.stdout
    cost_line = next(line for line in text.stdout.splitlines() if line.startswith("cost"))
    assert cost_line.split()[1] == "-"
    rows = list(csv.reader(io.StringIO(_cli("--store", store, "show", cmp_id, "-f", "csv").stdout)))
    assert rows[0][:4] == ["section", "name", "utterance", "expected"]
    assert sorted(r[1] for r in rows if r[0] == "disagreement") == renamed_ids
    assert ["intent_f1", "bye", "", "", "1.0000", "1.0000"] in rows
    out = tmp_path / "cmp.html"
    wrote = _cli("--store", store, "show", cmp_id, "-f", "html", "-o", str(out))
    assert wrote.returncode == 0, wrote.stderr
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and all(i in page for i in renamed_ids)


def test_bad_input_is_one_line_exit_2_and_nothing_is_run_or_stored(tmp_path: Path) -> None:
    path, _renamed, _said = _setup(tmp_path)
    store = tmp_path / "runs.sqlite3"
    with LoopbackNlu() as a, LoopbackNlu() as b:
        ea, eb = f"rasa:{a.url}", f"rasa:{b.url}"
        cases = [
            (["--engine", ea, "--engine", ea], "given twice"),
            (["--engine", ea, "--engine", eb, "--resume", "abc"], "--resume"),
            (["--engine", ea, "--engine", eb, "--repeat", "2"], "--repeat"),
            (["--engine", ea, "--engine", eb, "--shard", "1/2", "--run-id", "x"], "--shard"),
            (["--engine", ea, "--engine", eb, "--json", str(tmp_path / "r.json")], "--json"),
            (["--engine", ea, "--engine", "nosuchprofile"], "nosuchprofile"),
            (["--engine", ea, "--engine", eb, "--fail-on", "f1<x"], "--fail-on"),
        ]
        for extra, said in cases:
            proc = _cli("--store", str(store), "run", str(path), *extra)
            assert proc.returncode == 2, (extra, proc.stdout, proc.stderr)
            lines = proc.stderr.strip().splitlines()
            assert len(lines) == 1 and said in lines[0], (extra, proc.stderr)
        rerun = _cli("--store", str(store), "run", "--rerun-failed", "r1", "-e", ea, "-e", eb)
        assert rerun.returncode == 2 and "--rerun-failed" in rerun.stderr
        assert not a.counts and not b.counts  # nothing was sent
    if store.exists():  # nothing stored: no run, no comparison
        conn = sqlite3.connect(store)
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM comparisons").fetchone()[0] == 0
    for args in (["cmp-nosuch"], ["cmp-nosuch", "-f", "json"]):
        shown = _cli("--store", str(store), "show", *args)
        assert shown.returncode == 2 and "no comparison" in shown.stderr


def test_show_refuses_a_run_format_for_a_comparison_and_a_deleted_run_is_named(
    tmp_path: Path,
) -> None:
    path, renamed, _said = _setup(tmp_path)
    with LoopbackNlu() as a, LoopbackNlu(rename={u: "pay" for u in renamed}) as b:
        proc = _cli("run", str(path), "-e", f"rasa:{a.url}", "-e", f"rasa:{b.url}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cmp_id = _comparison_id(proc)
    junit = _cli("show", cmp_id, "-f", "junit")
    assert junit.returncode == 2 and "-f junit is for one run" in junit.stderr
    with RunStore() as st:
        first, second = get_comparison(st, cmp_id).run_ids
    assert _cli("delete", second).returncode == 0
    doc = json.loads(_cli("show", cmp_id, "-f", "json").stdout)
    assert doc["missing_runs"] == [second] and [e["run_id"] for e in doc["engines"]] == [first]
    assert doc["disagreement_count"] == 0


def test_store_copy_carries_comparisons_sqlite_to_postgresql(tmp_path: Path, pg_url: str) -> None:
    path, renamed, _said = _setup(tmp_path)
    sqlite_store = str(tmp_path / "runs.sqlite3")
    with LoopbackNlu() as a, LoopbackNlu(rename={u: "pay" for u in renamed}) as b:
        proc = _cli(
            "--store", sqlite_store, "run", str(path), "-e", f"rasa:{a.url}", "-e", f"rasa:{b.url}"
        )  # fmt: skip
    cmp_id = _comparison_id(proc)
    copied = _cli("store", "copy", sqlite_store, pg_url)
    assert copied.returncode == 0 and "1 comparison(s)" in copied.stdout, copied.stderr
    before = _cli("--store", sqlite_store, "show", cmp_id, "-f", "json").stdout
    after = _cli("--store", pg_url, "show", cmp_id, "-f", "json").stdout
    assert json.loads(before)["disagreement_count"] == 3
    assert after == before
    again = _cli("store", "copy", sqlite_store, pg_url)  # nothing twice
    assert again.returncode == 0 and "comparison(s)" not in again.stdout


def test_a_schema_4_store_gains_the_comparison_tables_and_keeps_its_runs(
    store_where: Path | str,
) -> None:
    """Migration 5 on both backends: a store written before comparisons existed."""
    from nlu_tui.store.comparisons import add_run, create_comparison
    from nlu_tui.store.schema import SCHEMA_VERSION

    assert SCHEMA_VERSION >= 5
    with RunStore(store_where) as st:
        run = st.create_run(make_suite(3), engine_name="e")
        with st._tx() as db:  # back to what nlu-tui wrote at schema 4
            db.execute("DROP TABLE comparison_runs")
            db.execute("DROP TABLE comparisons")
            db.execute("DROP TABLE store_changes")  # and what schema 6 added (who ran what)
            db.execute("ALTER TABLE runs DROP COLUMN started_by")
            db.execute("ALTER TABLE runs DROP COLUMN started_on")
            if st.backend == "sqlite":
                db.execute("PRAGMA user_version = 4")
            else:
                db.execute("UPDATE nlu_tui_schema SET version = 4")
        assert st.schema_version() == 4
    with RunStore(store_where) as st:
        assert st.schema_version() == SCHEMA_VERSION
        assert st.get_run(run.id).total == 3
        comparison = create_comparison(st, "loop", None)
        add_run(st, comparison.id, run.id)
        add_run(st, comparison.id, run.id)  # once only
        assert get_comparison(st, comparison.id[:8]).run_ids == [run.id]


def test_answers_from_the_cache_cost_nothing_and_have_no_latency(tmp_path: Path) -> None:
    path, renamed, said = _setup(tmp_path)
    with LoopbackNlu() as a, LoopbackNlu(rename={u: "pay" for u in renamed}) as b:
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  cached:\n    type: rasa\n    url: {b.url}\n    cache: true\n"
            f"    price_per_request: {PRICE}\n",
            encoding="utf-8",
        )
        first = _cli("run", str(path), "-e", f"rasa:{a.url}", "-e", "cached")
        second = _cli("run", str(path), "-e", f"rasa:{a.url}", "-e", "cached")
        assert dict(b.counts) == dict.fromkeys(said, 1)  # the second comparison sent nothing
    docs = [
        json.loads(_cli("show", _comparison_id(p), "-f", "json").stdout) for p in (first, second)
    ]
    paid, cached = (doc["engines"][1] for doc in docs)
    assert paid["cost"] == pytest.approx(PRICE * N) and paid["requests"] == N
    assert cached["cost"] == 0.0 and cached["requests"] == 0 and cached["cached"] == N
    assert cached["latency_p50"] is None and cached["latency_p95"] is None
    assert docs[1]["disagreement_count"] == docs[0]["disagreement_count"] == 3
