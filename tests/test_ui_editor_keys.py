"""Issue 23 item 3: an editor that never loses a keystroke.

``Tab`` takes the completion shown (a second ``Tab`` moves on), a filled field is not selected
on focus (a key adds to it), an intent found nowhere is a warning, the note editor starts at
the end, and keys typed while a dialog or the cases table is being built are delivered to it.
Keys typed "fast" are posted to the app all at once, as a terminal delivers a burst of input:
the app reads them before the widget that should get them exists."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from textual import events
from textual.widgets import Input, Label, TextArea
from ui_runs_support import wait_for
from ui_support import SIZE, cases_view, make_workspace, new_app, settle

from nlu_tui.ui.screens.case_editor import CaseEditorScreen
from nlu_tui.ui.screens.dialogs import NoteDialog
from nlu_tui.ui.widgets.cases_view import CasesView


async def _open_editor(pilot: Any, key: str = "e") -> CaseEditorScreen:
    await settle(pilot)
    await pilot.press("f3")
    await settle(pilot)
    await pilot.press(key)
    await settle(pilot)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CaseEditorScreen))
    await pilot.pause()  # the screen pushed: composed and mounted
    editor = pilot.app.screen
    assert isinstance(editor, CaseEditorScreen)
    return editor


def _burst(app: Any, text: str) -> None:
    """Post every key of ``text`` to the app at once (a paste-speed typist)."""
    for char in text:
        key = {" ": "space", "\t": "tab"}.get(char, char)
        app.post_message(events.Key(key, None if char == "\t" else char))


def _problems(editor: CaseEditorScreen) -> str:
    return str(editor.query_one("#problems").render())


async def test_tab_takes_the_completion_and_a_second_tab_moves_on(tmp_path: Path) -> None:
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot, "a")
        await pilot.press("tab")  # from the utterances to the first intent
        await wait_for(pilot, lambda: app.focused is editor.query_one("#intent-1"))
        assert app.focused is editor.query_one("#intent-1")
        await pilot.press(*"transfer_m")
        await pilot.press("tab")
        await wait_for(
            pilot, lambda: editor.query_one("#intent-1", Input).value == "transfer_money"
        )
        assert editor.query_one("#intent-1", Input).value == "transfer_money"
        assert app.focused is editor.query_one("#intent-1"), "the first Tab only completes"
        await pilot.press("tab")
        await wait_for(pilot, lambda: app.focused is editor.query_one("#intent-2"))
        assert app.focused is editor.query_one("#intent-2"), "the second Tab moves on"


async def test_tab_typed_right_behind_the_name_still_completes(tmp_path: Path) -> None:
    """Characters and Tab in one burst: the completion is taken from what was typed, and the
    keys behind the Tab land in the next field."""
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot, "a")
        editor.query_one("#intent-1").focus()
        await pilot.pause()
        _burst(app, "transfer_m\t\tcheck_b\t")
        await settle(pilot)
        await wait_for(pilot, lambda: editor.query_one("#intent-2", Input).value == "check_balance")
        assert editor.query_one("#intent-1", Input).value == "transfer_money"
        assert editor.query_one("#intent-2", Input).value == "check_balance"


async def test_typing_into_a_filled_field_appends(tmp_path: Path) -> None:
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot)
        intent = editor.query_one("#intent-1", Input)
        before = intent.value
        assert before, "the sample's first case expects an intent"
        await pilot.press("tab")
        await wait_for(pilot, lambda: app.focused is intent)
        assert app.focused is intent
        await pilot.press("x")
        await wait_for(pilot, lambda: intent.value == before + "x")
        assert intent.value == before + "x"
        # the utterance box (a TextArea) starts at the end too
        utterance = cases_view(app).suite.cases[0].utterance
        editor.query_one("#utterances").focus()
        await pilot.pause()
        await pilot.press("!")
        await wait_for(
            pilot, lambda: editor.query_one("#utterances", TextArea).text == utterance + "!"
        )
        assert editor.query_one("#utterances", TextArea).text == utterance + "!"


async def test_every_field_has_a_visible_label(tmp_path: Path) -> None:
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot)
        labels = {str(label.render()) for label in editor.query(Label)}
        assert {"Intents", "Kind", "Parent", "Order", "Tags"} <= labels, labels


async def test_an_intent_known_nowhere_is_a_warning_not_ready_to_save(tmp_path: Path) -> None:
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot, "a")
        editor.query_one("#utterances", TextArea).text = "send money to mum"
        editor.query_one("#intent-1", Input).value = "transfer_m"
        await pilot.pause()
        shown = _problems(editor)
        assert "'transfer_m' is not in this suite" in shown, shown
        assert "ready to save" not in shown
        editor.query_one("#intent-1", Input).value = "transfer_money"
        await pilot.pause()
        assert _problems(editor) == "✔ ready to save 1 case"  # views.counts: not "1 case(s)"
        editor.query_one("#utterances", TextArea).text = "send money to mum\npay my sister"
        await pilot.pause()
        assert _problems(editor) == "✔ ready to save 2 cases"


async def test_keys_typed_while_the_editor_opens_land_in_it(tmp_path: Path) -> None:
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        _burst(app, "ahello there")  # "a" opens the editor; the rest is typed at once
        await settle(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, CaseEditorScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        editor = app.screen
        assert isinstance(editor, CaseEditorScreen)
        await wait_for(
            pilot, lambda: editor.query_one("#utterances", TextArea).text == "hello there"
        )
        assert editor.query_one("#utterances", TextArea).text == "hello there"


async def test_keys_typed_before_the_cases_table_is_built_reach_it(tmp_path: Path) -> None:
    """F3 and "a" while the first rows are still a preview: the table takes the focus once
    built, and "a" opens the editor there (they went nowhere)."""
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        # looked for often (it may be short), until it shows or the table is built past it (a
        # loaded machine can take more than the half second 50 looks once allowed to get there)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            await pilot.pause(0.01)
            shown = app.screen.query(CasesView)
            if shown and (shown.first().previewing or shown.first().table is not None):
                break
        assert cases_view(app).previewing, "the preview was never seen"
        assert cases_view(app).table is None
        await pilot.press("f3")
        _burst(app, "ahi")
        await settle(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, CaseEditorScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        editor = app.screen
        assert isinstance(editor, CaseEditorScreen), editor
        await wait_for(pilot, lambda: editor.query_one("#utterances", TextArea).text == "hi")
        assert editor.query_one("#utterances", TextArea).text == "hi"


async def test_the_note_editor_starts_at_the_end(tmp_path: Path) -> None:
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        results: list[str | None] = []
        app.push_screen(NoteDialog("first line\nsecond"), results.append)
        _burst(app, " and more")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        await wait_for(pilot, lambda: results == ["first line\nsecond and more"])
        assert results == ["first line\nsecond and more"]
