"""Quitting while widgets are still mounting: a handler that finds its children already removed
by the closing app is not an error (``ui.app.teardown_race``); the same error while the app
runs still is."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.css.query import NoMatches
from textual.widget import MountError
from ui_support import SIZE, make_workspace, new_app

from tests.conftest import SAMPLES


async def test_a_missing_child_found_while_the_app_closes_is_not_an_error(tmp_path: Path) -> None:
    app = new_app(make_workspace(tmp_path, SAMPLES / "banking_bot.suite.yaml"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.exit()
        # what a pane's on_mount or a tab bar's resize raise once their children are gone
        app._handle_exception(NoMatches("No nodes match '#runs-table' on RunsPane()"))
        app._handle_exception(MountError("Can't mount widget(s) before Probe() is mounted"))
    assert app.return_code == 0


async def test_the_same_error_while_the_app_runs_ends_it_with_the_traceback(
    tmp_path: Path,
) -> None:
    app = new_app(make_workspace(tmp_path, SAMPLES / "banking_bot.suite.yaml"))
    with pytest.raises(NoMatches):
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app._handle_exception(NoMatches("No nodes match '#runs-table' on RunsPane()"))
    assert app.return_code == 1


async def test_another_error_while_the_app_closes_is_still_reported(tmp_path: Path) -> None:
    app = new_app(make_workspace(tmp_path, SAMPLES / "banking_bot.suite.yaml"))
    with pytest.raises(ZeroDivisionError):
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.exit()
            app._handle_exception(ZeroDivisionError("a real bug"))
    assert app.return_code == 1
