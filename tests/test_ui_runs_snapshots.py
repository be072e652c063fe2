"""Snapshots of the run (progress + history), results and diff screens at a fixed size.

The data is fixed (run records with set ids and times, predictions with set latencies), the
cursor does not blink and there is no animation, so the pictures are stable. Update them with
``pytest tests/test_ui_runs_snapshots.py --snapshot-update`` after a deliberate change.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from textual.app import App, ComposeResult
from ui_runs_support import predictions_v1, predictions_v2, small_suite
from ui_support import settle

from nlu_tui.model import RunStatus
from nlu_tui.reports.run_data import RunData
from nlu_tui.rundiff import DiffResult, diff_runs
from nlu_tui.runner.events import ProgressEvent
from nlu_tui.runsessions import RunSession
from nlu_tui.scoring import score_case
from nlu_tui.store.records import RunRecord
from nlu_tui.ui.screens.run_diff import DiffScreen
from nlu_tui.ui.widgets.results_pane import ResultsPane
from nlu_tui.ui.widgets.runs_pane import RunProgressPanel, RunsPane, history_row

SIZE = (130, 40)
T0 = 1_790_000_000.0  # a fixed start time


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


def record(
    run_id: str,
    predictions: Any,
    status: RunStatus = RunStatus.SUCCESS,
    note: str = "",
    reason: str | None = None,
    start: float = T0,
) -> tuple[RunRecord, Any]:
    suite = small_suite()
    rows = [(c, p, score_case(c, p)) for c, p in zip(suite.cases, predictions, strict=True)]
    counts = {
        k: sum(r.result.value == k.upper() for _, _, r in rows) for k in ("tp", "tn", "fp", "fn")
    }
    errors = sum(r.result.value == "ERROR" for _, _, r in rows)
    rec = RunRecord(
        id=run_id,
        suite_name=suite.name,
        suite_path=None,
        suite_hash="h",
        engine_name="bank-rasa",
        engine_profile={"type": "rasa"},
        stage="development",
        status=status,
        reason=reason,
        note=note,
        total=len(rows),
        done=len(rows),
        errors=errors,
        started_at=start,
        finished_at=start + 12.5,
        **counts,
    )
    return rec, rows


class SnapApp(App[None]):
    def __init__(self, widget: Any) -> None:
        super().__init__()
        self._widget = widget

    def compose(self) -> ComposeResult:
        yield self._widget


class _FakeRunHandle:
    """Only what the progress panel reads of a runner Run: its id."""

    run_id = "run000000001"

    def cancel(self) -> None:  # pragma: no cover - never called by a snapshot
        pass


def test_snapshot_run_progress_and_history(snap_compare: Any) -> None:
    pane = RunsPane()
    app = SnapApp(pane)

    async def before(pilot: Any) -> None:
        rec1, _ = record("run000000001", predictions_v1(), note="baseline before the retrain")
        rec2, _ = record(
            "run000000002",
            predictions_v2(),
            status=RunStatus.CANCELED,
            reason="canceled by the user",
            start=T0 + 3600,
        )
        rec3, _ = record(
            "run000000003",
            predictions_v1(),
            status=RunStatus.FAILED,
            reason="engine unreachable: ConnectError",
            start=T0 + 7200,
        )
        rec1.started_by, rec1.started_on = "ana", "lab-7"  # who ran what (schema 6)
        rec2.started_by, rec2.started_on = "ci", "runner-2"
        pane._entity_cache = {"run000000001": 1.0, "run000000002": 1.0, "run000000003": None}
        pane._set_history([history_row(r, pane._entity_cache[r.id]) for r in (rec1, rec2, rec3)])
        session = RunSession(
            run=_FakeRunHandle(),
            suite_key="s",
            suite_name="Small",  # type: ignore[arg-type]
            engine_name="bank-rasa",
            stage="development",
            total=200,
        )
        session.on_progress(
            ProgressEvent(
                run_id="run000000004",
                done=120,
                total=200,
                rate=40.0,
                eta_s=2.0,
                elapsed_s=3.0,
                tp=90,
                tn=10,
                fp=8,
                fn=7,
                errors=5,
                f1=0.9,
                precision=0.9184,
                recall=0.9278,
            )
        )
        pane.query_one(RunProgressPanel).show(session)
        pane.query_one("#runs-table").focus()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_snapshot_results(snap_compare: Any) -> None:
    pane = ResultsPane()
    app = SnapApp(pane)

    async def before(pilot: Any) -> None:
        rec, rows = record("run000000001", predictions_v1(), note="why we ran it")
        pane._show_data(RunData.from_rows(rec, rows))
        await settle(pilot)  # the tabs fill in workers (slow under load)
        pane.table.data_table.focus()
        pane.table.select_case("c3")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_snapshot_results_confusion(snap_compare: Any) -> None:
    pane = ResultsPane()
    app = SnapApp(pane)

    async def before(pilot: Any) -> None:
        from textual.widgets import TabbedContent

        rec, rows = record("run000000001", predictions_v1())
        pane._show_data(RunData.from_rows(rec, rows))
        pane.query_one("#results-tabs", TabbedContent).active = "tab-res-confusion"
        await settle(pilot)
        pane.open_cell("pay_bill", "balance")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_snapshot_diff(snap_compare: Any) -> None:
    before_rec, before_rows = record("run000000001", predictions_v1())
    after_rec, after_rows = record("run000000002", predictions_v2(), start=T0 + 3600)
    before_data = RunData.from_rows(before_rec, before_rows)
    after_data = RunData.from_rows(after_rec, after_rows)
    diff = diff_runs(
        (r for _, _, r in before_rows),
        (r for _, _, r in after_rows),
        cases=[c for c, _, _ in after_rows],
        f1_before=before_data.intent_f1(),
        f1_after=after_data.intent_f1(),
    )
    result = DiffResult(before_data, after_data, diff, None, None)

    class DiffApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(DiffScreen("run000000001", "run000000002", result))

    assert snap_compare(DiffApp(), terminal_size=SIZE)
