"""The suites panel's last run (issue 10 item 6): the README's status icons, the F1 of the last
complete run, and a partial (canceled, interrupted) run marked as partial instead of
replacing that F1."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ui_runs_support import predictions_v1, screen_text, small_suite
from ui_support import SIZE, new_app, settle

from nlu_tui import paths
from nlu_tui.formats.native import dump_suite, load_suite
from nlu_tui.model import Prediction, RunStatus, Suite
from nlu_tui.scoring import score_case
from nlu_tui.store import RunStore
from nlu_tui.ui.widgets.suites_panel import SuitesPanel, last_run_text
from nlu_tui.workspace import last_runs_by_suite


def _run(
    store: RunStore, suite: Suite, preds: list[Prediction], status: RunStatus, upto: int
) -> str:
    record = store.create_run(suite, engine_name="test-engine")
    items = [
        (i, p, score_case(c, p))
        for i, (c, p) in enumerate(zip(suite.cases[:upto], preds[:upto], strict=True))
    ]
    store.add_results(record.id, items)
    store.finish_run(record.id, status, None if status is RunStatus.SUCCESS else "why")
    time.sleep(0.01)  # distinct start times: "newest first" is by start
    return record.id


def _suite_file(root: Path, name: str) -> Suite:
    suite = small_suite()
    suite.name = name
    path = root / f"{name.lower()}.suite.yaml"
    path.write_text(dump_suite(suite), encoding="utf-8")
    return load_suite(path)


def _ok(n: int) -> list[Prediction]:
    """Answers all right for the small suite's first cases (c1 balance, c2 transfer ...)."""
    preds = predictions_v1()
    return preds[:n]


async def test_panel_icons_follow_the_readme_and_partial_runs_keep_the_complete_f1(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    done = _suite_file(root, "Complete")  # 6 cases, one errors: success with warning
    canceled = _suite_file(root, "Canceled")
    interrupted = _suite_file(root, "Interrupted")
    with RunStore(paths.store_path()) as store:
        _run(store, done, _ok(6), RunStatus.SUCCESS_WITH_WARNING, 6)
        _run(store, canceled, _ok(6), RunStatus.SUCCESS_WITH_WARNING, 6)
        _run(store, canceled, _ok(6), RunStatus.CANCELED, 4)
        _run(store, interrupted, _ok(6), RunStatus.INTERRUPTED, 2)

    runs = last_runs_by_suite()
    complete = runs[str(done.path)]
    assert complete.status == "success_with_warning" and complete.partial is None
    assert complete.f1 is not None
    partial = runs[str(canceled.path)]
    assert partial.status == "canceled" and partial.partial == (4, 6)
    assert partial.f1 == complete.f1  # the last complete run's F1, not the 4/6 run's
    assert runs[str(interrupted.path)].f1 is None  # never completed: no F1 at all

    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.screen.query_one(SuitesPanel)
        infos: dict[str, Any] = {Path(k).name: v for k, v in panel.infos.items()}
        text = {name: last_run_text(info).plain for name, info in infos.items()}
        f1 = f"F1 {complete.f1:.2f}"
        assert text["complete.suite.yaml"] == f"⚠ {f1}"  # errors: a warning, never ✔
        assert text["canceled.suite.yaml"] == f"⚠ partial 4/6 {f1}"
        assert text["interrupted.suite.yaml"] == "⏸ partial 2/6"
        shown = screen_text(app)
        assert "✔" not in shown and "■" not in shown
        assert "⏸ partial 2/6" in shown
