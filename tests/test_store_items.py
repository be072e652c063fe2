"""The run store's items: runs whose units of work are not one utterance per case."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from store_backends import pg_server, pg_url, store_where  # noqa: F401  (fixtures)

# ruff: noqa: F811  (a fixture imported from store_backends is an argument of the tests)
from nlu_tui.model import RunStatus, Suite
from nlu_tui.store.records import StoredItem
from nlu_tui.store.runstore import RunStore
from nlu_tui.store.schema import _V1, _V2


def _item_run(store: RunStore, total: int = 3) -> str:
    suite = Suite(name="bot e2e", path=None, cases=[])
    run = store.create_run(
        suite, engine_name="rasa", kind="e2e", total=total, digest="abc123", cases=[]
    )
    assert (run.kind, run.total, run.suite_hash, run.done) == ("e2e", total, "abc123", 0)
    return run.id


def test_items_are_stored_counted_and_never_twice(store_where: Path | str) -> None:
    store = RunStore(store_where)
    run_id = _item_run(store)
    first = [
        StoredItem("greet", 0, "passed", 12.5, {"turns": [{"user": "hi"}]}),
        StoredItem("order", 1, "failed", 20.0, {"first_mismatch": 2}),
    ]
    assert store.add_items(run_id, first) == 2
    # The same item again (a resumed run racing a batch) is kept as first stored.
    assert (
        store.add_items(run_id, [StoredItem("order", 1, "passed"), StoredItem("x", 2, "error")])
        == 1
    )
    run = store.get_run(run_id)
    assert (run.done, run.passed, run.failed, run.errors) == (3, 1, 1, 1)
    items = store.load_items(run_id)
    assert [i.item_id for i in items] == ["greet", "order", "x"]
    assert items[0].data == {"turns": [{"user": "hi"}]} and items[0].latency_ms == 12.5
    assert items[1].outcome == "failed"
    assert store.done_item_ids(run_id) == {"greet", "order", "x"}
    store.set_summary(run_id, {"accuracy": 0.5})
    finished = store.finish_run(run_id, RunStatus.SUCCESS)
    assert finished.summary == {"accuracy": 0.5}
    assert finished.to_json()["kind"] == "e2e" and finished.to_json()["passed"] == 1
    store.delete_run(run_id)
    assert store.find_run(run_id) is None


def test_an_unknown_outcome_is_refused(store_where: Path | str) -> None:
    store = RunStore(store_where)
    run_id = _item_run(store)
    with pytest.raises(ValueError, match="outcome"):
        store.add_items(run_id, [StoredItem("a", 0, "maybe")])
    assert store.get_run(run_id).done == 0


def test_a_version_2_store_is_migrated_and_its_runs_are_suite_runs(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(_V1 + _V2)
    conn.execute(
        "INSERT INTO runs (id, suite_name, suite_hash, engine_name, stage, status, total,"
        " started_at) VALUES ('r1', 's', 'h', 'e', 'development', 'success', 0, 1.0)"
    )
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    store = RunStore(path)
    run = store.get_run("r1")
    assert (run.kind, run.passed, run.failed, run.summary) == ("suite", 0, 0, {})
    assert "kind" not in run.to_json()
