"""Dialogs built once in idle time and refilled on each use (issue 23, item 5: fast keys).

The case editor is built after the first screen (``NluTuiApp.prebuild_dialogs``) and each
``e``/``a`` refills it: these tests check that it is that one instance, that nothing of one case
(fields, entity rows, problems, edits) shows in the next, and that keys typed right behind the
key that opens it still land in it.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from textual.widgets import Input, Select, TextArea
from ui_runs_support import wait_for
from ui_support import SIZE, cases_view, make_workspace, new_app, settle

from nlu_tui.case_form import CaseForm, form_from_case
from nlu_tui.ui.reuse import spare
from nlu_tui.ui.screens.case_editor import CaseEditorScreen
from nlu_tui.ui.widgets.entity_row import EntityRowWidget

REGEX_CASE = "4c8abee9a7ff"  # transfer $75 to Priya: three entities, an order, two tags
PLAIN_CASE = "9469054892a7"  # yo how much cash have i got: no entities, one tag


async def _built_editor(pilot: Any) -> CaseEditorScreen:
    """The editor built in idle time (polled with a generous deadline: a loaded machine)."""
    await settle(pilot)
    deadline = time.monotonic() + 60
    while (editor := spare(pilot.app, CaseEditorScreen)) is None:
        assert time.monotonic() < deadline, "the case editor was never built ahead"
        await asyncio.sleep(0.02)
    return editor


async def _open(pilot: Any, case_id: str | None) -> CaseEditorScreen:
    view = cases_view(pilot.app)
    if case_id is None:
        view.action_add()
    else:
        view.edit_case(case_id)
    await pilot.pause()
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CaseEditorScreen))
    await pilot.pause()  # the screen pushed: composed and mounted
    editor = pilot.app.screen
    assert isinstance(editor, CaseEditorScreen)
    return editor


def _shown_rows(editor: CaseEditorScreen) -> list[EntityRowWidget]:
    return [row for row in editor.query(EntityRowWidget) if row.display]


async def test_the_editor_is_built_once_and_shows_only_the_case_it_was_opened_on(
    tmp_path: Path,
) -> None:
    app = new_app(make_workspace(tmp_path), prebuild=True)
    async with app.run_test(size=SIZE) as pilot:
        built = await _built_editor(pilot)
        suite = cases_view(app).suite
        by_id = {case.id: case for case in suite.cases}

        editor = await _open(pilot, REGEX_CASE)
        assert editor is built
        assert editor.read_form() == form_from_case(by_id[REGEX_CASE])
        assert [row.value().name for row in _shown_rows(editor)] == [
            "amount",
            "payee",
            "account_type",
        ]
        assert app.focused is editor.query_one("#utterances", TextArea)
        # leave edits behind: a typed tag, an extra entity row, a kind; then discard them
        editor.query_one("#tags", Input).value = "left-over"
        editor.query_one("#kind", Select).value = "dialog"
        await pilot.press("ctrl+n")
        await pilot.pause()
        await wait_for(pilot, lambda: len(_shown_rows(editor)) == 4)
        assert len(_shown_rows(editor)) == 4
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("y")  # discard
        await settle(pilot)
        await wait_for(pilot, lambda: not isinstance(app.screen, CaseEditorScreen))
        assert not isinstance(app.screen, CaseEditorScreen)

        editor = await _open(pilot, PLAIN_CASE)
        assert editor is built
        assert editor.read_form() == form_from_case(by_id[PLAIN_CASE])
        assert _shown_rows(editor) == []
        assert not editor.query_one("#entity-labels").display
        assert editor.query_one("#tags", Input).value == "hard"
        assert not editor.edited
        assert "left-over" not in str(editor.query_one("#problems").render())
        assert "Edit case" in str(editor.query_one("#title").render())
        assert app.focused is editor.query_one("#utterances", TextArea)
        await pilot.press("escape")
        await settle(pilot)

        editor = await _open(pilot, None)  # "add": an empty form
        assert editor is built
        assert editor.read_form() == CaseForm()
        assert "Add cases" in str(editor.query_one("#title").render())


async def test_a_refilled_editor_saves_the_case_as_edited(tmp_path: Path) -> None:
    """The rows kept hidden between uses are never saved; shown ones are, in their order."""
    app = new_app(make_workspace(tmp_path), prebuild=True)
    async with app.run_test(size=SIZE) as pilot:
        built = await _built_editor(pilot)
        editor = await _open(pilot, PLAIN_CASE)
        assert editor is built
        await pilot.press("escape")
        await settle(pilot)
        editor = await _open(pilot, REGEX_CASE)
        rows = _shown_rows(editor)
        rows[1].query(Input).first().value = "recipient"
        editor.query_one("#order", Input).value = "amount, recipient, account_type"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        await wait_for(pilot, lambda: not isinstance(app.screen, CaseEditorScreen))
        assert not isinstance(app.screen, CaseEditorScreen)
        saved = next(c for c in cases_view(app).suite.cases if c.id == REGEX_CASE)
        assert [e.name for e in saved.entities] == ["amount", "recipient", "account_type"]


async def test_keys_typed_behind_e_land_in_the_built_editor(tmp_path: Path) -> None:
    """The built editor is on top and focused at once; the keys the cases table read before
    it was (they come back up unused) are typed into it, in order."""
    from textual import events

    app = new_app(make_workspace(tmp_path), prebuild=True)
    async with app.run_test(size=SIZE) as pilot:
        built = await _built_editor(pilot)
        await pilot.press("f3")
        await settle(pilot)
        for key in "esent":
            app.post_message(events.Key(key, key))
        await settle(pilot)
        assert app.screen is built
        assert built.query_one("#utterances", TextArea).text.endswith("sent")


async def test_the_generate_dialog_is_built_once_and_starts_afresh(tmp_path: Path) -> None:
    """G twice: the dialog built ahead both times, nothing of the first use in the second (the
    count typed, the error shown, the intent picked)."""
    from textual.widgets import Static

    from nlu_tui.ui.screens.generate_dialog import GenerateScreen

    app = new_app(make_workspace(tmp_path), prebuild=True)
    async with app.run_test(size=SIZE) as pilot:
        await _built_editor(pilot)  # built first, the generate dialog right after it
        deadline = time.monotonic() + 60
        while (built := spare(app, GenerateScreen)) is None:
            assert time.monotonic() < deadline, "the generate dialog was never built ahead"
            await asyncio.sleep(0.02)
        view = cases_view(app)
        view.action_generate()
        await pilot.pause()
        dialog = app.screen
        assert dialog is built
        first_intent = dialog.query_one("#gen-intent", Select).value
        assert first_intent == "check_balance"  # the intent of the case under the cursor
        dialog.query_one("#gen-count", Input).value = "3"
        dialog.query_one("#gen-intent", Select).value = "transfer_money"
        await pilot.press("ctrl+s")  # nothing generated: an error shows
        await wait_for(
            pilot,
            lambda: (
                "generate some proposals first"
                in str(dialog.query_one("#gen-error", Static).render())
            ),
        )
        assert "generate some proposals first" in str(
            dialog.query_one("#gen-error", Static).render()
        )
        await pilot.press("escape")
        await settle(pilot)
        await wait_for(pilot, lambda: app.screen is not dialog)
        assert app.screen is not dialog

        view.action_generate()
        await pilot.pause()
        await wait_for(pilot, lambda: app.screen is built)
        assert app.screen is built
        assert dialog.query_one("#gen-count", Input).value == "10"
        assert dialog.query_one("#gen-intent", Select).value == "check_balance"
        error = str(dialog.query_one("#gen-error", Static).render())
        assert "generate some proposals first" not in error  # (no LLM here: it says so)
        assert dialog.generator is None and dialog.query_one("#gen-list").option_count == 0
        assert app.focused is dialog.query_one("#gen-intent", Select)


async def test_the_diff_screen_is_built_once_and_shows_only_the_runs_asked_for(
    tmp_path: Path,
) -> None:
    """D on two pairs of runs: the screen built ahead both times; the second shows its own
    runs with the controls (kind filter, threshold, tab) as a new screen has them."""
    from textual.widgets import DataTable, TabbedContent
    from ui_runs_support import predictions_v1, predictions_v2, stored_run

    from nlu_tui.runsessions import store_for
    from nlu_tui.ui.screens.run_diff import DiffScreen
    from nlu_tui.ui.widgets.runs_pane import RunsPane

    app = new_app(make_workspace(tmp_path), prebuild=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.suite is not None
        store = store_for(app)
        ids = []
        for predictions in (predictions_v1(), predictions_v2(), predictions_v1()):
            ids.append(stored_run(store, app.suite, predictions))
            time.sleep(0.01)  # distinct start times: the runs' order
        pane = app.screen_stack[1].query_one(RunsPane)
        pane.reload()
        deadline = time.monotonic() + 60
        while (built := spare(app, DiffScreen)) is None or len(pane.history) < 3:
            assert time.monotonic() < deadline, "no diff screen built ahead, or no runs"
            await asyncio.sleep(0.02)

        async def diff(before: str, after: str) -> DiffScreen:
            app.screen.query_one("#main-tabs", TabbedContent).active = "tab-runs"
            await pilot.pause()
            pane.marked[:] = [before, after]
            pane.query_one("#runs-table", DataTable).focus()
            await pilot.press("D")
            await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            screen = app.screen
            assert isinstance(screen, DiffScreen)
            deadline = time.monotonic() + 60
            while screen.result is None:
                assert time.monotonic() < deadline, "the diff was never computed"
                await pilot.pause(0.05)
            return screen

        screen = await diff(ids[0], ids[1])
        assert screen is built
        assert (screen.before_id, screen.after_id) == (ids[0], ids[1])
        screen.query_one("#diff-kind", Select).value = "broke"
        screen.query_one("#diff-threshold", Input).value = "0.5"
        screen.query_one("#diff-tabs", TabbedContent).active = "tab-diff-intents"
        await pilot.pause()
        await pilot.press("escape")
        await settle(pilot)

        screen = await diff(ids[1], ids[2])
        assert screen is built
        assert (screen.before_id, screen.after_id) == (ids[1], ids[2])
        assert screen.result is not None
        assert screen.result.before.record.id == ids[1]
        assert screen.result.after.record.id == ids[2]
        assert ids[0] not in str(screen.query_one("#diff-header").render())
        assert screen.query_one("#diff-kind", Select).value == ""
        assert screen.query_one("#diff-threshold", Input).value == str(screen.threshold)
        assert screen.query_one("#diff-tabs", TabbedContent).active == "tab-diff-cases"
        cases = screen.query_one("#diff-cases", DataTable)
        assert cases.row_count == len(screen.result.diff.changes)


async def test_the_built_editor_follows_the_theme_and_covers_a_small_terminal(
    tmp_path: Path,
) -> None:
    """Its styles are not applied again on every push, but they are after a theme change; at
    120x36 it covers the terminal (opaque, nothing drawn under it), on a bigger one it does not
    (the dimmed screen shows around it)."""
    from textual.color import Color
    from textual.containers import Vertical

    from nlu_tui.ui.reuse import COVERS_CLASS

    app = new_app(make_workspace(tmp_path), prebuild=True)
    async with app.run_test(size=SIZE) as pilot:
        built = await _built_editor(pilot)
        editor = await _open(pilot, PLAIN_CASE)
        assert editor is built and editor.has_class(COVERS_CLASS)
        assert editor.styles.background.a == 1
        await pilot.press("escape")
        await settle(pilot)
        other = next(name for name in app.nlu_theme_names if name != app.theme)
        app.theme = other
        await settle(pilot)
        editor = await _open(pilot, PLAIN_CASE)
        await settle(pilot)
        frame = editor.query_one(Vertical)
        assert frame.styles.background == Color.parse(app.current_theme.surface or "")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.resize_terminal(160, 50)
        await settle(pilot)
        editor = await _open(pilot, PLAIN_CASE)
        assert editor is built and not editor.has_class(COVERS_CLASS)
        assert editor.styles.background.a < 1


async def test_the_generate_dialog_covers_120x36_like_the_editor(tmp_path: Path) -> None:
    """``G`` at 120x36: the dialog's frame fills the terminal on an opaque background, so the
    workbench under it is not drawn and dimmed on each paint (issue 23, fast keys); on a
    bigger terminal the dimmed workbench shows around it."""
    from textual.containers import Vertical

    from nlu_tui.ui.reuse import COVERS_CLASS
    from nlu_tui.ui.screens.generate_dialog import GenerateScreen

    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press("G")
        await settle(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, GenerateScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        dialog = app.screen
        assert isinstance(dialog, GenerateScreen)
        assert dialog.has_class(COVERS_CLASS) and dialog.styles.background.a == 1
        assert dialog.query_one(Vertical).region == dialog.region  # nothing shows around it
        await pilot.press("escape")
        await settle(pilot)
        await pilot.resize_terminal(160, 50)
        await settle(pilot)
        await pilot.press("G")
        await settle(pilot)
        await wait_for(pilot, lambda: app.screen is dialog)
        assert app.screen is dialog
        assert not dialog.has_class(COVERS_CLASS) and dialog.styles.background.a < 1
