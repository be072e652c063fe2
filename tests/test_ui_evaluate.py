"""The workbench's Evaluate view (issue 12): the options of each mode, progress per unit with
times, cancel keeping finished folds, and the results (figures, per-intent report, confusion,
F1 curve) of the sample bot's training file, with the runs stored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from textual.widgets import DataTable, Input, Select, Static, TabbedContent
from ui_runs_support import wait_for
from ui_support import SIZE, make_workspace, new_app, settle

from nlu_tui.model import RunStatus
from nlu_tui.runsessions import store_for
from nlu_tui.ui.screens.evaluate import EvaluateScreen
from nlu_tui.ui.widgets.charts import Chart
from tests.conftest import SAMPLES

CONFIGS = ("embedded_default.config.yml", "embedded_words_nb.config.yml")


def _workspace(tmp_path: Path) -> Path:
    root = make_workspace(tmp_path, SAMPLES / "banking_bot.nlu.yml")
    for name in CONFIGS:
        shutil.copy(SAMPLES / name, root / name)
    return root


async def _open(app: Any, pilot: Any, root: Path) -> EvaluateScreen:
    await settle(pilot)
    screen = EvaluateScreen(root / "banking_bot.nlu.yml", root)
    await app.push_screen(screen)
    await settle(pilot)
    return screen


def _text(screen: EvaluateScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def _column(table: DataTable[Any], index: int) -> list[str]:
    return [str(table.get_row_at(i)[index]) for i in range(table.row_count)]


async def test_evaluate_split_then_cross_validation(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, root)
        screen.query_one("#eval-mode", Select).value = "split"
        await pilot.pause()
        screen.query_one("#eval-fraction", Input).value = "0.7"
        screen.action_start()
        await settle(pilot, rounds=8)
        assert "intent accuracy" in _text(screen, "#eval-text")
        table = screen.query_one("#eval-progress", DataTable)
        assert _column(table, 1) == ["done"]
        assert float(_column(table, 2)[0]) >= 0.0  # the unit's time, in seconds
        (split_run,) = store_for(app).list_runs()
        examples = len([e for e in (root / "banking_bot.nlu.yml").read_text().splitlines()
                        if e.strip().startswith("- ") and "intent:" not in e])  # fmt: skip
        assert split_run.total < 0.4 * examples  # 30 % of the examples tested, not 20 %
        # the per-intent report of the held-out test, with what each intent was confused with
        intents = screen.query_one("#eval-intents", DataTable)
        report = json.loads(
            (root / "results" / "banking_bot-split" / "intent_report.json").read_text()
        )
        names = _column(intents, 0)
        averages = ("micro avg", "macro avg", "weighted avg")
        assert [n for n in names if n not in averages] == sorted(
            k for k, v in report.items() if isinstance(v, dict) and not k.endswith(" avg")
        )
        assert names[-1] == "weighted avg"
        assert _column(intents, 3)[-1] == f"{report['weighted avg']['f1-score']:.3f}"

        screen.query_one("#eval-mode", Select).value = "cross-validation"
        await pilot.pause()
        screen.query_one("#eval-folds", Input).value = "3"
        screen.action_start()
        await settle(pilot, rounds=8)
        text = _text(screen, "#eval-text")
        assert "mean ± std over 3 folds" in text
        assert "Entity evaluation, embedded:annotated" in text
        assert _column(table, 0) == ["fold 1", "fold 2", "fold 3"]
        assert _column(table, 1) == ["done"] * 3
        # the per-fold table: the stored figures of each fold
        folds = screen.query_one("#eval-fold-table", DataTable)
        assert folds.display and _column(folds, 0) == ["1", "2", "3"]
        assert screen.query_one("#eval-tabs", TabbedContent).active == "eval-tab-figures"
        runs = store_for(app).list_runs()
        assert len(runs) == 2 and all(r.done == r.total for r in runs)
        cv_run = max(runs, key=lambda r: r.started_at)
        stored = [f"{f['test']['F1-score']:.4f}" for f in cv_run.summary["per_fold"]]
        assert _column(folds, 5) == stored
        cv_dir = root / "results" / "banking_bot-cross-validation"
        confusion = json.loads((cv_dir / "intent_confusion.json").read_text())
        shown = str(screen.query_one("#eval-confusion", Static).render())
        assert "Intent Confusion matrix" in shown
        # the diagonal of the file's matrix, as the numbered grid shows it
        diagonal = [row[i] for i, row in enumerate(confusion["matrix"])]
        for i, label in enumerate(confusion["labels"]):
            if label and diagonal[i]:
                line = next(x for x in shown.splitlines() if f" {label} " in f"{x} ")
                assert str(diagonal[i]) in line.split(label, 1)[1]


async def test_evaluate_comparison_options_progress_and_curve(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, root)
        visible = {
            w: screen.query_one(f"#{w}", Input).display
            for w in ("eval-fraction", "eval-folds", "eval-runs", "eval-percentages")
        }
        assert visible == {
            "eval-fraction": False,
            "eval-folds": True,
            "eval-runs": True,
            "eval-percentages": False,
        }
        screen.query_one("#eval-mode", Select).value = "comparison"
        await pilot.pause()
        assert not screen.query_one("#eval-folds", Input).display
        assert screen.query_one("#eval-percentages", Input).display
        assert screen.query_one("#eval-runs", Input).value == "3"  # Rasa's default
        # the workspace's configurations are offered
        assert screen.query_one("#eval-configs", Input).value.split() == list(CONFIGS)
        screen.query_one("#eval-runs", Input).value = "2"
        screen.query_one("#eval-percentages", Input).value = "0 50"
        screen.action_start()
        await settle(pilot, rounds=10)
        table = screen.query_one("#eval-progress", DataTable)
        assert table.row_count == 2 * 2 * 2  # runs x percentages x configs
        assert _column(table, 1) == ["done"] * 8
        assert "run 2 · 50% · embedded_words_nb.config" in _column(table, 0)
        assert screen.query_one("#eval-tabs", TabbedContent).active == "eval-tab-curve"
        out = root / "results" / "banking_bot-comparison"
        results = json.loads((out / "results.json").read_text())
        assert screen.outcome is not None and screen.outcome.results == results
        curve = str(screen.query_one("#eval-curve", Chart).render())
        for name in results:
            assert name in curve
        assert "●" in curve and "■" in curve
        examples = screen.outcome.examples
        assert all(str(n) in curve for n in examples)  # the x axis: training examples
        # one report per model; picking another shows its intents
        select = screen.query_one("#eval-report", Select)
        options = [str(label) for label, v in select._options if isinstance(v, str)]
        assert len(options) == 8
        assert "run_2 · 50%_exclusion · embedded_words_nb.config_report" in options
        intents = screen.query_one("#eval-intents", DataTable)
        last = options.index("run_2 · 50%_exclusion · embedded_words_nb.config_report")
        select.value = str(last)
        await settle(pilot)
        report = json.loads(
            (
                out / "run_2" / "50%_exclusion" / "embedded_words_nb.config_report"
                / "intent_report.json"
            ).read_text()
        )  # fmt: skip
        assert _column(intents, 3)[-1] == f"{report['weighted avg']['f1-score']:.3f}"
        (record,) = store_for(app).list_runs()
        assert record.kind == "nlu-comparison" and record.done == 8


async def test_evaluate_cancel_keeps_finished_folds(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, root)
        report = screen._progress

        def progress(key: str, state: str, seconds: float | None) -> None:
            report(key, state, seconds)
            if key == "fold 2" and state == "done":
                screen.action_cancel()  # as the Cancel button, while fold 3 waits

        screen._progress = progress  # type: ignore[method-assign]
        screen.query_one("#eval-folds", Input).value = "4"
        screen.action_start()
        await settle(pilot, rounds=8)
        table = screen.query_one("#eval-progress", DataTable)
        assert _column(table, 1) == ["done", "done"]
        assert screen.query_one("#eval-cancel").disabled
        (record,) = store_for(app).list_runs()
        assert record.status is RunStatus.CANCELED and 0 < record.done < record.total
        assert [f["fold"] for f in record.summary["per_fold"]] == [1, 2]
        assert "mean ± std over 2 folds" in _text(screen, "#eval-text")
        assert "canceled" in _text(screen, "#eval-text")


async def test_evaluate_bad_input_is_one_clear_message(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    (root / "broken.config.yml").write_text("classifier:\n  name: Transformer\n")
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, root)
        screen.query_one("#eval-folds", Input).value = "many"
        screen.action_start()
        await settle(pilot)
        assert store_for(app).list_runs() == []
        screen.query_one("#eval-folds", Input).value = "3"
        screen.query_one("#eval-configs", Input).value = "broken.config.yml"
        screen.action_start()
        await settle(pilot)
        text = _text(screen, "#eval-text")
        assert "broken.config.yml" in text and "unknown component 'Transformer'" in text
        assert screen.query_one("#eval-tabs", TabbedContent).active == "eval-tab-figures"
        assert store_for(app).list_runs() == []
        assert not (root / "results").exists()


async def test_cancel_key_works_from_an_option_field(tmp_path: Path) -> None:
    """Ctrl+K cancels even while an Input has the focus (where it would delete to the end)."""
    from nlu_tui.evaluation.service import Cancel

    root = _workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, root)
        folds = screen.query_one("#eval-folds", Input)
        folds.focus()
        folds.cursor_position = 0
        cancel = Cancel()
        screen._cancel = cancel  # an evaluation under way
        await pilot.press("ctrl+k")
        await pilot.pause()
        await wait_for(pilot, lambda: cancel.requested and folds.value == "5")
        assert cancel.requested and folds.value == "5"


async def test_jobs_train_folds_in_processes_from_the_workbench(tmp_path: Path) -> None:
    """The jobs field trains folds in worker processes (a fresh fork server, since the
    workbench runs threads) and gives the very figures one process gives."""
    root = _workspace(tmp_path)
    app = new_app(root)
    figures: dict[str, list[str]] = {}
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, root)
        assert screen.query_one("#eval-jobs", Input).display  # cross-validation shows it
        for jobs in ("1", "2"):
            screen.query_one("#eval-folds", Input).value = "3"
            screen.query_one("#eval-jobs", Input).value = jobs
            screen.action_start()
            await settle(pilot, rounds=12)
            table = screen.query_one("#eval-progress", DataTable)
            assert _column(table, 1) == ["done"] * 3, jobs
            figures[jobs] = _column(screen.query_one("#eval-fold-table", DataTable), 5)
        runs = store_for(app).list_runs()
        assert [r.options.get("jobs") for r in runs].count(2) <= 1  # stored as any run
        screen.query_one("#eval-mode", Select).value = "split"
        await pilot.pause()
        assert not screen.query_one("#eval-jobs", Input).display  # one unit: nothing to share
    assert figures["1"] == figures["2"] and len(figures["1"]) == 3
