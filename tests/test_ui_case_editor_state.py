"""The case editor after issue 10's items 4 and 5: validation follows every change (a removed
bad entity row takes its error with it), Save and Ctrl+S agree, Escape with edits asks, and
every confirm answers "No" to a stray Enter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Button, Input, Select, TextArea
from ui_runs_support import wait_for
from ui_support import SIZE, cases_view, make_workspace, new_app, settle

from nlu_tui.formats.native import load_suite
from nlu_tui.ui.screens.case_editor import CaseEditorScreen
from nlu_tui.ui.screens.dialogs import ConfirmDialog
from nlu_tui.ui.widgets.entity_row import EntityRowWidget


async def _open_editor(pilot: Any) -> CaseEditorScreen:
    await settle(pilot)
    await pilot.press("f3")
    await settle(pilot)
    await pilot.press("e")
    await pilot.pause()
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CaseEditorScreen))
    await pilot.pause()  # the screen pushed: composed and mounted
    editor = pilot.app.screen
    assert isinstance(editor, CaseEditorScreen)
    return editor


def _problems(editor: CaseEditorScreen) -> str:
    return str(editor.query_one("#problems").render())


async def test_removing_the_bad_entity_row_clears_its_error_and_enables_save(
    tmp_path: Path,
) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot)
        await pilot.press("ctrl+n")
        await pilot.pause()
        row = [w for w in editor.query(EntityRowWidget) if w.display][-1]  # hidden: spare rows
        name, value, _alt = row.query(Input).results()
        name.value = "payee"
        value.value = "Leo(nardo"
        row.query_one(Select).value = "regex"
        save = editor.query_one("#save", Button)
        await wait_for(
            pilot,
            lambda: save.disabled and "regular expression" in _problems(editor).lower(),
        )
        assert save.disabled and "regular expression" in _problems(editor).lower()

        await pilot.click(row.query_one(".ent-remove"))
        await wait_for(
            pilot,
            lambda: (
                not list(editor.query(EntityRowWidget)) or row not in editor.query(EntityRowWidget)
            ),
        )
        assert not list(editor.query(EntityRowWidget)) or row not in editor.query(EntityRowWidget)
        # the form shown is valid: no stale error, Save enabled, and Ctrl+S agrees
        assert "✖" not in _problems(editor), _problems(editor)
        assert not save.disabled
        await pilot.press("ctrl+s")
        await settle(pilot)
        await wait_for(pilot, lambda: not isinstance(app.screen, CaseEditorScreen))
        assert not isinstance(app.screen, CaseEditorScreen)


async def test_ctrl_s_refuses_exactly_when_save_is_disabled(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot)
        editor.query_one("#utterances", TextArea).text = ""
        await pilot.pause()
        assert editor.query_one("#save", Button).disabled
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is editor


async def test_escape_with_edits_asks_and_enter_keeps_editing(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    suite_file = root / "banking_bot.suite.yaml"
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot)
        first = cases_view(app).suite.cases[0]
        editor.query_one("#utterances", TextArea).text = "an edit not to lose"
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, ConfirmDialog), "Escape must ask before discarding"
        await pilot.press("enter")  # "Keep editing" has the focus
        await pilot.pause()
        await wait_for(pilot, lambda: app.screen is editor)
        assert app.screen is editor
        assert editor.query_one("#utterances", TextArea).text == "an edit not to lose"
        await pilot.press("escape")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")  # discard
        await settle(pilot)
        await wait_for(pilot, lambda: not isinstance(app.screen, (CaseEditorScreen, ConfirmDialog)))
        assert not isinstance(app.screen, (CaseEditorScreen, ConfirmDialog))
    assert load_suite(suite_file).cases[0].utterance == first.utterance


async def test_escape_without_edits_closes_at_once(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot)
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: app.screen is not editor and not isinstance(app.screen, ConfirmDialog)
        )
        assert app.screen is not editor and not isinstance(app.screen, ConfirmDialog)


async def test_delete_suite_confirm_answers_no_to_enter(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("delete")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("enter")
        await settle(pilot)
        assert (root / "banking_bot.suite.yaml").is_file()


async def test_delete_cases_confirm_answers_no_to_enter(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        before = len(cases_view(app).suite.cases)
        await pilot.press("delete")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("enter")
        await settle(pilot)
        assert len(cases_view(app).suite.cases) == before
