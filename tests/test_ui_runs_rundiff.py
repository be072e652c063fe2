"""nlu_tui.rundiff: pairing two runs by case id, change kinds, F1 deltas and gates; the diff
screen's command-palette entries."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import DataTable
from ui_runs_support import predictions_v1, predictions_v2, stored_run, wait_for
from ui_support import SAMPLE, SIZE, make_workspace, new_app
from ui_support import settle as ui_settle

from nlu_tui.model import CaseResult, ExpectedIntent, Prediction, ResultType, TestCase
from nlu_tui.rundiff import (
    ChangeKind,
    IntentDelta,
    check_run_gates,
    classify_change,
    diff_runs,
    intent_f1_deltas,
)
from nlu_tui.runsessions import store_for
from nlu_tui.ui.screens.case_editor import CaseEditorScreen
from nlu_tui.ui.screens.main import MainScreen
from nlu_tui.ui.screens.run_diff import DiffScreen
from nlu_tui.ui.widgets.runs_pane import RunsPane


def res(cid: str, kind: str, intent: str | None, conf: float | None = 0.9) -> CaseResult:
    return CaseResult(cid, ResultType(kind), intent, conf)


def test_classify_change_each_kind() -> None:
    assert classify_change(res("a", "TP", "x"), res("a", "FP", "y")) is ChangeKind.BROKE
    assert classify_change(res("a", "TN", None), res("a", "ERROR", None)) is ChangeKind.BROKE
    assert classify_change(res("a", "FN", None), res("a", "TP", "x")) is ChangeKind.FIXED
    assert classify_change(res("a", "FP", "y"), res("a", "FP", "z")) is ChangeKind.INTENT_CHANGED
    moved = classify_change(res("a", "TP", "x", 0.9), res("a", "TP", "x", 0.6), 0.3)
    assert moved is ChangeKind.CONFIDENCE_CHANGED
    assert classify_change(res("a", "TP", "x", 0.9), res("a", "TP", "x", 0.85), 0.1) is None
    assert classify_change(res("a", "TP", "x", None), res("a", "TP", "x", 0.1)) is None


def test_diff_runs_pairs_by_id_and_lists_added_and_removed() -> None:
    cases = [TestCase("u1", id="a"), TestCase("u2", id="b"), TestCase("u3", id="c")]
    before = [res("a", "TP", "x"), res("b", "FN", None), res("gone", "TP", "x")]
    after = [res("b", "TP", "y"), res("a", "FP", "z"), res("c", "TP", "x")]
    diff = diff_runs(before, after, cases=cases, f1_before={"x": 1.0}, f1_after={"x": 0.5})
    assert [(c.case_id, c.kind) for c in diff.changes] == [
        ("b", ChangeKind.FIXED),
        ("a", ChangeKind.BROKE),
    ]
    assert diff.changes[1].utterance == "u1"
    assert diff.only_after == ["c"]
    assert diff.only_before == ["gone"]
    assert diff.counts() == {
        "broke": 1,
        "fixed": 1,
        "intent_changed": 0,
        "confidence_changed": 0,
    }
    assert diff.intent_deltas == [IntentDelta("x", 1.0, 0.5)]
    assert diff.intent_deltas[0].delta == pytest.approx(-0.5)


def test_confidence_delta_and_negative_threshold() -> None:
    diff = diff_runs([res("a", "TP", "x", 0.9)], [res("a", "TP", "x", 0.5)], threshold=0.2)
    assert diff.confidence_changed[0].confidence_delta == pytest.approx(-0.4)
    with pytest.raises(ValueError):
        diff_runs([], [], threshold=-1)


def test_intent_f1_deltas_orders_biggest_drop_first() -> None:
    deltas = intent_f1_deltas({"a": 0.9, "b": 0.5, "gone": 1.0}, {"a": 0.95, "b": 0.1, "new": 0.7})
    assert [d.intent for d in deltas] == ["b", "a", "gone", "new"]
    assert deltas[2].delta is None and deltas[3].f1_before is None


def test_gates_use_the_cli_thresholds_file(tmp_path: Path) -> None:
    cases = [
        TestCase("a", intents=[ExpectedIntent("x")], id="1"),
        TestCase("b", intents=[ExpectedIntent("y")], id="2"),
    ]
    good = [Prediction(intent="x", confidence=0.9), Prediction(intent="y", confidence=0.9)]
    bad = [Prediction(intent="x", confidence=0.9), Prediction(intent="x", confidence=0.9)]
    path = tmp_path / "thresholds.yml"
    path.write_text(
        "thresholds:\n  - {type: intent, threshold: 0}\n"
        "  - {type: intent, threshold: 0.9, comparison: absolute}\n",
        encoding="utf-8",
    )
    same = check_run_gates(
        list(zip(cases, good, strict=False)), list(zip(cases, good, strict=False)), path
    )
    assert [g.passed for g in same] == [True, True]
    worse = check_run_gates(
        list(zip(cases, good, strict=False)), list(zip(cases, bad, strict=False)), path
    )
    assert [g.passed for g in worse] == [False, False]
    assert worse[0].baseline > worse[0].current


async def _wait_for(pilot: Any, predicate: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for the app"
        await pilot.pause(0.05)


async def _open_diff(pilot: Any) -> DiffScreen:
    """Mark the first two runs of the Runs tab with space and press D (as a user does)."""
    app = pilot.app
    pane = app.screen_stack[1].query_one(RunsPane)
    app.screen.query_one("#main-tabs").active = "tab-runs"
    await pilot.pause()
    table = pane.query_one("#runs-table", DataTable)
    table.focus()
    pane.marked.clear()
    for row in (0, 1):
        table.move_cursor(row=row)
        await pilot.press("space")
    await pilot.press("D")
    await ui_settle(pilot)
    screen = app.screen
    assert isinstance(screen, DiffScreen)
    await _wait_for(pilot, lambda: screen.result is not None)
    assert screen.result is not None and screen.result.diff.changes
    return screen


async def _palette(pilot: Any, query: str, name: str) -> None:
    """Open the command palette, search for ``query`` and run the top hit, which must be
    the entry ``name``."""
    from textual.command import CommandInput, CommandList

    await pilot.press("ctrl+p")
    await pilot.pause()
    palette = pilot.app.screen
    palette.query_one(CommandInput).value = query
    hits = palette.query_one(CommandList)

    def top_hit() -> str:
        if hits.highlighted is None:
            return ""
        prompt = hits.get_option_at_index(hits.highlighted).prompt
        return prompt.plain if isinstance(prompt, Text) else str(prompt)

    await _wait_for(pilot, lambda: top_hit().startswith(name))
    await pilot.press("enter")
    await pilot.pause()
    await pilot.pause()


@pytest.mark.slow
async def test_diff_screen_lists_every_key_in_the_palette(tmp_path: Path) -> None:
    """Each binding of the diff screen has a "diff: Verb" palette entry doing what its key does."""
    app = new_app(make_workspace(tmp_path, SAMPLE))
    async with app.run_test(size=SIZE) as pilot:
        await ui_settle(pilot)
        assert app.suite is not None
        store = store_for(app)
        stored_run(store, app.suite, predictions_v1())
        time.sleep(0.01)
        stored_run(store, app.suite, predictions_v2())
        pane = app.screen_stack[1].query_one(RunsPane)
        pane.reload()
        await ui_settle(pilot)
        await _wait_for(pilot, lambda: len(pane.history) == 2)
        screen = await _open_diff(pilot)

        diff_names = [c.name for c in app.palette_commands() if c.name.startswith("diff: ")]
        assert diff_names == [
            "diff: Back",
            "diff: Set threshold…",
            "diff: Check gates…",
            "diff: Edit case",
        ]
        assert len(diff_names) == len(DiffScreen.BINDINGS)  # one entry per key

        # t / g and their entries focus the same field, from the real palette
        cases = screen.query_one("#diff-cases", DataTable)
        for key, query, name, field in (
            ("t", "diff thresh", "diff: Set threshold…", "diff-threshold"),
            ("g", "diff gates", "diff: Check gates…", "diff-gates-path"),
        ):
            cases.focus()
            await pilot.press(key)
            await pilot.pause()
            await wait_for(pilot, lambda f=field: app.focused is not None and app.focused.id == f)
            assert app.focused is not None and app.focused.id == field, key
            cases.focus()
            await pilot.pause()
            await _palette(pilot, query, name)
            assert app.screen is screen, query
            assert app.focused is not None and app.focused.id == field, query

        # e and "diff: Edit case" close the diff and open the same case in the editor
        edited = []
        for how in ("e", "diff edit"):
            cases.focus()
            cases.move_cursor(row=0)
            await pilot.pause()
            expected = cases.coordinate_to_cell_key(cases.cursor_coordinate).row_key.value
            if how == "e":
                await pilot.press("e")
                await pilot.pause()
            else:
                await _palette(pilot, how, "diff: Edit case")
            await ui_settle(pilot)
            editor = app.screen
            assert isinstance(editor, CaseEditorScreen), how
            assert DiffScreen not in {type(s) for s in app.screen_stack}, how
            assert editor.case is not None and editor.case.id == expected, how
            edited.append(editor.case.id)
            await pilot.press("escape")
            await ui_settle(pilot)
            await wait_for(pilot, lambda: not isinstance(app.screen, CaseEditorScreen))
            assert not isinstance(app.screen, CaseEditorScreen)
            screen = await _open_diff(pilot)
            cases = screen.query_one("#diff-cases", DataTable)
        assert edited[0] == edited[1]

        # escape and "diff: Back" both close the diff (not only the palette)
        await pilot.press("escape")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, MainScreen)
        await _open_diff(pilot)
        await _palette(pilot, "diff back", "diff: Back")
        assert isinstance(app.screen, MainScreen)
