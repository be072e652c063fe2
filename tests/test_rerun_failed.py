"""``nlu-tui run --rerun-failed RUN``: a child run sends only RUN's failed and errored cases,
and the merged result (RUN's passes + the child's answers) is what the suite now scores.

Real CLI processes, the real Rasa engine (``rasa:URL``) against a real loopback server that
answers 500 to the first request of a known set of utterances, and a real SQLite store.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from runner_loopback import LoopbackNlu, make_suite, write_suite

from nlu_tui.reruns import merged_results, merged_summary
from nlu_tui.scoring.summary import summarize
from nlu_tui.store import RunStore


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args], capture_output=True, text=True, timeout=120
    )


def _run_id(proc: subprocess.CompletedProcess[str]) -> str:
    first = proc.stdout.splitlines()[0]
    assert first.startswith("run "), proc.stdout + proc.stderr
    return first.split()[1].rstrip(":")


def test_rerun_sends_exactly_the_failed_cases_and_merges_to_a_clean_runs_summary(
    tmp_path: Path,
) -> None:
    suite = make_suite(24, wrong_every=6)  # 4 cases expect an intent the server never says
    path = tmp_path / "loop.suite.yaml"
    write_suite(path, 24, wrong_every=6)
    flaky = {c.utterance for c in suite.cases[0:24:4]}  # 6 cases: a 500 the first time only
    wrong = {c.utterance for i, c in enumerate(suite.cases) if i % 6 == 5}
    assert not flaky & wrong
    with LoopbackNlu(first={u: ("500", 1) for u in flaky}) as server:
        engine = f"rasa:{server.url}"
        first = _cli("run", str(path), "-e", engine, "--retries", "0", "--max-error-rate", "0.9")
        parent = _run_id(first)
        assert "ERR 6" in first.stdout, first.stdout + first.stderr
        sent_before = dict(server.counts)
        assert all(n == 1 for n in sent_before.values()) and len(sent_before) == 24

        # --fail-on judges the merged result: the child alone scores F1 0.75 (6 TP, 2 FP,
        # 2 FN), the merged result 0.889
        rerun = _cli("run", "--rerun-failed", parent, "--retries", "0", "--fail-on", "f1<0.85")
        assert rerun.returncode == 0, rerun.stdout + rerun.stderr
        child = _run_id(rerun)
        # the child sent exactly the failed and errored cases, once each
        sent = {u: n - sent_before.get(u, 0) for u, n in server.counts.items()}
        assert {u for u, n in sent.items() if n} == flaky | wrong
        assert all(n in (0, 1) for n in sent.values())
        assert f"rerun of {parent}: 10 failed and errored cases" in rerun.stdout

        clean = _cli("run", str(path), "-e", engine, "--retries", "0")
        clean_id = _run_id(clean)

    with RunStore() as store:
        child_run = store.get_run(child)
        assert child_run.options["rerun_of"] == parent
        assert child_run.total == 10 and child_run.errors == 0
        merged = merged_summary(store, child_run)
        clean_rows = store.load_results(clean_id)
        clean_summary = summarize(r for _c, _p, r in clean_rows)
        for name in ("cases", "tp", "tn", "fp", "fn", "errors", "precision", "recall", "f1"):
            assert getattr(merged, name) == getattr(clean_summary, name), name
        # case by case, the merged results are the clean run's
        assert [(c.id, r.result) for c, _p, r in merged_results(store, child_run)] == [
            (c.id, r.result) for c, _p, r in clean_rows
        ]
        assert child_run.summary["merged"]["f1"] == clean_summary.f1
        parent_run = store.get_run(parent)
        assert parent_run.errors == 6  # the parent is left as it was

    line = next(x for x in rerun.stdout.splitlines() if x.startswith("merged with run"))
    assert f"F1 {clean_summary.f1:.3f}" in line and "ERR 0" in line
    assert f"TP {clean_summary.tp} " in line and f"FP {clean_summary.fp} " in line
    listed = {r["id"]: r for r in json.loads(_cli("runs", "--json").stdout)}
    assert listed[child]["rerun_of"] == parent
    assert listed[child]["merged"]["f1"] == clean_summary.f1
    assert "rerun_of" not in listed[parent]
    shown = _cli("show", child).stdout
    assert f"rerun of   {parent}" in shown
    assert f"F1 {clean_summary.f1:.4f}" in shown

    # a rerun of the rerun sends what still fails (the 4 wrong cases), merged down the chain
    with LoopbackNlu() as server:
        again = _cli("run", "--rerun-failed", child, "-e", f"rasa:{server.url}")
        assert again.returncode == 0, again.stdout + again.stderr
        assert set(server.counts) == wrong
    with RunStore() as store:
        grandchild = store.get_run(_run_id(again))
        assert merged_summary(store, grandchild).f1 == clean_summary.f1


def test_rerun_failed_refuses_bad_input_and_stores_nothing(tmp_path: Path) -> None:
    path = tmp_path / "ok.suite.yaml"
    write_suite(path, 4)
    with LoopbackNlu() as server:
        ok = _cli("run", str(path), "-e", f"rasa:{server.url}")
    run_id = _run_id(ok)
    nothing = _cli("run", "--rerun-failed", run_id)
    assert nothing.returncode == 2 and "nothing to rerun" in nothing.stderr
    both = _cli("run", str(path), "--rerun-failed", run_id)
    assert both.returncode == 2 and "--rerun-failed" in both.stderr
    unknown = _cli("run", "--rerun-failed", "nosuchrun")
    assert unknown.returncode == 2
    listed = json.loads(_cli("runs", "--json").stdout)
    assert [r["id"] for r in listed] == [run_id]
