"""Keys typed right after Tab (a paste, a fast typist) land in the field Tab moved to (issue 10
item 7): Textual forwards each key to the widget focused when the app reads it, and Tab only
moved the focus once the old field had bubbled it up to the screen's binding, so the keys
queued behind Tab went to the old field. The app now moves the focus as it reads the Tab."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events
from textual.widgets import Input, TextArea
from ui_runs_support import wait_for
from ui_support import SIZE, make_workspace, new_app, settle

from nlu_tui.ui.screens.case_editor import CaseEditorScreen


async def burst(pilot: Any, *keys: str) -> None:
    """Send keys the way a terminal delivers a paste or fast typing: all read at once, with no
    pause between them (``pilot.press`` waits for the app to idle after each key, which hides
    the race)."""
    app = pilot.app
    for key in keys:
        char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)
        app._driver.send_message(event)
    await pilot.pause()
    await pilot.pause()


async def test_keys_right_after_tab_go_to_the_next_field(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, CaseEditorScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        editor = app.screen
        assert isinstance(editor, CaseEditorScreen)
        editor.query_one("#intent-1", Input).focus()
        await pilot.pause()
        await burst(pilot, *"greet", "tab", *"bye", "tab", *"thanks", "shift+tab", *"!")
        await pilot.pause()
        await wait_for(pilot, lambda: editor.query_one("#intent-2", Input).value == "bye!")
        assert editor.query_one("#intent-1", Input).value == "greet"
        # Shift+Tab moved back; a field entered keeps its text, the cursor at its end (issue 23:
        # no select-all on focus), so "!" is added to it
        assert editor.query_one("#intent-2", Input).value == "bye!"
        assert editor.query_one("#intent-3", Input).value == "thanks"

        # from the utterances box (a TextArea, which does not take Tab) too
        editor.query_one("#utterances", TextArea).focus()
        await pilot.pause()
        await burst(pilot, *"hi", "tab", *"x")
        await pilot.pause()
        await wait_for(pilot, lambda: editor.query_one("#intent-1", Input).value == "greetx")
        assert editor.query_one("#utterances", TextArea).text == "hi"
        assert editor.query_one("#intent-1", Input).value == "greetx"  # added to, not replaced
        assert editor.query_one("#intent-1", Input).has_focus


async def test_tab_in_a_text_area_that_indents_still_indents(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, CaseEditorScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        editor = app.screen
        area = editor.query_one("#utterances", TextArea)
        area.tab_behavior = "indent"
        area.focus()
        await pilot.pause()
        await burst(pilot, *"a", "tab", *"b")
        await pilot.pause()
        await wait_for(pilot, lambda: area.text.endswith("b"))
        assert area.has_focus and area.text.startswith("a") and area.text.endswith("b")
        assert "\t" in area.text or "  " in area.text


async def test_a_key_right_behind_one_that_moves_the_focus_lands_where_it_moved(
    tmp_path: Path,
) -> None:
    """F3 then G read at once from the suites list: F3 (the app's binding) focuses the cases
    table only once the messages queued meanwhile are handled, and G was forwarded to the suites
    list before that (the generate dialog never opened; seen in tmux on a busy machine)."""
    from textual.widgets import OptionList

    from nlu_tui.ui.screens.generate_dialog import GenerateScreen

    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one("#suite-list", OptionList).focus()
        await pilot.pause()
        await burst(pilot, "f3", "G")
        await settle(pilot)
        assert isinstance(app.screen, GenerateScreen)
        await pilot.press("escape")
        await settle(pilot)
        # and the letters typed behind "/" (the cases table's filter key) go to the filter
        assert app.focused is app.screen.query_one("#cases-table")
        await burst(pilot, "slash", *"balance")
        await settle(pilot)
        assert app.focused is not None and getattr(app.focused, "value", None) == "balance"


async def test_a_key_used_by_a_binding_is_not_overtaken_by_the_characters_behind_it(
    tmp_path: Path,
) -> None:
    """Backspace deletes in a field by the field's binding, which Textual runs only once the key
    has bubbled back up to the app; characters are used by the field at once. Read together
    (``backspace 5`` typed into the start dialog's Repeat 1 under load: it read 1, not 5), each
    character overtook the backspace before it."""
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, CaseEditorScreen)
        field = editor.query_one("#intent-1", Input)
        field.focus()
        await pilot.pause()
        await burst(pilot, *"greet")
        await burst(pilot, "backspace", "x", "backspace", "backspace", "y", "left", "z")
        for _ in range(20):
            if field.value == "grezy":
                break
            await pilot.pause()
        assert field.value == "grezy"


async def test_the_hold_behind_a_key_ends_once_the_key_is_used(tmp_path: Path) -> None:
    """A key used by the field (a character) or by a binding once back at the app (backspace)
    ends the hold on the keys behind it as soon as it is used, not at the hold's timeout."""
    from nlu_tui.ui.keyhold import ON_ITS_WAY

    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        field = app.screen.query_one("#intent-1", Input)
        field.focus()
        await pilot.pause()
        for key in ("x", "backspace"):
            await burst(pilot, key)
            assert ON_ITS_WAY not in app.key_hold._holds, key
        assert field.value == ""
