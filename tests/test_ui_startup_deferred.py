"""Start-up's deferred work waits for a first full screen that is late (issue 27, item 3).

The Runs and Results panes, the suites' last runs, the training files' intents and the dialogs
built ahead are left for after the first screen, on timers (``EXTRA_PANES_AT_LATEST`` and
others). On a loaded machine the first cases came after those timers, which then competed
with them: here the suites' listing is slowed (a real worker thread, a real workspace) past the
timers, and the deferred work must still come after the first screen, not at its timer.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from ui_support import make_workspace, new_app

from nlu_tui.ui.screens import main
from nlu_tui.ui.screens.main import MainScreen
from nlu_tui.ui.widgets.cases_view import CasesView
from nlu_tui.ui.widgets.suites_panel import SuitesPanel
from nlu_tui.workspace import Workspace

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"
LISTING_TAKES = 0.6
"""How long the first listing of the suites is held (well past the shortened timers)."""


async def test_deferred_work_waits_for_a_late_first_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_workspace(
        tmp_path, SAMPLES / "banking_bot.suite.yaml", SAMPLES / "banking_bot.nlu.yml"
    )
    monkeypatch.setattr(main, "EXTRA_PANES_AT_LATEST", 0.1)
    info = Workspace.info

    def slow_info(self: Workspace, path: Path) -> Any:
        time.sleep(LISTING_TAKES)  # in the listing's worker thread: a slow machine
        return info(self, path)

    monkeypatch.setattr(Workspace, "info", slow_info)
    calls: list[tuple[str, bool]] = []
    up: list[bool] = []
    ensure, shown = MainScreen.ensure_extra_panes, SuitesPanel.first_screen_shown
    announce = CasesView._announce

    def announce_spy(self: CasesView) -> None:
        up.append(True)  # the cases area shows the suite's table: the first full screen
        announce(self)

    def ensure_spy(self: MainScreen) -> Any:
        calls.append(("panes", bool(up)))
        return ensure(self)

    def shown_spy(self: SuitesPanel) -> None:
        calls.append(("runs", bool(up)))
        shown(self)

    monkeypatch.setattr(CasesView, "_announce", announce_spy)
    monkeypatch.setattr(MainScreen, "ensure_extra_panes", ensure_spy)
    monkeypatch.setattr(SuitesPanel, "first_screen_shown", shown_spy)
    app = new_app(root)
    async with app.run_test(size=(120, 35)) as pilot:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            await pilot.pause(0.05)
            if up and {name for name, _ in calls} == {"panes", "runs"}:
                break
        await asyncio.sleep(0)
    assert calls, "the deferred work never ran"
    assert {name for name, _ in calls} == {"panes", "runs"}
    assert all(up for _, up in calls), calls  # none before the first full screen


async def test_an_empty_workspace_gets_its_panes_at_the_timer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing to wait for: no suite, so no first cases; the panes come at their timer."""
    monkeypatch.setattr(main, "EXTRA_PANES_AT_LATEST", 0.1)
    root = tmp_path / "empty"
    root.mkdir()
    app = new_app(root)
    async with app.run_test(size=(120, 35)) as pilot:
        deadline = time.monotonic() + 60
        tabs = app.screen.query_one("#main-tabs")
        while time.monotonic() < deadline:
            await pilot.pause(0.05)
            if tabs.get_pane("tab-runs").children:  # type: ignore[attr-defined]
                break
        assert isinstance(app.screen, MainScreen) and not app.screen.first_screen_up
        assert tabs.get_pane("tab-runs").children  # type: ignore[attr-defined]
