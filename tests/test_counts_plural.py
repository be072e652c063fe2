"""Counts read right: "1 run", not "1 runs" (issue 23: the Trend tab said "1 runs")."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from test_ui_trend_snapshots import T0, TrendHost
from ui_runs_support import PaneApp, predictions_v1, screen_text, settle, small_suite

from nlu_tui.model import RunStatus
from nlu_tui.scoring import score_case
from nlu_tui.store import RunStore
from nlu_tui.trends import compute_trend
from nlu_tui.ui.widgets.results_trend import TrendTab
from nlu_tui.views.counts import counted
from nlu_tui.views.trend_text import trend_text


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


def test_counted_is_singular_for_one_only() -> None:
    assert [counted(n, "run") for n in (0, 1, 2)] == ["0 runs", "1 run", "2 runs"]
    assert counted(1, "test case") == "1 test case"
    assert counted(3, "analysis", "analyses") == "3 analyses"


def one_run(path: Path) -> tuple[RunStore, Any]:
    store = RunStore(path)
    suite = small_suite()
    store.create_run(suite, engine_name="bank-rasa", run_id="run000000001")
    items = [
        (i, p, score_case(c, p))
        for i, (c, p) in enumerate(zip(suite.cases, predictions_v1(), strict=True))
    ]
    store.add_results("run000000001", items)
    store.finish_run("run000000001", RunStatus.SUCCESS)
    with store._tx() as db:
        db.execute(
            "UPDATE runs SET started_at=?, finished_at=? WHERE id=?", (T0, T0 + 5, "run000000001")
        )
    return store, store.get_run("run000000001")


def test_trend_text_of_one_run_says_1_run(tmp_path: Path) -> None:
    store, last = one_run(tmp_path / "runs.sqlite3")
    text = trend_text(compute_trend(store, last.suite_path or last.suite_name))
    assert "1 run, oldest first" in text, text
    assert "1 runs" not in text and "1 cases" not in text, text


async def test_trend_tab_of_one_run_says_1_run(tmp_path: Path) -> None:
    store, last = one_run(tmp_path / "runs.sqlite3")
    app = PaneApp(TrendHost, store)
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(TrendTab).show_run(last)
        deadline = time.monotonic() + 60
        while "oldest first" not in screen_text(app) and time.monotonic() < deadline:
            await settle(pilot)
        text = screen_text(app)
        assert "Small: 1 run, oldest first" in text, text
        assert "1 runs" not in text, text
