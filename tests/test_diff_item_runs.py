"""``nlu-tui diff BEFORE AFTER`` accepts the run ids of every kind (issue 22: ``runs``, ``show``,
``diff`` and ``note`` work the same for ``run``, ``test e2e``, ``test stories``, ``test du``):
runs of items are paired by item id, as each kind's own ``--diff-with`` pairs them."""

from __future__ import annotations

import pytest

from nlu_tui.cli.main import run as cli
from nlu_tui.model import RunStatus, Suite
from nlu_tui.store.records import StoredItem
from nlu_tui.store.runstore import RunStore


def _run(store: RunStore, kind: str, outcomes: dict[str, str], summary: dict | None = None) -> str:
    record = store.create_run(
        Suite(name="tests.yml", path=None, cases=[]),
        engine_name="rasa:http://127.0.0.1:5005",
        kind=kind,
        total=len(outcomes),
        digest="d1",
        cases=[],
    )
    items = [
        StoredItem(
            f"tests.yml:{n + 1}:{name}",
            n,
            outcome,
            10.0,
            {"name": name, "file": "tests.yml", "line": n + 1, "scenario": f"tests.yml:1:{name}"},
        )
        for n, (name, outcome) in enumerate(outcomes.items())
    ]
    store.add_items(record.id, items)
    if summary is not None:
        store.set_summary(record.id, summary)
    store.finish_run(record.id, RunStatus.SUCCESS)
    return record.id


@pytest.mark.parametrize("kind", ["e2e", "stories", "dut"])
def test_diff_of_two_runs_of_items_lists_what_broke_and_what_got_fixed(
    kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    f1 = {"macro": 0.5, "micro": 0.5, "weighted_average": 0.5}
    with RunStore() as store:
        before = _run(store, kind, {"greet": "passed", "book": "failed"}, {"f1_score": f1})
        after = _run(
            store,
            kind,
            {"greet": "failed", "book": "passed"},
            {"f1_score": {**f1, "macro": 0.75}},
        )
    assert cli(["diff", before, after]) == 0
    out = capsys.readouterr().out
    assert f"before  {before}" in out and "1 of 2 passed" in out
    assert "broke         greet (tests.yml:1)" in out
    assert "fixed         book (tests.yml:2)" in out
    if kind == "dut":  # and the command F1 of Rasa Pro's report
        assert "macro F1: 0.5000 -> 0.7500 (+0.2500)" in out


def test_diff_of_two_simulate_runs_compares_pass_rates(capsys: pytest.CaptureFixture[str]) -> None:
    with RunStore() as store:
        before = _run(store, "simulate", {"greet": "passed"})
        after = _run(store, "simulate", {"greet": "failed"})
    assert cli(["diff", before, after]) == 0
    out = capsys.readouterr().out
    assert "greet: 1/1 (100.0%) → 0/1 (0.0%)" in out


def test_diff_refuses_two_runs_of_different_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    with RunStore() as store:
        e2e, dut = (_run(store, kind, {"greet": "passed"}) for kind in ("e2e", "dut"))
    assert cli(["diff", e2e, dut]) == 2  # bad input: one line, exit 2
    err = capsys.readouterr().err
    assert f"run {e2e} is a e2e run and run {dut} a dut run" in err
