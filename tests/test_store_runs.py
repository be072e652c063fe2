"""The run store on real SQLite files and a real PostgreSQL server: runs, notes, results,
interruption, versioning."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from store_backends import pg_server, pg_url, store_where  # noqa: F401  (fixtures)

# ruff: noqa: F811  (a fixture imported from store_backends is an argument of the tests)
from nlu_tui.errors import InputError, NluTuiError
from nlu_tui.model import (
    CaseResult,
    EntityResult,
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    IntentScore,
    PredictedEntity,
    Prediction,
    ResultType,
    RunStatus,
    Suite,
    TestCase,
    ValueKind,
)
from nlu_tui.store import RunStore
from nlu_tui.store.schema import SCHEMA_VERSION


def _suite(n: int = 3) -> Suite:
    cases = [
        TestCase(
            utterance=f"send {i} dollars to Leo",
            intents=[ExpectedIntent("transfer", kind=IntentKind.DIALOG, bot="bank")],
            traits=["Issue"],
            parent_intents=["check_balance"],
            entities=[
                ExpectedEntity("amount", f"{i} USD"),
                ExpectedEntity("payee", "Leo.*", kind=ValueKind.REGEX, alternatives=["Leonardo"]),
            ],
            entity_order=["amount", "payee"],
            tags=["smoke"],
            extra={"kore": {"row": i}},
            id=f"case{i}",
        )
        for i in range(n)
    ]
    return Suite(name="Banking", cases=cases, path=Path("bank.suite.yaml"))


def _result(case: TestCase, kind: ResultType) -> tuple[Prediction, CaseResult]:
    pred = Prediction(
        intent="transfer",
        confidence=0.8,
        ranking=[IntentScore("transfer", 0.8), IntentScore("greet", 0.1)],
        entities=[PredictedEntity("amount", {"value": 3, "unit": "USD"}, text="3 dollars")],
        raw={"intent": {"name": "transfer"}},
        latency_ms=12.5,
    )
    res = CaseResult(
        case_id=case.id,
        result=kind,
        matched_intent="transfer",
        confidence=0.8,
        entities=[EntityResult("amount", "3 USD", "3 USD", True)],
        expected_entity_order=["amount", "payee"],
        actual_entity_order=["amount"],
        entity_order_ok=False,
        latency_ms=12.5,
    )
    return pred, res


def test_create_list_and_round_trip(store_where: Path | str) -> None:
    store = RunStore(store_where)
    suite = _suite()
    run = store.create_run(
        suite, engine_name="bank-rasa", engine_profile={"type": "rasa"}, stage="published"
    )
    assert run.status is RunStatus.RUNNING and run.total == 3 and run.done == 0
    pred, res = _result(suite.cases[1], ResultType.FN)
    assert store.add_results(run.id, [(1, pred, res)]) == 1
    loaded = store.load_results(run.id)
    assert loaded == [(suite.cases[1], pred, res)]
    assert store.load_cases(run.id) == suite.cases
    got = store.get_run(run.id[:5])
    assert (got.done, got.fn, got.stage, got.engine_profile) == (
        1,
        1,
        "published",
        {"type": "rasa"},
    )
    assert [r.id for r in store.list_runs("Banking")] == [run.id]
    assert [r.id for r in store.list_runs(str(Path("bank.suite.yaml")))] == [run.id]
    assert store.list_runs("other") == []
    assert store.get_run(run.id).to_json()["counts"] == {
        "tp": 0,
        "tn": 0,
        "fp": 0,
        "fn": 1,
        "errors": 0,
    }


def test_results_are_never_duplicated(store_where: Path | str) -> None:
    store = RunStore(store_where)
    suite = _suite(2)
    run = store.create_run(suite, engine_name="e")
    p0, r0 = _result(suite.cases[0], ResultType.TP)
    p1, r1 = _result(suite.cases[1], ResultType.ERROR)
    assert store.add_results(run.id, [(0, p0, r0), (1, p1, r1)]) == 2
    assert store.add_results(run.id, [(0, p0, r0)]) == 0
    got = store.get_run(run.id)
    assert (got.done, got.tp, got.errors) == (2, 1, 1)
    assert len(store.load_results(run.id)) == 2


def test_duplicate_case_ids_are_refused(store_where: Path | str) -> None:
    suite = _suite(2)
    suite.cases[1].id = suite.cases[0].id
    with pytest.raises(InputError, match="more than once"):
        RunStore(store_where).create_run(suite, engine_name="e")


def test_note_from_another_connection_while_running(store_where: Path | str) -> None:
    path = store_where
    writer = RunStore(path)
    run = writer.create_run(_suite(), engine_name="e", note="first")
    other = RunStore(path)
    other.set_note(run.id, "why: retrained on Monday")
    finished = writer.finish_run(run.id, RunStatus.SUCCESS)
    assert finished.note == "why: retrained on Monday"
    with pytest.raises(InputError, match="1024"):
        other.set_note(run.id, "x" * 1025)
    other.set_note(run.id, "x" * 1024)
    assert writer.get_run(run.id).note == "x" * 1024


def test_wal_mode_and_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    RunStore(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(NluTuiError, match="newer"):
        RunStore(path)


def test_default_path_follows_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NLU_TUI_DATA_DIR", str(tmp_path / "elsewhere"))
    store = RunStore()
    assert store.path == tmp_path / "elsewhere" / "runs.sqlite3"
    assert store.path.exists()


def test_mark_interrupted_only_dead_runs(store_where: Path | str) -> None:
    store = RunStore(store_where)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    dead = store.create_run(_suite(), engine_name="e")
    with store._tx() as conn:  # the run's process was the child, which has exited
        conn.execute("UPDATE runs SET pid=? WHERE id=?", (child.pid, dead.id))
    alive = store.create_run(_suite(), engine_name="e")  # this process: alive
    assert store.mark_interrupted() == [dead.id]
    assert store.get_run(dead.id).status is RunStatus.INTERRUPTED
    assert store.get_run(alive.id).status is RunStatus.RUNNING
    resumed = store.resume_run(dead.id)
    assert resumed.status is RunStatus.RUNNING and resumed.reason is None


def test_delete_and_unknown_ids(store_where: Path | str) -> None:
    store = RunStore(store_where)
    suite = _suite(1)
    run = store.create_run(suite, engine_name="e")
    pred, res = _result(suite.cases[0], ResultType.TP)
    store.add_results(run.id, [(0, pred, res)])
    store.delete_run(run.id)
    assert store.list_runs() == []
    with pytest.raises(InputError, match="no run"):
        store.get_run(run.id)
    count = store._query("SELECT count(*) AS n FROM results")[0]["n"]
    assert count == 0
