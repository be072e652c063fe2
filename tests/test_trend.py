"""``nlu-tui trend SUITE``: the figures per run and the failing/flaky cases, checked against a
recomputation from the stored runs. Real CLI processes, the real Rasa engine against a real
loopback server whose answers change between runs, the real SQLite store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from runner_loopback import LoopbackNlu, make_suite, write_suite

from nlu_tui.model import ResultType
from nlu_tui.store import RunStore
from nlu_tui.views.trend_text import sparkline


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args], capture_output=True, text=True, timeout=120
    )


def _run_id(proc: subprocess.CompletedProcess[str]) -> str:
    first = proc.stdout.splitlines()[0]
    assert first.startswith("run "), proc.stdout + proc.stderr
    return first.split()[1].rstrip(":")


def _mark(result: ResultType) -> str:
    return {"TP": "P", "TN": "P", "FP": "F", "FN": "F", "ERROR": "E"}[ResultType(result).value]


def test_trend_numbers_equal_a_recomputation_from_the_stored_runs(tmp_path: Path) -> None:
    path = write_suite(tmp_path / "loop.suite.yaml", 12)
    said = [c.utterance for c in make_suite(12).cases]
    u3, u5, u7 = said[3], said[5], said[7]
    ids: list[str] = []
    with LoopbackNlu() as server:
        engine = f"rasa:{server.url}"

        def run(*extra: str) -> None:
            done = _cli("run", *extra, "--retries", "0", "--max-error-rate", "0.9")
            assert done.returncode in (0, 1), done.stdout + done.stderr
            ids.append(_run_id(done))

        run(str(path), "-e", engine)  # A: clean
        server.rename = {u3: "other"}
        server.always = {u5: "500"}
        run(str(path), "-e", engine)  # B: u3 wrong, u5 errors
        server.rename = {u3: "other", u7: "other"}
        server.always = {}
        run(str(path), "-e", engine)  # C: u3 and u7 wrong
        server.rename = {u7: "other", said[0]: "other"}
        run(str(path), "-e", engine)  # D: u7 and c0 wrong
        server.rename = {u7: "other"}
        run("--rerun-failed", ids[-1])  # E: a rerun of D: c0 fixed, u7 still wrong
    shown = _cli("trend", str(path), "--json")
    assert shown.returncode == 0, shown.stderr
    trend = json.loads(shown.stdout)
    assert [r["id"] for r in trend["runs"]] == ids

    # the recomputation: each run's results from the store, a rerun merged over its parent
    outcome: dict[str, dict[str, str]] = {}
    with RunStore() as store:
        for run_id in ids:
            record = store.get_run(run_id)
            marks = {c.id: r.result for c, _p, r in store.load_results(run_id)}
            parent = record.options.get("rerun_of")
            if parent:
                marks = {**{c.id: r.result for c, _p, r in store.load_results(parent)}, **marks}
            outcome[run_id] = {i: _mark(r) for i, r in marks.items()}
            counts = {k: sum(1 for r in marks.values() if r == k) for k in ResultType}
            tp, fp, fn = counts[ResultType.TP], counts[ResultType.FP], counts[ResultType.FN]
            errors = counts[ResultType.ERROR]
            precision, recall = tp / (tp + fp), tp / (tp + fn)
            point = next(r for r in trend["runs"] if r["id"] == run_id)
            assert point["counts"] == {
                "tp": tp,
                "tn": counts[ResultType.TN],
                "fp": fp,
                "fn": fn,
            }
            assert point["errors"] == errors and point["cases"] == len(marks)
            assert point["precision"] == pytest.approx(precision)
            assert point["recall"] == pytest.approx(recall)
            assert point["f1"] == pytest.approx(2 * precision * recall / (precision + recall))
            assert point["error_rate"] == pytest.approx(errors / len(marks))
            assert point["rerun_of"] == parent
            if not parent:  # the store's own counters agree
                assert (record.tp, record.fp, record.fn, record.errors) == (tp, fp, fn, errors)

    history = {c["id"]: c for c in trend["cases"]}
    for case_id, case in history.items():
        assert case["history"] == "".join(outcome[r].get(case_id, "-") for r in ids)
    c0, c3, c5, c7 = "c00000", "c00003", "c00005", "c00007"
    assert history[c3]["history"] == "PFFPP" and history[c3]["failing_since"] is None
    assert history[c3]["flaky"] and history[c3]["failing_runs"] == 2
    assert history[c5]["history"] == "PEPPP" and history[c5]["failing_runs"] == 1
    assert history[c7]["history"] == "PPFFF"
    assert history[c7]["failing_since"] == ids[2] and history[c7]["failing_streak"] == 3
    assert history[c0]["history"] == "PPPFP" and history[c0]["failing_since"] is None
    assert {c["id"] for c in trend["failing"]} == {c7}
    assert {c["id"] for c in trend["flaky"]} == {c0, c3, c5, c7}
    assert set(history) == {c0, c3, c5, c7}  # a case that never failed is not listed

    # --last N: the newest N runs
    last2 = json.loads(_cli("trend", str(path), "--last", "2", "--json").stdout)
    assert [r["id"] for r in last2["runs"]] == ids[-2:]
    assert {c["id"] for c in last2["failing"]} == {c7}
    assert next(c for c in last2["cases"] if c["id"] == c7)["failing_since"] == ids[-2]

    text = _cli("trend", str(path)).stdout
    f1s = [r["f1"] for r in trend["runs"]]
    assert f"F1         {sparkline(f1s)}  {f1s[0]:.4f} → {f1s[-1]:.4f}" in text
    assert f"{c7}  failing since run {ids[2]} (3 runs)" in text
    assert f"{c3}  flaky in 2 of the last 5 runs" in text
    assert f"(rerun of {ids[3]})" in text


def test_trend_bad_input(tmp_path: Path) -> None:
    none = _cli("trend", "no-such-suite")
    assert none.returncode == 2 and "no finished batch-test run" in none.stderr
    zero = _cli("trend", "x", "--last", "0")
    assert zero.returncode == 2 and "--last" in zero.stderr


def test_sparkline_scales_between_the_lowest_and_highest_value() -> None:
    assert sparkline([0.5, 0.75, 1.0]) == "▁▅█"
    assert sparkline([0.2, 0.2]) == "▄▄"
    assert sparkline([0.0, 1.0], low=0.0, high=1.0) == "▁█"
    assert sparkline([]) == ""
