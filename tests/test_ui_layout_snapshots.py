"""The workbench at the sizes testers use (80×24 and 120×35): every screen in both.

The README says "works in 80×24"; these pictures back it: the suites panel, the cases table,
the runs history, each Results tab and the diff screen, in the real main screen (suites
panel included) with fixed run data. Update with ``--snapshot-update`` after a deliberate
change and look at the pictures: the columns a tester needs first must be on screen.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from test_ui_runs_snapshots import T0, record
from ui_runs_support import predictions_v1, predictions_v2
from ui_support import settle

from nlu_tui.model import RunStatus
from nlu_tui.reports.run_data import RunData
from nlu_tui.rundiff import diff_runs

APP = str(Path(__file__).parent / "fixtures" / "ui" / "snap_app.py")
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 35), id="120x35")]


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


def _main(pilot: Any) -> Any:
    from nlu_tui.ui.screens.main import MainScreen

    return next(s for s in pilot.app.screen_stack if isinstance(s, MainScreen))


async def _runs(pilot: Any) -> None:
    from nlu_tui.ui.widgets.runs_pane import RunsPane, history_row

    await settle(pilot)
    await pilot.press("f4")
    await settle(pilot)
    pane = _main(pilot).query_one(RunsPane)
    rec1, _ = record("run000000001", predictions_v1(), note="baseline before the retrain")
    rec2, _ = record(
        "run000000002",
        predictions_v2(),
        status=RunStatus.CANCELED,
        reason="canceled by the user",
        start=T0 + 3600,
    )
    pane._entity_cache = {"run000000001": 1.0, "run000000002": 1.0}
    pane._set_history([history_row(r, 1.0) for r in (rec1, rec2)])
    await pilot.pause()


def _results(tab: str) -> Any:
    async def before(pilot: Any) -> None:
        from textual.widgets import TabbedContent

        from nlu_tui.ui.widgets.results_pane import ResultsPane

        await settle(pilot)
        await pilot.press("f6")
        await settle(pilot)
        pane = _main(pilot).query_one(ResultsPane)
        rec, rows = record("run000000001", predictions_v1(), note="why we ran it")
        pane._show_data(RunData.from_rows(rec, rows))
        await settle(pilot)  # the tabs fill in workers (slow under load)
        pane.query_one("#results-tabs", TabbedContent).active = tab
        await settle(pilot)
        if tab == "tab-res-cases":
            pane.table.select_case("c3")
        elif tab == "tab-res-confusion":
            pane.open_cell("pay_bill", "balance")
        await settle(pilot)

    return before


async def _diff(pilot: Any) -> None:
    from nlu_tui.rundiff import DiffResult
    from nlu_tui.ui.screens.run_diff import DiffScreen

    await settle(pilot)
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
    await pilot.app.push_screen(DiffScreen("run000000001", "run000000002", result))
    await settle(pilot)


async def _suites(pilot: Any) -> None:
    await settle(pilot)
    await pilot.press("f2")
    await settle(pilot)


async def _cases(pilot: Any) -> None:
    await settle(pilot)
    await pilot.press("f3")
    await settle(pilot)


SCENES = {
    "suites": _suites,
    "cases": _cases,
    "runs": _runs,
    "results_cases": _results("tab-res-cases"),
    "results_intents": _results("tab-res-intents"),
    "results_confusion": _results("tab-res-confusion"),
    "results_charts": _results("tab-res-charts"),
    "diff": _diff,
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scene", list(SCENES))
def test_snapshot_layout(snap_compare: Any, scene: str, size: tuple[int, int]) -> None:
    assert snap_compare(APP, terminal_size=size, run_before=SCENES[scene])


RUN_APP = str(Path(__file__).parent / "fixtures" / "ui" / "snap_run_app.py")


async def _run_start(pilot: Any) -> None:
    from nlu_tui.ui.screens.dialogs import ConfirmDialog

    await settle(pilot)
    await pilot.press("f3")
    await settle(pilot)
    await pilot.press("f5")  # Run Test Suite, from the Cases tab
    await pilot.pause()
    if isinstance(pilot.app.screen, ConfirmDialog):  # the sample's validation warnings
        await pilot.press("y")
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_run_start(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(RUN_APP, terminal_size=size, run_before=_run_start)
