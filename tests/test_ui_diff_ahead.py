"""``D`` in the Runs tab (issue 23, item 5: fast keys): the diff of the selected run with the
one before is computed ahead, while the cursor rests on it, and shown in the screen's first
frame; a diff computed for another pair, or before the runs changed, is never shown."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import DataTable
from ui_runs_support import predictions_v1, predictions_v2, stored_run, wait_for
from ui_support import SIZE, make_workspace, new_app, settle

from nlu_tui.cli.main import run as cli
from nlu_tui.rundiff import DEFAULT_CONFIDENCE_THRESHOLD, compute_diff
from nlu_tui.runsessions import store_for
from nlu_tui.ui.reuse import spare
from nlu_tui.ui.screens.run_diff import KIND_LABEL, DiffScreen
from nlu_tui.ui.widgets.runs_pane import RunsPane


async def _three_runs(pilot: Any) -> tuple[RunsPane, list[str]]:
    """Three finished runs of the open suite (v1, v2, v1), the Runs tab shown, the diff
    screen built ahead; returns the pane and the run ids, oldest first."""
    app = pilot.app
    await settle(pilot)
    assert app.suite is not None
    store = store_for(app)
    ids = []
    for predictions in (predictions_v1(), predictions_v2(), predictions_v1()):
        ids.append(stored_run(store, app.suite, predictions))
        time.sleep(0.01)  # distinct start times: the runs' order
    app.screen.query_one("#main-tabs").active = "tab-runs"
    pane = app.screen_stack[1].query_one(RunsPane)
    pane.reload()
    await wait_for(pilot, lambda: len(pane.history) == 3 and spare(app, DiffScreen) is not None)
    await settle(pilot)
    return pane, ids


def _select(pane: RunsPane, run_id: str) -> None:
    table = pane.query_one("#runs-table", DataTable)
    row = next(n for n in range(table.row_count) if pane_row_id(pane, n) == run_id)
    table.move_cursor(row=row)
    table.focus()


def pane_row_id(pane: RunsPane, row: int) -> str | None:
    table = pane.query_one("#runs-table", DataTable)
    key = table.coordinate_to_cell_key((row, 0)).row_key.value
    return None if key is None else str(key)


async def _press_d(pilot: Any) -> DiffScreen:
    """Post ``D`` as the terminal does; the diff screen as soon as it is on top (before any
    further pause, so what its first frame holds can be checked)."""
    app = pilot.app
    app.post_message(events.Key("D", "D"))
    deadline = time.monotonic() + 60
    while not isinstance(app.screen, DiffScreen):
        assert time.monotonic() < deadline, "D opened no diff screen"
        await asyncio.sleep(0.001)
    return app.screen


@pytest.mark.slow
async def test_d_shows_the_diff_computed_ahead_in_its_first_frame(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the cursor resting on the newest run, its diff with the run before is computed
    ahead: ``D`` shows its figures at once, the same the core and ``nlu-tui diff`` give."""
    app = new_app(make_workspace(tmp_path), prebuild=True)
    async with app.run_test(size=SIZE) as pilot:
        pane, ids = await _three_runs(pilot)
        _select(pane, ids[2])
        await wait_for(pilot, lambda: pane._diff_ahead is not None)
        await wait_for(pilot, lambda: pane._diff_ahead.key[:2] == (ids[1], ids[2]))  # type: ignore[union-attr]
        await settle(pilot)

        screen = await _press_d(pilot)
        # on top and not one frame later: the figures are there already
        assert screen.result is not None, "D computed the diff after showing the screen"
        assert (screen.result.before.record.id, screen.result.after.record.id) == (
            ids[1],
            ids[2],
        )
        core = compute_diff(store_for(app), ids[1], ids[2], DEFAULT_CONFIDENCE_THRESHOLD, None)
        counts = core.diff.counts()
        assert screen.result.diff.counts() == counts
        assert sum(counts.values()) > 0  # v2 -> v1 changes cases
        await settle(pilot)
        header = str(screen.query_one("#diff-header").render())
        for kind, (label, _style) in KIND_LABEL.items():
            assert f"{label} {counts[kind.value]}" in header, header
        cases = screen.query_one("#diff-cases", DataTable)
        assert cases.row_count == len(core.diff.changes)

    # the command line prints the same counts
    capsys.readouterr()
    assert cli(["diff", ids[1], ids[2]]) == 0
    out = capsys.readouterr().out
    line = ", ".join(f"{kind.replace('_', ' ')} {n}" for kind, n in counts.items())
    assert line in out, out


