"""`test nlu` runs in the history as a new user meets them (issue 12): `nlu-tui show` gives an
evaluation's own figures (a comparison's F1 table, not "cases 0 of 24"), and a canceled
cross-validation cannot be "resumed" by the ordinary runner, which would test the missing folds
on the engine trained on all the data (the folds' examples included)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nlu_tui.cli.main import run
from nlu_tui.evaluation import service
from nlu_tui.model import RunStatus
from nlu_tui.store.runstore import RunStore
from tests.conftest import SAMPLES

BANK = SAMPLES / "banking_bot.nlu.yml"
DEFAULT_CFG = SAMPLES / "embedded_default.config.yml"
NB_CFG = SAMPLES / "embedded_words_nb.config.yml"


def _canceled_cross_validation() -> str:
    """A 4-fold cross-validation canceled after its second fold; its run id."""
    plan = service.plan(
        service.EvalRequest(
            nlu=BANK, engine="embedded", mode=service.CROSS_VALIDATION, folds=4, seed=3
        )
    )
    cancel = service.Cancel()

    def progress(key: str, state: str, _seconds: float | None) -> None:
        if key == "fold 2" and state == "done":
            cancel.set()

    store = RunStore()
    try:
        outcome = asyncio.run(service.evaluate(plan, store, progress, cancel))
    finally:
        store.close()
    (record,) = outcome.runs
    assert record.status is RunStatus.CANCELED and 0 < record.done < record.total
    return record.id


def test_a_canceled_cross_validation_is_not_resumed_by_the_runner(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run_id = _canceled_cross_validation()
    store = RunStore()
    try:
        before = store.get_run(run_id)
        assert before.evaluation == service.CROSS_VALIDATION
        assert not before.resumable  # the workbench's `u` offers no resume either
        capsys.readouterr()
        assert run(["run", "--resume", run_id]) == 2
        err = capsys.readouterr().err
        assert "cross-validation" in err and "cannot be resumed" in err
        after = store.get_run(run_id)
        assert (after.status, after.done, after.tp, after.fp) == (
            before.status,
            before.done,
            before.tp,
            before.fp,
        )
    finally:
        store.close()


def test_show_prints_what_the_evaluation_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(
        ["test", "nlu", "--nlu", str(BANK), "--cross-validation", "--folds", "3",
         "--random-seed", "5", "--out", str(tmp_path / "cv"), "--no-plot"]
    )  # fmt: skip
    assert code == 0
    code = run(
        ["test", "nlu", "--nlu", str(BANK), "--config", str(DEFAULT_CFG), str(NB_CFG),
         "--runs", "1", "--percentages", "0", "50", "--random-seed", "3",
         "--out", str(tmp_path / "cmp"), "--no-plot"]
    )  # fmt: skip
    assert code == 0
    store = RunStore()
    try:
        comparison, cv = store.list_runs()
    finally:
        store.close()
    capsys.readouterr()

    assert run(["show", cv.id]) == 0
    out = capsys.readouterr().out
    assert "test nlu cross-validation · 3 folds · seed 5" in out
    assert "Intent evaluation, mean ± std over 3 folds:" in out
    mean = cv.summary["test"]["F1-score"]["mean"]
    assert f"test {mean:.3f} ± " in out
    for fold in cv.summary["per_fold"]:  # the stored figures of every fold
        assert f"{fold['test']['F1-score']:.4f}" in out

    assert run(["show", comparison.id]) == 0
    out = capsys.readouterr().out
    assert "cases      0 of" not in out and "F1         -" not in out
    assert "models     4 of 4 trained and tested" in out
    assert "Label-weighted F1 on the test set, mean ± std over runs:" in out
    first = comparison.summary["results"]["embedded_default.config"][0][0]
    assert f"{first:.3f} ± 0.000" in out


def test_ctrl_c_says_which_runs_were_kept(tmp_path: Path) -> None:
    """Ctrl-C during a cross-validation: exit 130, and the folds finished so far are stored in a
    canceled run that the command names (it only said "canceled")."""
    import os
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "nlu_tui", "test", "nlu", "--nlu", str(BANK),
         "--cross-validation", "--folds", "10", "--runs", "20", "--random-seed", "8",
         "--no-cache", "--no-plot", "--out", str(tmp_path / "cv")],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(os.environ),
    )  # fmt: skip
    assert proc.stderr is not None
    deadline = time.monotonic() + 60
    for line in proc.stderr:  # wait until a fold of the second run is stored
        if "run 2 fold 2: done" in line or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    store = RunStore()
    try:
        first, second = sorted(store.list_runs(), key=lambda r: r.started_at)[:2]
    finally:
        store.close()
    assert first.status is RunStatus.SUCCESS
    assert second.status is RunStatus.CANCELED and 0 < second.done < second.total
    assert f"run {first.id}: success, {first.done}/{first.total} cases kept" in err
    assert f"run {second.id}: canceled, {second.done}/{second.total} cases kept" in err
    assert f"nlu-tui show {second.id}" in err


def test_each_repeated_cross_validation_names_its_own_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--runs 2 --random-seed 42` folds with seeds 42 and 43; both stored runs were printed
    as "(seed 42)"."""
    code = run(
        ["test", "nlu", "--nlu", str(BANK), "--cross-validation", "--folds", "3", "--runs", "2",
         "--random-seed", "42", "--out", str(tmp_path / "cv"), "--no-plot"]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    store = RunStore()
    try:
        second, first = store.list_runs()
    finally:
        store.close()
    assert (first.engine_profile["seed"], second.engine_profile["seed"]) == (42, 43)
    assert f"run {first.id}: success, 193/193 cases (seed 42)" in out
    assert f"run {second.id}: success, 193/193 cases (seed 43)" in out
