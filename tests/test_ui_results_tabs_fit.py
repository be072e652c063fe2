"""Every Results tab label shows at 80 columns (issue 23: with the suites panel, the tab bar
read "… Thresholds  Tre" and scrolled to reach the Trend tab). Read from the rendered screen;
the snapshot tests of the results tab (test_ui_tables_utterance.py) keep the picture."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_ui_tables_utterance import SIZES, show_sample_results
from ui_runs_support import screen_text
from ui_support import make_workspace, new_app

from nlu_tui.ui.widgets.results_pane import RESULT_TABS


@pytest.mark.parametrize("size", SIZES)
async def test_every_results_tab_label_shows(tmp_path: Path, size: tuple[int, int]) -> None:
    from textual.widgets import Tabs

    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=size) as pilot:
        pane = await show_sample_results(pilot)
        text = screen_text(app)
        assert "Suites (" in text  # with the suites panel shown
        line = next(row for row in text.splitlines() if "Per intent" in row)
        labels = [title for _id, title, _about in RESULT_TABS]
        for label in labels:
            assert label in line, line
        assert line.index(labels[-1]) > line.index(labels[0]), line
        tabs = pane.query_one("#results-tabs").query_one(Tabs)
        assert tabs.max_scroll_x == 0  # nothing to scroll to
