"""Start run in the workbench with a run store that is not SQLite: the error is shown
(issue 10, item 12), instead of the run silently not starting."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ui_runs_support import settle, wait_for
from ui_support import SAMPLE, SIZE, make_workspace, new_app

from nlu_tui import paths
from nlu_tui.runsessions import sessions
from nlu_tui.ui.screens.run_start import StartRunDialog
from nlu_tui.ui.widgets.runs_pane import RunsPane

TRAINING = SAMPLE.parent / "banking_bot.nlu.yml"


def notes(app: Any) -> list[str]:
    return [f"{note.title}\n{note.message}" for note in app._notifications]


async def test_start_run_on_a_damaged_store_says_why(tmp_path: Path) -> None:
    store = paths.store_path()
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_bytes(b"this is not an SQLite file at all\n" * 20)
    root = make_workspace(tmp_path, SAMPLE, TRAINING)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one("#main-tabs").active = "tab-runs"
        await pilot.pause()
        await wait_for(pilot, lambda: bool(app.screen_stack[1].query(RunsPane)))
        table = app.screen_stack[1].query_one(RunsPane).query_one("#runs-table")
        table.focus()
        await pilot.pause()
        await wait_for(pilot, lambda: app.focused is table)
        await pilot.press("r")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, StartRunDialog)
        await pilot.press("ctrl+s")
        deadline = time.monotonic() + 60
        while not any("Cannot start the run" in n for n in notes(app)):
            assert time.monotonic() < deadline, notes(app)
            await pilot.pause(0.05)
        shown = [n for n in notes(app) if "Cannot start the run" in n]
        assert "runs.sqlite3" in shown[0] and "not a usable" in shown[0]
        assert not sessions(app)
        # reading the history failed too, and said so (it was silent before the one
        # handler for failed workers): the Runs tab is not just empty
        await wait_for(
            pilot, lambda: any("Reading the suite's runs failed" in n for n in notes(app))
        )
        history = [n for n in notes(app) if "Reading the suite's runs failed" in n]
        assert history and "not a usable" in history[0]
