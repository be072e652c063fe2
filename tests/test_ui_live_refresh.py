"""Live refresh: while the workbench is open, a CLI run in another process writes into the
same store (SQLite or PostgreSQL); the new run appears in the Runs tab, and the suite's line
in the suites panel shows it with its F1 sparkline, without a key press."""

from __future__ import annotations

import asyncio
import getpass
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from runner_loopback import LoopbackNlu, write_suite
from store_backends import pg_server, pg_url, store_where  # noqa: F401  (fixtures)
from ui_support import SIZE, new_app

# ruff: noqa: F811  (a fixture imported from store_backends is an argument of the tests)
from nlu_tui.runsessions import store_for
from nlu_tui.trends import compute_trend, f1_by_suite
from nlu_tui.ui.widgets.runs_pane import RunsPane
from nlu_tui.ui.widgets.suites_panel import SuitesPanel
from nlu_tui.views.trend_text import sparkline


async def _wait_for(pilot: Any, predicate: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for the workbench"
        await pilot.pause(0.1)


def _cli_run(suite: Path, url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "nlu_tui", "run", str(suite), "-e", f"rasa:{url}"],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ},
    )
    assert done.returncode in (0, 1), done.stderr


def _line(panel: SuitesPanel, path: Path) -> str:
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(panel._prompt(panel.infos[str(path)]))
    return console.export_text()


async def test_a_run_by_another_process_appears_without_a_key_press(
    store_where: Path | str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = store_where if isinstance(store_where, str) else f"sqlite:///{store_where}"
    monkeypatch.setenv("NLU_TUI_STORE_URL", url)  # the app's store and the CLI's: one store
    root = tmp_path / "ws"
    root.mkdir()
    suite = write_suite(root / "shop.suite.yaml", 6).resolve()
    with LoopbackNlu() as engine:
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            await _wait_for(pilot, lambda: app.suite is not None)
            app.screen.query_one("#main-tabs").active = "tab-runs"
            await pilot.pause()
            await _wait_for(pilot, lambda: bool(app.screen_stack[1].query("#runs-table")))
            pane = app.screen_stack[1].query_one(RunsPane)
            panel = app.screen_stack[1].query_one(SuitesPanel)
            await pilot.pause(1.0)
            assert pane.history == []
            # another process (a colleague's CLI, CI) runs the suite into the same store
            await asyncio.to_thread(_cli_run, suite, engine.url)
            await _wait_for(pilot, lambda: len(pane.history) == 1)
            record = pane.history[0].record
            assert (record.started_by, record.started_on) == (
                getpass.getuser(),
                socket.gethostname(),
            )
            assert pane.query_one("#runs-table").row_count == 1
            await _wait_for(pilot, lambda: panel.infos[str(suite)].last_status is not None)
            await asyncio.to_thread(_cli_run, suite, engine.url)
            await _wait_for(pilot, lambda: len(pane.history) == 2)
            await _wait_for(pilot, lambda: len(panel.sparks.get(str(suite), [])) == 2)
            # the sparkline is the core's trend figures, drawn once in the suite's line
            series = f1_by_suite(store_for(app))[str(suite)]
            trend = compute_trend(store_for(app), str(suite))
            assert series == [point.f1 for point in trend.runs]
            assert sparkline(series, low=0.0, high=1.0) in _line(panel, suite)


def test_the_sparkline_never_wraps_a_suite_line_in_a_narrow_panel() -> None:
    """At 80 columns the suites panel is about 24 wide: a suite's line with its last run, a
    12-run sparkline and its counts stays two lines, cut with "…"."""
    from rich.console import Console

    from nlu_tui.ui.widgets.suites_panel import suite_prompt
    from nlu_tui.workspace import SuiteInfo

    info = SuiteInfo(
        Path("/w/a-suite-with-a-long-name.suite.yaml"),
        "A suite with a long name",
        case_count=12345,
        intents=["a", "b"],
        last_status="success",
        last_f1=0.91,
    )
    spark = [0.1 * (i % 10) for i in range(12)]
    for width in (22, 24, 40):
        console = Console(width=width, record=True)
        console.print(suite_prompt(info, spark))
        lines = console.export_text().splitlines()
        assert len(lines) == 2, lines
        assert lines[1].rstrip().endswith("…") or width == 40
    wide = Console(width=200, record=True)
    wide.print(suite_prompt(info, spark))
    assert sparkline(spark, low=0.0, high=1.0) in wide.export_text()
