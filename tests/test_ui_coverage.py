"""The workbench's coverage and health view: opened from the palette on the selected suite,
built by the same service call as ``nlu-tui coverage`` (so its text is the CLI's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_ui_runs_rundiff import _palette, _wait_for
from ui_runs_support import wait_for
from ui_support import SAMPLE, SIZE, make_workspace, new_app, settle

from nlu_tui.coverage_service import CoverageRequest, build_coverage, coverage_text


@pytest.mark.slow
async def test_coverage_view_from_the_palette(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, SAMPLE, SAMPLE.with_name("banking_bot.nlu.yml"))
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.suite is not None
        await _palette(pilot, "coverage and health", "suite: Coverage and health")
        from nlu_tui.ui.screens.coverage import CoverageScreen

        screen = app.screen
        assert isinstance(screen, CoverageScreen)
        await _wait_for(pilot, lambda: screen.text is not None)
        expected = coverage_text(
            build_coverage(CoverageRequest(root / SAMPLE.name, engine="embedded"), None)
        )
        assert screen.text == expected
        assert "17 intents, 17 tested (100.0%)" in str(screen.text)
        names = [c.name for c in app.palette_commands() if c.name.startswith("coverage: ")]
        assert names == ["coverage: Back", "coverage: Refresh"]
        await pilot.press("escape")
        await pilot.pause()
        await wait_for(pilot, lambda: not isinstance(app.screen, CoverageScreen))
        assert not isinstance(app.screen, CoverageScreen)
