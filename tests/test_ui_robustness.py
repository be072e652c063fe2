"""The Results pane shows a run's robustness report (issue 26, item 2) in its "Per intent" tab
when the run is one of a clean/perturbed pair, and a Raw column for runs with ``raw:`` checks
(item 4): a Pilot test on real stored runs."""

from __future__ import annotations

from pathlib import Path

from ui_runs_support import (
    PaneApp,
    predictions_v1,
    settle,
    show_run,
    small_suite,
    stored_run,
    wait_for,
)

from nlu_tui.model import Prediction
from nlu_tui.perturbation import PerturbOptions, perturb_suite
from nlu_tui.store import RunStore
from nlu_tui.ui.widgets.results_pane import ResultsPane

SIZE = (160, 50)


async def test_per_intent_tab_shows_the_robustness_table(tmp_path: Path) -> None:
    from textual.widgets import DataTable

    store = RunStore(tmp_path / "runs.sqlite")
    suite = small_suite()
    clean = stored_run(store, suite, predictions_v1())
    perturbed = perturb_suite(suite, PerturbOptions(case=True, seed=1)).suite
    answers = predictions_v1()
    answers[0] = Prediction("greet", 0.4)  # "check my balance" broke
    broken = stored_run(store, perturbed, answers)
    lonely = stored_run(store, small_suite(), predictions_v1(), engine="other-engine")
    app = PaneApp(ResultsPane, store)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(ResultsPane)
        for run_id in (clean, broken):
            await show_run(pilot, pane, run_id)
            table = pane.query_one("#results-robustness", DataTable)
            assert table.display
            rows = {
                str(table.get_row_at(i)[0]): table.get_row_at(i) for i in range(table.row_count)
            }
            assert str(rows[f"(run {broken} vs {clean})"][5]) == "1"  # one case broke
            balance = rows["balance"]  # clean F1 0.6667 (TP + an FP), perturbed 0
            assert [str(c) for c in balance[1:]] == ["1", "0.6667", "0.0000", "-0.6667", "1", "0"]
        await show_run(pilot, pane, lonely)  # no perturbed run on its engine: no table
        assert not pane.query_one("#results-robustness", DataTable).display


async def test_results_table_has_a_raw_column_for_a_run_with_checks(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    suite = small_suite()
    suite.cases[0].raw_checks = ["$.intent.name == balance", "$.text =~ ^nothing"]
    run_id = stored_run(store, suite, predictions_v1())
    plain = stored_run(store, small_suite(), predictions_v1())
    app = PaneApp(ResultsPane, store)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(ResultsPane)
        await show_run(pilot, pane, run_id)
        assert ("raw", "Raw") in pane.table.columns
        assert pane.table.column_values("raw")[0] == "1/2"
        await show_run(pilot, pane, plain)
        assert ("raw", "Raw") not in pane.table.columns


async def test_a_live_run_with_raw_checks_shows_the_raw_column(tmp_path: Path) -> None:
    """A run started in the workbench streams the Raw column from its first row: the checks are
    scored as answers arrive (the real app, the embedded engine)."""
    import time

    from ui_support import SAMPLE, make_workspace, new_app

    from nlu_tui.runsessions import sessions

    root = make_workspace(tmp_path, SAMPLE, SAMPLE.parent / "banking_bot.nlu.yml")
    suite = root / SAMPLE.name
    text = suite.read_text(encoding="utf-8")
    first = text.index("    utterance:")
    end = text.index("\n", first)
    suite.write_text(
        text[: end + 1] + "    raw: [$.intent.confidence >= 0, $.nothing]\n" + text[end + 1 :],
        encoding="utf-8",
    )
    from nlu_tui.formats.native import load_suite

    assert load_suite(suite).cases[0].raw_checks == ["$.intent.confidence >= 0", "$.nothing"]
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one("#main-tabs").active = "tab-runs"
        await pilot.pause()
        await wait_for(pilot, lambda: bool(app.screen_stack[1].query("#runs-table")))
        app.screen_stack[1].query_one("#runs-table").focus()
        await pilot.pause()
        await pilot.press("f5")  # (r on the Runs tab reruns a listed run's failures)
        from nlu_tui.ui.screens.run_start import StartRunDialog

        # slow to open and to close on a loaded machine
        await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, StartRunDialog))
        results = app.screen.query_one(ResultsPane)
        deadline = time.monotonic() + 60
        # attached: the live view of the new run (on a loaded machine the whole run may end
        # between two looks, and the pane then shows the stored run: its own test above)
        while results.session is None and not any(s.finished for s in sessions(app).values()):
            assert time.monotonic() < deadline, ("the run did not start", sessions(app))
            await pilot.pause(0.01)
        if results.session is not None:
            assert results.data is None  # live, not the stored run
            assert ("raw", "Raw") in results.table.columns
        await wait_for(pilot, lambda: any(s.finished for s in sessions(app).values()), 120)
        await wait_for(pilot, lambda: "1/2" in (results.table.column_values("raw") or []), 30)
