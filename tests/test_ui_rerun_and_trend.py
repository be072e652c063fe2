"""The workbench's parts of rerun-failed and trends (Pilot, real loopback engine, real store):
``r`` on a run in the Runs tab sends only its failed and errored cases, as a child run, through
the run service (what ``run --rerun-failed`` does); the Results pane's Trend tab shows the
suite's figures over its runs and which cases fail since when, or flip."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from runner_loopback import LoopbackNlu, make_suite, write_suite
from textual.widgets import DataTable, Static, TabbedContent
from ui_support import SIZE, new_app

from nlu_tui.reruns import merged_summary
from nlu_tui.runsessions import sessions, store_for
from nlu_tui.ui.widgets.results_pane import ResultsPane
from nlu_tui.ui.widgets.runs_pane import RunsPane
from nlu_tui.ui.widgets.suites_panel import SuitesPanel


async def _wait_for(pilot: Any, predicate: Any, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for the workbench"
        await pilot.pause(0.1)


def _cells(table: DataTable[Any]) -> list[list[str]]:
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def test_r_reruns_the_failed_cases_and_the_trend_tab_shows_them(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    suite = make_suite(24, wrong_every=6)
    path = write_suite(root / "loop.suite.yaml", 24, wrong_every=6)
    flaky = {c.utterance for c in suite.cases[0:24:4]}  # a 500 the first time only
    wrong = {c.utterance for i, c in enumerate(suite.cases) if i % 6 == 5}  # always wrong
    with LoopbackNlu(first={u: ("500", 1) for u in flaky}) as server:
        first = subprocess.run(
            [sys.executable, "-m", "nlu_tui", "run", str(path), "-e", f"rasa:{server.url}",
             "--retries", "0", "--max-error-rate", "0.9"],
            capture_output=True, text=True, timeout=120, env={**os.environ},
        )  # fmt: skip
        assert first.returncode in (0, 1), first.stderr
        parent = first.stdout.split()[1].rstrip(":")
        sent_before = dict(server.counts)
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            await _wait_for(pilot, lambda: app.suite is not None)
            app.screen.query_one("#main-tabs").active = "tab-runs"
            await pilot.pause()
            await _wait_for(pilot, lambda: bool(app.screen_stack[1].query("#runs-table")))
            pane = app.screen_stack[1].query_one(RunsPane)
            await _wait_for(pilot, lambda: len(pane.history) == 1)
            pane.query_one("#runs-table").focus()
            await pilot.pause()
            await pilot.press("r")
            await _wait_for(pilot, lambda: any(s.finished for s in sessions(app).values()))
            child_id = next(iter(sessions(app)))
            store = store_for(app)
            child = store.get_run(child_id)
            assert child.options["rerun_of"] == parent and child.total == 10
            sent = {u: n - sent_before.get(u, 0) for u, n in server.counts.items()}
            assert {u for u, n in sent.items() if n} == flaky | wrong  # only those, once
            assert all(n in (0, 1) for n in sent.values())
            merged = merged_summary(store, child)
            assert (merged.cases, merged.errors, merged.fp + merged.fn) == (24, 0, 4)
            # the suites panel scores the suite with the merged result, line and sparkline
            panel = app.screen_stack[1].query_one(SuitesPanel)
            key = str(path.resolve())
            await _wait_for(pilot, lambda: panel.infos[key].last_f1 == merged.f1)
            await _wait_for(pilot, lambda: panel.sparks.get(key, [])[-1:] == [merged.f1])

            # the Results pane shows the child; its Trend tab: two runs, the wrong cases
            # failing since the parent, the flaky ones passed after failing
            results = app.screen_stack[1].query_one(ResultsPane)
            await _wait_for(pilot, lambda: results.run_id == child_id)
            results.query_one("#results-tabs", TabbedContent).active = "tab-res-trend"
            runs = results.query_one("#trend-runs", DataTable)
            await _wait_for(pilot, lambda: runs.row_count == 2)
            assert [row[1] for row in _cells(runs)] == [child_id, parent]
            metrics = str(results.query_one("#trend-metrics", Static).render())
            assert "F1" in metrics and f"{merged.f1:.4f}" in metrics
            cases = _cells(results.query_one("#trend-cases", DataTable))
            by_utterance = {row[3]: row for row in cases}
            for utterance in wrong:
                history, _id, status, _u = by_utterance[utterance]
                assert history == "FF" and status == f"failing since run {parent} (2 runs)"
            for utterance in flaky:
                history, _id, status, _u = by_utterance[utterance]
                assert history == "EP" and status == "flaky in 1 of 2"
