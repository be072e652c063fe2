"""The workbench's Evaluate view (issue 12): a held-out split and a cross-validation of the
sample bot's training file, progress per unit, results shown, runs stored."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Select, Static
from ui_support import SIZE, make_workspace, new_app, settle

from nlu_tui.runsessions import store_for
from nlu_tui.ui.screens.evaluate import EvaluateScreen
from tests.conftest import SAMPLES


async def test_evaluate_split_then_cross_validation(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, SAMPLES / "banking_bot.nlu.yml")
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = EvaluateScreen(root / "banking_bot.nlu.yml", root)
        await app.push_screen(screen)
        await settle(pilot)
        screen.query_one("#eval-mode", Select).value = "split"
        await pilot.pause()
        screen.action_start()
        await settle(pilot, rounds=8)
        text = str(screen.query_one("#eval-text", Static).render())
        assert "intent accuracy" in text and "confused with" in text
        table = screen.query_one("#eval-progress", DataTable)
        assert [str(c) for c in table.get_row_at(0)][:2] == ["held-out", "done"]

        screen.query_one("#eval-mode", Select).value = "cross-validation"
        screen.query_one("#eval-folds", Input).value = "3"
        await pilot.pause()
        screen.action_start()
        await settle(pilot, rounds=8)
        text = str(screen.query_one("#eval-text", Static).render())
        assert "mean ± std over 3 folds" in text
        assert [str(table.get_row_at(i)[1]) for i in range(table.row_count)] == ["done"] * 3
        runs = store_for(app).list_runs()
        assert len(runs) == 2 and all(r.done == r.total for r in runs)
        assert (root / "results" / "banking_bot-cross-validation" / "intent_report.json").is_file()