@pytest.mark.slow
async def test_d_on_a_fresh_pair_never_shows_the_diff_computed_for_another(
    tmp_path: Path,
) -> None:
    """The diff computed ahead for (run 2, run 3): the cursor moves to run 2 and ``D`` comes at
    once, before anything is computed for (run 1, run 2): the screen shows run 1 with run 2,
    computed after its first frame. And once the runs change (a note edited), a diff computed
    before is not shown either."""
    app = new_app(make_workspace(tmp_path), prebuild=True)
    async with app.run_test(size=SIZE) as pilot:
        pane, ids = await _three_runs(pilot)
        _select(pane, ids[2])
        await wait_for(pilot, lambda: pane._diff_ahead is not None)
        await wait_for(pilot, lambda: pane._diff_ahead.key[:2] == (ids[1], ids[2]))  # type: ignore[union-attr]
        await settle(pilot)

        _select(pane, ids[1])
        screen = await _press_d(pilot)
        assert (screen.before_id, screen.after_id) == (ids[0], ids[1])
        assert screen.result is None or screen.result.after.record.id == ids[1]
        await wait_for(pilot, lambda: screen.result is not None)
        assert screen.result is not None
        assert (screen.result.before.record.id, screen.result.after.record.id) == (
            ids[0],
            ids[1],
        )
        assert ids[2] not in str(screen.query_one("#diff-header").render())
        await pilot.press("escape")
        await settle(pilot)

        # back on run 3 with its diff computed ahead; then its note changes in the store
        _select(pane, ids[2])
        await wait_for(pilot, lambda: pane._diff_ahead is not None)
        await wait_for(pilot, lambda: pane._diff_ahead.key[:2] == (ids[1], ids[2]))  # type: ignore[union-attr]
        await settle(pilot)
        ahead = pane._diff_ahead
        store_for(app).set_note(ids[2], "a note written meanwhile")
        pane.reload()
        await wait_for(pilot, lambda: any(r.record.note for r in pane.history))
        _select(pane, ids[2])
        screen = await _press_d(pilot)
        assert screen.result is None or screen.result is not ahead.result  # type: ignore[union-attr]
        await wait_for(pilot, lambda: screen.result is not None)
        assert screen.result is not None
        assert screen.result.after.record.note == "a note written meanwhile"


@pytest.mark.slow
async def test_nothing_is_diffed_ahead_while_the_runs_tab_is_hidden(tmp_path: Path) -> None:
    """The runs' history is read with the Cases tab shown (start-up): no diff is computed
    then; it is once the Runs tab is shown."""
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.suite is not None
        store = store_for(app)
        for predictions in (predictions_v1(), predictions_v2()):
            stored_run(store, app.suite, predictions)
            time.sleep(0.01)
        pane = app.screen_stack[1].query_one(RunsPane)
        assert app.screen.query_one("#main-tabs").active == "tab-cases"
        pane.reload()
        await wait_for(pilot, lambda: len(pane.history) == 2)
        deadline = time.monotonic() + 1.0  # well past the cursor's rest (0.15 s)
        while time.monotonic() < deadline:
            await settle(pilot)
            await pilot.pause(0.05)
        assert pane._diff_ahead is None
        app.screen.query_one("#main-tabs").active = "tab-runs"
        await wait_for(pilot, lambda: pane._diff_ahead is not None)
