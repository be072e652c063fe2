"""The Results tab's header while a run goes, at 80×24 (issue 23: at most 3 lines for the
header, the progress bar included; the bar used to add a fourth line under three of text).

A real live run against the loopback Rasa server, slow enough to be watched: the header says
what runs and the counts so far, the bar shares its line with done/total, rate and ETA."""

from __future__ import annotations

from pathlib import Path

from runner_loopback import LoopbackNlu
from test_ui_runs_flow import open_runs_tab, slow_profile, start_run, wait_for
from textual.widgets import ProgressBar
from ui_runs_support import screen_text
from ui_support import make_workspace, new_app

SMALL = (80, 24)


async def test_live_header_and_bar_take_at_most_three_lines_at_80x24(tmp_path: Path) -> None:
    from nlu_tui.ui.widgets.results_header import RunHeader
    from nlu_tui.ui.widgets.results_pane import ResultsPane

    root = make_workspace(tmp_path)
    with LoopbackNlu(latency=0.15) as server:
        slow_profile(root, server.url, concurrency=1)
        app = new_app(root)
        async with app.run_test(size=SMALL) as pilot:
            await open_runs_tab(pilot)
            session = await start_run(pilot)
            app.screen.query_one("#main-tabs").active = "tab-results"
            results = app.screen.query_one(ResultsPane)
            header = results.query_one(RunHeader)
            live = results.query_one("#results-live")
            bar = results.query_one("#results-progress", ProgressBar)

            def counting() -> bool:
                text = screen_text(app)
                return "TP " in text and "ETA" in text and (bar.progress or 0) >= 2

            await wait_for(pilot, counting, 60)
            assert not session.finished, "the run ended before it could be watched"
            text = screen_text(app)
            lines = text.splitlines()
            assert live.display and live.size.height == 1, text
            assert header.size.height + live.size.height <= 3, text
            # the three lines: what runs, the counts, the bar with how far
            top = header.region.y
            assert "▶ running" in lines[top], text
            assert "TP " in lines[top + 1] and "F1 " in lines[top + 1], text
            assert "ETA" in lines[top + 2] and "/54" in lines[top + 2], text
            assert live.region.y == top + 2, text
            session.cancel()  # no need to wait for the rest
            await wait_for(pilot, lambda: session.finished, 60)
