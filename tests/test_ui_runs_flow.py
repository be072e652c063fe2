"""The run loop in the real app: start a run from the Runs tab, follow it, cancel it, take
notes during and after, resume it, and diff two runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from runner_loopback import LoopbackNlu, write_suite
from ui_runs_support import history_shows, open_runs_tab, screen_text, settle, suite_of, wait_for
from ui_support import REPO, SAMPLE, SIZE, make_workspace, new_app

from nlu_tui.model import RunStatus
from nlu_tui.runsessions import sessions, store_for
from nlu_tui.ui.screens.dialogs import ConfirmDialog, NoteDialog
from nlu_tui.ui.screens.run_start import StartRunDialog
from nlu_tui.ui.widgets.results_pane import ResultsPane
from nlu_tui.ui.widgets.runs_pane import HISTORY_COLUMNS, RunsPane

TRAINING = SAMPLE.parent / "banking_bot.nlu.yml"
HISTORY_KEYS = [key for key, _ in HISTORY_COLUMNS]


def runs_pane(app: Any) -> RunsPane:
    return app.screen_stack[1].query_one(RunsPane)


def slow_profile(root: Path, url: str, concurrency: int | None = None) -> None:
    """An ``engines.yaml`` in the workspace with one Rasa profile, "slow", at ``url``."""
    extra = f"    concurrency: {concurrency}\n" if concurrency is not None else ""
    (root / "engines.yaml").write_text(
        f"engines:\n  slow:\n    type: rasa\n    url: {url}\n{extra}", encoding="utf-8"
    )


async def start_run(pilot: Any) -> Any:
    """From the Runs tab: ``r``, accept the preselected engine, wait for the session."""
    app = pilot.app
    await pilot.press("r")
    await pilot.pause()
    await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
    await pilot.pause()  # the screen pushed: composed and mounted
    assert isinstance(app.screen, StartRunDialog)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: bool(sessions(app)))
    return next(iter(sessions(app).values()))


def headless_run(workspace: Path, tmp_path: Path) -> dict[str, Any]:
    """``nlu-tui run`` on the same suite and engine, in its own store; its JSON report."""
    out = tmp_path / "headless.json"
    env_dir = tmp_path / "headless-data"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "nlu_tui",
            "run",
            str(workspace / SAMPLE.name),
            "--engine",
            "embedded",
            "--json",
            str(out),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "NLU_TUI_DATA_DIR": str(env_dir)},
    )
    assert proc.returncode == 0, proc.stderr
    return dict(json.loads(out.read_text(encoding="utf-8")))


@pytest.mark.slow
async def test_run_sample_suite_to_completion_matches_headless(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, SAMPLE, TRAINING)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_runs_tab(pilot)
        await pilot.press("r")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, StartRunDialog)
        await pilot.press("ctrl+s")  # the embedded engine beside the suite is preselected
        await wait_for(pilot, lambda: any(s.finished for s in sessions(app).values()), 120)
        await settle(pilot)
        session = next(iter(sessions(app).values()))
        assert session.status is RunStatus.SUCCESS, session.record
        results = app.screen.query_one(ResultsPane)
        await wait_for(pilot, lambda: results.data is not None)
        data = results.data
        assert data is not None
        f1 = f"F1 {data.summary.f1:.4f}"
        # The view repaints after its data arrives: wait for the line (up to 10 s under load).
        await wait_for(pilot, lambda: f1 in screen_text(app), 10)
        assert len(pane.history) == 1

    headless = headless_run(root, tmp_path)["summary"]
    summary = data.summary
    for key in ("cases", "tp", "tn", "fp", "fn", "errors"):
        assert getattr(summary, key) == headless[key], key
    for key in ("precision", "recall", "f1", "intent_success", "entity_success"):
        assert getattr(summary, key) == pytest.approx(headless[key]), key

    # the last choice is remembered for the next start
    from nlu_tui.engines.choices import load_last_choice

    last = load_last_choice(str((root / SAMPLE.name).resolve()))
    assert last is not None and last.engine.startswith("embedded:")


@pytest.mark.slow
async def test_cancel_mid_run_with_note_during_and_after_then_resume(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    write_suite(root / "slow.suite.yaml", 300)
    with LoopbackNlu(latency=0.25) as server:
        slow_profile(root, server.url, concurrency=2)
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_runs_tab(pilot)
            session = await start_run(pilot)  # the "slow" profile is the only choice
            await wait_for(pilot, lambda: session.event is not None and session.event.done >= 4)
            assert "▶ running" in screen_text(app)

            # the Results tab follows the run; a note while it runs, from there
            results = app.screen.query_one(ResultsPane)
            assert results.session is session
            await wait_for(pilot, lambda: results.table.view_count >= 4)  # rows stream in
            newest = results.table.column_values("n")
            assert newest == sorted(newest, reverse=True)  # newest first while it runs
            results.table.data_table.focus()
            await pilot.press("n")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, NoteDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            assert isinstance(app.screen, NoteDialog)
            await pilot.press(*"during")
            await wait_for(pilot, lambda: "6 / 1024" in screen_text(app))
            assert "6 / 1024" in screen_text(app)
            await pilot.press("ctrl+s")
            await pilot.pause()
            await wait_for(pilot, lambda: store_for(app).get_run(session.run_id).note == "during")
            assert store_for(app).get_run(session.run_id).note == "during"
            assert not session.finished

            # cancel: escape asks, "y" confirms
            await pilot.press("escape")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            assert isinstance(app.screen, ConfirmDialog)
            await pilot.press("y")
            await wait_for(pilot, lambda: session.finished, 20)
            await settle(pilot)
            record = store_for(app).get_run(session.run_id)
            assert record.status is RunStatus.CANCELED
            assert 0 < record.done < 300
            assert len(store_for(app).load_results(record.id)) == record.done
            await wait_for(pilot, lambda: "⚠ canceled" in screen_text(app), 20)

            # a note after the run, from the history
            app.screen.query_one("#main-tabs").active = "tab-runs"
            await pilot.pause()
            table = pane.query_one("#runs-table")
            table.focus()
            await pilot.press("n")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, NoteDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            assert isinstance(app.screen, NoteDialog)
            await pilot.press("end", *" and after")
            await pilot.press("ctrl+s")
            await settle(pilot)
            await wait_for(
                pilot, lambda: store_for(app).get_run(record.id).note == "during and after"
            )
            assert store_for(app).get_run(record.id).note == "during and after"
            await wait_for(pilot, lambda: "during and after" in screen_text(app), 20)

            # resume: only the missing cases are sent, and the run completes
            server.latency = 0.0
            sent_before = sum(server.counts.values())
            await pilot.press("u")
            await wait_for(pilot, lambda: sessions(app).get(record.id) not in (None, session))
            resumed = sessions(app)[record.id]
            await wait_for(pilot, lambda: resumed.finished, 60)
            await settle(pilot)
            final = store_for(app).get_run(record.id)
            assert final.status is RunStatus.SUCCESS
            assert final.done == 300
            assert sum(server.counts.values()) - sent_before <= 300 - record.done + 2


@pytest.mark.slow
async def test_live_view_says_the_engine_opens_before_cases_flow(tmp_path: Path) -> None:
    """While the engine opens (a slow probe here) the Results view and the Runs tab's progress
    panel say "connecting to the engine…" with the elapsed time, not a stuck 0/N at 0.0/s;
    then the usual progress."""
    from textual.widgets import Static

    root = tmp_path / "ws"
    root.mkdir()
    write_suite(root / "slow.suite.yaml", 20)
    with LoopbackNlu(version_latency=3.0) as server:
        slow_profile(root, server.url)
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_runs_tab(pilot)
            session = await start_run(pilot)
            results = app.screen.query_one(ResultsPane)
            await wait_for(pilot, lambda: "connecting to the engine…  elapsed" in screen_text(app))
            assert results.session is session and session.event is not None
            assert session.event.opening and not session.rows
            shown = screen_text(app)
            assert "▶ running" in shown and "0/20" not in shown and "0.0/s" not in shown
            panel = pane.query_one("#progress-text", Static)
            assert str(panel.render()).startswith("connecting to the engine…  elapsed")

            await wait_for(pilot, lambda: session.finished, 30)
            await settle(pilot)
            assert session.status is RunStatus.SUCCESS
            # the view redraws on its next tick (4 Hz), then shows the stored run once loaded
            await wait_for(pilot, lambda: "connecting to the engine" not in screen_text(app), 10)
            await wait_for(pilot, lambda: "✔ success" in screen_text(app), 10)
            assert "connecting to the engine" not in screen_text(app)


@pytest.mark.slow
async def test_resumed_run_live_view_starts_from_its_stored_results(tmp_path: Path) -> None:
    """Resuming a canceled run: the live table, counts and progress start from the earlier
    part (loaded off the UI thread), grow as new results stream in, and end equal to the core's
    summary of every stored result."""
    from textual.widgets import ProgressBar

    from nlu_tui.scoring import summarize

    root = tmp_path / "ws"
    root.mkdir()
    write_suite(root / "slow.suite.yaml", 200, wrong_every=3)
    with LoopbackNlu(latency=0.2) as server:
        slow_profile(root, server.url, concurrency=2)
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_runs_tab(pilot)
            session = await start_run(pilot)
            await wait_for(pilot, lambda: session.event is not None and session.event.done >= 10)

            # cancel part way, from the Results tab: escape asks, "y" confirms
            results = app.screen.query_one(ResultsPane)
            results.table.focus_table()
            await pilot.press("escape")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            assert isinstance(app.screen, ConfirmDialog)
            await pilot.press("y")
            await wait_for(pilot, lambda: session.finished, 20)
            await settle(pilot)
            store = store_for(app)
            record = store.get_run(session.run_id)
            assert record.status is RunStatus.CANCELED
            earlier = record.done
            assert 10 <= earlier < 200
            stored_ids = {r.case_id for _, _, r in store.load_results(record.id)}

            # resume from the Runs tab; the engine takes a while to open, then answers slowly
            server.version_latency = 4.0
            app.screen.query_one("#main-tabs").active = "tab-runs"
            await pilot.pause()
            pane.query_one("#runs-table").focus()
            await pilot.pause()
            await pilot.press("u")
            await wait_for(pilot, lambda: sessions(app).get(record.id) not in (None, session))
            resumed = sessions(app)[record.id]
            first = resumed.progress()
            assert first is not None and (first.done, first.total) == (earlier, 200)

            # before any new result: the earlier rows, counts and progress are there already
            await wait_for(
                pilot,
                lambda: results.session is resumed and results.table.view_count == earlier,
                10,
            )
            # the engine is still opening: nothing new yet, what shows is the earlier part
            progress = resumed.progress()
            assert progress is not None and progress.done == earlier
            assert len(resumed.rows) == resumed.seed_count == earlier
            assert set(results.table.column_values("case_id")) == stored_ids
            bar = results.query_one("#results-progress", ProgressBar)
            assert (bar.progress, bar.total) == (earlier, 200)
            assert pane.query_one("#run-progress-bar", ProgressBar).progress == earlier
            # its stored count, and what the run is doing meanwhile
            opening = f"{earlier}/200  connecting to the engine…"
            await wait_for(pilot, lambda: opening in screen_text(app), 5)
            assert f"TP {record.tp}  TN {record.tn}" in screen_text(app)

            # new results stream in on top of them
            await wait_for(
                pilot,
                lambda: (
                    resumed.event is not None
                    and resumed.event.done >= earlier + 6
                    and results.table.view_count >= earlier + 6
                ),
                30,
            )
            assert not resumed.finished
            streamed = len(resumed.rows) - resumed.seed_count
            assert 6 <= streamed < 200 - earlier
            shown = results.table.column_values("case_id")
            assert len(shown) > streamed  # not only this resume's results
            assert len(set(shown)) == len(shown)  # each case once
            assert stored_ids <= set(shown)
            assert bar.progress >= earlier + 6
            newest = results.table.column_values("n")
            assert newest == sorted(newest, reverse=True)

            server.latency = 0.0
            await wait_for(pilot, lambda: resumed.finished, 60)
            final_event = resumed.event
            assert final_event is not None and final_event.final
            await settle(pilot)
            final = store.get_run(record.id)
            assert final.status is RunStatus.SUCCESS and final.done == 200
            summary = summarize(r for _, _, r in store.load_results(record.id))
            live = (
                final_event.done,
                final_event.tp,
                final_event.tn,
                final_event.fp,
                final_event.fn,
                final_event.errors,
            )
            assert live == (
                summary.cases,
                summary.tp,
                summary.tn,
                summary.fp,
                summary.fn,
                summary.errors,
            )
            assert final_event.f1 == pytest.approx(summary.f1)
            assert len(resumed.rows) == len(resumed.by_id) == 200
            counted = summarize(r for _, _, r in resumed.rows)
            assert (counted.cases, counted.tp, counted.fp, counted.fn) == (
                summary.cases,
                summary.tp,
                summary.fp,
                summary.fn,
            )


def test_session_seed_keeps_each_case_once() -> None:
    """Stored rows go first; a case both stored and streamed is kept once."""
    from runner_loopback import make_suite

    from nlu_tui.model import Prediction
    from nlu_tui.runner.events import ProgressEvent
    from nlu_tui.runsessions import RunSession
    from nlu_tui.scoring import score_case

    cases = make_suite(4).cases
    rows = [(c, Prediction(None, None), score_case(c, Prediction(None, None))) for c in cases]
    session = RunSession(
        run=None,  # type: ignore[arg-type]
        suite_key="s",
        suite_name="s",
        engine_name="e",
        stage="development",
        total=4,
        seeded=False,
    )
    event = ProgressEvent("r", 3, 4, 1.0, 1.0, 1.0, 0, 0, 0, 0, 0, 0.0, 0.0, 0.0, latest=rows[1:3])
    session.on_progress(event)
    session.on_progress(event)  # the same rows again are not added twice
    assert [r[2].case_id for r in session.rows] == ["c00001", "c00002"]
    generation = session.generation
    session.seed(rows[:2], None)
    assert session.seeded and session.generation == generation + 1
    assert [r[2].case_id for r in session.rows] == ["c00000", "c00001", "c00002"]
    assert session.seed_count == 2
    assert session.by_id["c00001"] is rows[1]


@pytest.mark.slow
async def test_diff_two_runs_from_history(tmp_path: Path) -> None:
    from ui_runs_support import predictions_v1, predictions_v2, stored_run

    from nlu_tui.rundiff import ChangeKind
    from nlu_tui.ui.screens.run_diff import DiffScreen

    root = make_workspace(tmp_path, SAMPLE)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_runs_tab(pilot)
        store = store_for(app)
        suite = suite_of(app)
        first = stored_run(store, suite, predictions_v1())
        time.sleep(0.01)
        second = stored_run(store, suite, predictions_v2())
        await history_shows(pilot, pane, 2)
        table = pane.query_one("#runs-table")
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("space")
        table.move_cursor(row=1)
        await pilot.press("space")
        await wait_for(pilot, lambda: sorted(pane.marked) == sorted([first, second]))
        assert sorted(pane.marked) == sorted([first, second])
        await pilot.press("D")
        await settle(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        assert (screen.before_id, screen.after_id) == (first, second)
        await wait_for(pilot, lambda: screen.result is not None)
        assert screen.result is not None
        diff = screen.result.diff
        assert [c.case_id for c in diff.broke] == ["c1"]
        assert [c.case_id for c in diff.fixed] == ["c3"]
        assert [c.case_id for c in diff.of_kind(ChangeKind.CONFIDENCE_CHANGED)] == ["c2"]
        text = screen_text(app)
        assert "broke 1" in text and "fixed 1" in text

        # gates from a thresholds file, as `nlu-tui run --thresholds` checks them
        gates = tmp_path / "gates.yml"
        gates.write_text("thresholds:\n  - {type: intent, threshold: 0}\n", encoding="utf-8")
        await pilot.press("g")
        from textual.widgets import Input

        box = screen.query_one("#diff-gates-path", Input)
        box.value = str(gates)
        await pilot.press("enter")
        await settle(pilot)
        await wait_for(pilot, lambda: screen.result is not None and screen.result.gates is not None)
        assert screen.result.gates is not None and len(screen.result.gates) == 1
        assert "Gates:" in screen_text(app)
        await pilot.press("escape", "escape")
        await pilot.pause()
        await wait_for(pilot, lambda: not isinstance(app.screen, DiffScreen))
        assert not isinstance(app.screen, DiffScreen)


@pytest.mark.slow
async def test_problems_first_second_run_asks_history_sort_and_delete(tmp_path: Path) -> None:
    from runner_loopback import make_suite
    from textual.widgets import DataTable
    from ui_runs_support import predictions_v1, predictions_v2, small_suite, stored_run

    from nlu_tui.formats.native import dump_suite
    from nlu_tui.model import ExpectedEntity, ValueKind

    root = tmp_path / "ws"
    root.mkdir()
    suite = make_suite(40, name="Flaky")
    suite.cases[0].entities = [ExpectedEntity("x", "(", kind=ValueKind.REGEX)]
    (root / "flaky.suite.yaml").write_text(dump_suite(suite), encoding="utf-8")
    with LoopbackNlu(latency=0.3) as server:
        slow_profile(root, server.url, concurrency=1)
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_runs_tab(pilot)
            await pilot.press("f5")  # (r on a listed run reruns its failures)
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            assert isinstance(app.screen, ConfirmDialog)  # the validation problems come first
            assert "validation problem" in screen_text(app)
            await pilot.press("y")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            assert isinstance(app.screen, StartRunDialog)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: bool(sessions(app)))
            session = next(iter(sessions(app).values()))

            # a second run of the same suite on the same engine asks first; "n" keeps one
            app.screen.query_one("#main-tabs").active = "tab-runs"
            await pilot.pause()
            pane.query_one("#runs-table").focus()
            await pilot.press("f5")  # r would rerun the listed run's failures (it has none)
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            await pilot.press("y")  # past the validation problems again
            await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            await pilot.press("ctrl+s")
            # under load the question may take a moment: wait for it, or for a second run
            await wait_for(
                pilot, lambda: isinstance(app.screen, ConfirmDialog) or len(sessions(app)) > 1
            )
            assert isinstance(app.screen, ConfirmDialog)
            assert "already running" in screen_text(app)
            await pilot.press("n")
            await pilot.pause()
            assert len(sessions(app)) == 1
            session.cancel()
            await wait_for(pilot, lambda: session.finished, 20)

            # history: two more runs, sorted by F1 both ways, then one deleted
            store = store_for(app)
            small = small_suite()
            small.name = "Flaky"
            worse = stored_run(store, small, predictions_v1())
            better = stored_run(store, small, predictions_v2())
            await history_shows(pilot, pane, 3)
            table = pane.query_one("#runs-table", DataTable)

            def column(key: str) -> list[str]:
                return [str(table.get_row(k)[HISTORY_KEYS.index(key)]) for k in table.rows]

            pane.sort_by("f1")
            f1s = [float(v) for v in column("f1")]
            assert f1s == sorted(f1s)
            pane.sort_by("f1", descending=True)
            assert [float(v) for v in column("f1")] == sorted(f1s, reverse=True)
            assert {worse, better} <= {str(k.value) for k in table.rows}

            table.focus()
            table.move_cursor(row=table.get_row_index(worse))
            await pilot.press("delete")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            assert isinstance(app.screen, ConfirmDialog)
            await pilot.press("y")
            await settle(pilot)
            await wait_for(pilot, lambda: store.find_run(worse) is None)
            assert store.find_run(worse) is None
            await wait_for(pilot, lambda: len(pane.history) == 2)


async def test_enter_in_the_runs_table_opens_the_results(tmp_path: Path) -> None:
    """The Runs tab's title says "enter: results": Enter on the history row (the DataTable
    has focus, and consumes Enter as its own select key) opens that run in Results, as `o` does."""
    from ui_runs_support import predictions_v1, stored_run

    root = make_workspace(tmp_path, SAMPLE)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_runs_tab(pilot)
        store = store_for(app)
        suite = suite_of(app)
        run_id = stored_run(store, suite, predictions_v1())
        await history_shows(pilot, pane, 1)
        assert "enter: results" in screen_text(app)
        table = pane.query_one("#runs-table")
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("enter")
        await settle(pilot)
        await wait_for(pilot, lambda: app.screen.query_one("#main-tabs").active == "tab-results")
        assert app.screen.query_one("#main-tabs").active == "tab-results"
        results = app.screen.query_one(ResultsPane)
        await wait_for(pilot, lambda: results.data is not None)
        assert results.data is not None and results.data.record.id == run_id
