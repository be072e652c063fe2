"""The workbench's DUT results: after a real `test du` run, the palette command shows the
per-command metrics and the failed steps with their EXPECTED | PREDICTED diff."""

from __future__ import annotations

from pathlib import Path

from ui_runs_support import screen_text, wait_for
from ui_support import make_workspace, new_app, settle

from nlu_tui.cli.main import run as cli
from nlu_tui.ui.screens.dut_results import DutResultsScreen

SAMPLES = Path(__file__).parents[1] / "sample_suites"


async def test_latest_dut_run_results(tmp_path: Path) -> None:
    import asyncio

    assert (
        await asyncio.to_thread(
            cli,
            [
                "test",
                "du",
                str(SAMPLES / "contacts.dut.yml"),
                "--engine",
                f"embedded:{SAMPLES / 'contacts.nlu.yml'}",
                "--no-output",
            ],
        )
        == 1
    )
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        app.screen.action_dut_results()  # type: ignore[attr-defined]
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, DutResultsScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, DutResultsScreen)
        await wait_for(pilot, lambda: "test cases: 3 passed" in screen_text(app))
        text = screen_text(app)
        assert "test cases: 3 passed, 2 failed (accuracy 0.6000)" in text
        assert "set_slot" in text and "0.7273" in text
        failed = str(app.screen.query_one("#dut-failed").render())
        assert "set slot name Bart | " in failed
        assert "set slot transfer_money_final_confirmation True | set slot" in failed
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DutResultsScreen))
        assert not isinstance(app.screen, DutResultsScreen)


async def test_no_dut_run_gives_a_notice(tmp_path: Path) -> None:
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.action_dut_results()  # type: ignore[attr-defined]
        await pilot.pause()
        assert not isinstance(app.screen, DutResultsScreen)
