"""The run dialog asks a slow engine again on Start (nlu_tui/engine_check.py ``timed_out``).

The dialog checks the engine as it opens; a server that took longer than the check's time to
answer (busy, or a loaded machine: the test engines of CI) was kept as "not reachable", and the
first Start refused to run on an engine that answered by then."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_loopback import LoopbackNlu, write_suite
from textual.widgets import Static
from ui_runs_support import open_runs_tab, wait_for
from ui_support import SIZE, new_app

from nlu_tui import engine_check
from nlu_tui.model import RunStatus
from nlu_tui.runsessions import sessions
from nlu_tui.ui.screens.run_start import StartRunDialog


async def test_start_asks_a_server_that_was_too_slow_for_the_check_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine_check, "CHECK_TIMEOUT", 0.5)
    root = tmp_path / "ws"
    root.mkdir()
    write_suite(root / "a.suite.yaml", 3)
    with LoopbackNlu(version_latency=3.0) as server:
        (root / "engines.yaml").write_text(
            f"engines:\n  loop:\n    type: rasa\n    url: {server.url}\n", encoding="utf-8"
        )
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            await open_runs_tab(pilot)
            await pilot.press("f5")
            await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
            await pilot.pause()
            dialog = app.screen
            line = dialog.query_one("#start-check", Static)
            await wait_for(pilot, lambda: "not answering within 0.5 s" in str(line.render()))
            server.version_latency = 0.0  # the server answers at once now
            await pilot.press("ctrl+s")  # one Start: asked again, and it runs
            await wait_for(pilot, lambda: any(s.finished for s in sessions(app).values()))
            (session,) = sessions(app).values()
            assert session.status is RunStatus.SUCCESS
