"""Keyboard-only use at 80×24: every dialog shows its buttons and can be completed from the
keyboard, a run starts from the start dialog with key presses only, the tabs switch with
F3/F4/F6 and the palette, the footer fits one line, and training intents reach the editor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ui_runs_support import screen_text, wait_for
from ui_support import SAMPLE, make_workspace, new_app, settle

from nlu_tui.model import RunStatus
from nlu_tui.runsessions import sessions, store_for
from nlu_tui.ui.screens.dialogs import ConfirmDialog
from nlu_tui.ui.screens.run_start import StartRunDialog

TRAINING = SAMPLE.parent / "banking_bot.nlu.yml"
SMALL = (80, 24)


def assert_buttons_visible(app: Any) -> None:
    """Every button of the top screen lies inside the terminal and shows its label."""
    from textual.widgets import Button

    width, height = app.size
    buttons = list(app.screen.query(Button))
    assert buttons, "the dialog has buttons"
    text = screen_text(app)
    for button in buttons:
        region = button.region
        assert region.height >= 1 and region.width >= 1, button.id
        assert region.right <= width and region.bottom <= height, (button.id, region)
        label = str(button.label).split(" (")[0]
        assert label in text, (label, text)


@pytest.mark.slow
async def test_start_run_from_keyboard_at_80x24(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, SAMPLE, TRAINING)
    app = new_app(root)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("f4")  # the Runs tab, focus in its table
        await pilot.pause()
        await wait_for(pilot, lambda: app.screen.query_one("#main-tabs").active == "tab-runs")
        assert app.screen.query_one("#main-tabs").active == "tab-runs"
        await pilot.press("r")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, (ConfirmDialog, StartRunDialog)))
        await pilot.pause()  # the screen pushed: composed and mounted
        if isinstance(app.screen, ConfirmDialog):  # validation problems first
            await pilot.press("y")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, StartRunDialog)
        assert_buttons_visible(app)
        # engine (preselected) → version → note: the note lands in the note field
        await wait_for(
            pilot,
            lambda: app.screen.focused is not None and app.screen.focused.id == "start-engine",
        )
        assert app.screen.focused is not None and app.screen.focused.id == "start-engine"
        await pilot.press("tab", "tab")
        await wait_for(
            pilot, lambda: app.screen.focused is not None and app.screen.focused.id == "start-note"
        )
        assert app.screen.focused is not None and app.screen.focused.id == "start-note"
        await pilot.press(*"smoke run")
        await pilot.press("enter")  # Enter in a field starts
        await pilot.pause()
        await wait_for(pilot, lambda: not isinstance(app.screen, StartRunDialog))
        assert not isinstance(app.screen, StartRunDialog)
        await wait_for(pilot, lambda: any(s.finished for s in sessions(app).values()), timeout=120)
        await settle(pilot)
        session = next(iter(sessions(app).values()))
        assert session.status is RunStatus.SUCCESS, session.record
        assert app.screen.query_one("#main-tabs").active == "tab-results"
        records = store_for(app).list_runs()
        assert len(records) == 1 and records[0].note == "smoke run"
        await wait_for(
            pilot, lambda: "F1 0.9348" in screen_text(app), timeout=120
        )  # header repainted


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_start_dialog_escape_cancels_and_ctrl_s_starts(tmp_path: Path, size: Any) -> None:
    root = make_workspace(tmp_path, SAMPLE, TRAINING)
    app = new_app(root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("f4", "r")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, (ConfirmDialog, StartRunDialog)))
        await pilot.pause()  # the screen pushed: composed and mounted
        if isinstance(app.screen, ConfirmDialog):
            await pilot.press("y")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, StartRunDialog)
        assert_buttons_visible(app)
        # Enter in an open list picks the option; it does not start the run
        await pilot.press("tab", "space")
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, StartRunDialog)
        await wait_for(pilot, lambda: app.screen.query_one("#start-stage").value == "published")
        assert app.screen.query_one("#start-stage").value == "published"
        await pilot.press("escape")
        await pilot.pause()
        await wait_for(pilot, lambda: not isinstance(app.screen, StartRunDialog))
        assert not isinstance(app.screen, StartRunDialog)
        assert not sessions(app)
        # Enter on the Cancel button cancels rather than starting
        await pilot.press("r")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, (ConfirmDialog, StartRunDialog)))
        await pilot.pause()  # the screen pushed: composed and mounted
        if isinstance(app.screen, ConfirmDialog):
            await pilot.press("y")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
        app.screen.query_one("#start-cancel").focus()
        await pilot.press("enter")
        await pilot.pause()
        await wait_for(pilot, lambda: not isinstance(app.screen, StartRunDialog))
        assert not isinstance(app.screen, StartRunDialog)
        assert not sessions(app)


def _modals(app: Any) -> dict[str, Any]:
    from nlu_tui.ui.screens import case_editor, dialogs, import_dialog, run_start

    suite = app.suite
    return {
        "confirm": lambda: dialogs.ConfirmDialog("Delete?", "body", yes="Delete", no="Keep"),
        "note": lambda: dialogs.NoteDialog("hello"),
        "export": lambda: dialogs.ExportDialog([("json", "JSON", ".json")], Path("/tmp"), "x"),
        "suite-confirm": lambda: dialogs.ConfirmDialog("Delete suite Banking bot?"),
        "suite-form": lambda: dialogs.SuiteFormScreen("New suite"),
        "prompt": lambda: dialogs.PromptScreen("Tag marked cases", "tag"),
        "suite-export": lambda: dialogs.ExportScreen(suite.path),
        "conflict": lambda: dialogs.ConflictScreen(suite, "changed on disk"),
        "editor": lambda: case_editor.CaseEditorScreen(suite, suite.cases[5], []),
        "import": lambda: import_dialog.ImportScreen(suite.path.parent),
        "start-no-engine": lambda: run_start.StartRunDialog(
            suite.name, [], None, workspace=suite.path.parent, suite_path=suite.path
        ),
        "training-picker": lambda: dialogs.TrainingFilePicker([suite.path.parent]),
    }


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_every_dialog_shows_its_buttons(tmp_path: Path, size: Any) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for name, make in _modals(app).items():
            app.push_screen(make())
            await pilot.pause()
            await pilot.pause()
            try:
                assert_buttons_visible(app)
            except AssertionError as exc:
                raise AssertionError(f"{name} at {size}: {exc}") from exc
            # Escape closes every dialog; the conflict one has no "cancel": r reloads
            await pilot.press("r" if name == "conflict" else "escape")
            await pilot.pause()
            await wait_for(pilot, lambda: len(app.screen_stack) == 2)
            assert len(app.screen_stack) == 2, name


@pytest.mark.slow
async def test_note_and_export_dialogs_complete_from_keyboard(tmp_path: Path) -> None:
    from nlu_tui.ui.screens.dialogs import ExportDialog, NoteDialog

    root = make_workspace(tmp_path)
    app = new_app(root)
    got: list[Any] = []
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        app.push_screen(NoteDialog(""), got.append)
        await pilot.pause()
        await pilot.press(*"why", "ctrl+s")
        await pilot.pause()
        app.push_screen(ExportDialog([("json", "JSON", ".json")], tmp_path, "r"), got.append)
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
    rasa_defaults = {"successes": False, "errors": True, "plots": True}  # rasa test nlu's
    assert got == ["why", ("json", tmp_path / "r.json", rasa_defaults)]


@pytest.mark.slow
async def test_tab_keys_and_palette_switch_views(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        tabs = app.screen.query_one("#main-tabs")
        for key, pane in (("f4", "tab-runs"), ("f6", "tab-results"), ("f3", "tab-cases")):
            await pilot.press(key)
            await pilot.pause()
            await wait_for(pilot, lambda p=pane: tabs.active == p)
            assert tabs.active == pane, key
        await pilot.press("ctrl+t")
        await pilot.pause()
        await wait_for(pilot, lambda: tabs.active == "tab-runs")
        assert tabs.active == "tab-runs"
        app.show_tab("tab-results")
        await pilot.pause()
        assert tabs.active == "tab-results"
        names = {c.name: c for c in app.palette_commands()}
        for name, pane in (
            ("view: Cases", "tab-cases"),
            ("view: Runs", "tab-runs"),
            ("view: Results", "tab-results"),
        ):
            names[name].callback()
            await pilot.pause()
            assert tabs.active == pane, name


@pytest.mark.slow
async def test_footer_fits_80_columns(tmp_path: Path) -> None:
    from textual.widgets._footer import FooterKey

    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        for key in ("f2", "f3", "f4", "f6"):
            await pilot.press(key)
            await pilot.pause()
            await pilot.pause()

            def shown_keys() -> list[FooterKey]:
                return [
                    k for k in app.screen.query(FooterKey) if "-command-palette" not in k.classes
                ]

            await wait_for(pilot, lambda: 3 <= len(shown_keys()) <= 6)
            keys = shown_keys()
            assert 3 <= len(keys) <= 6, key
            last = screen_text(app).splitlines()[-1]
            assert "Help" in last and "palette" in last, last
            assert all(k.region.right <= 80 for k in app.screen.query(FooterKey)), key


@pytest.mark.slow
async def test_editor_completes_training_intents(tmp_path: Path) -> None:
    from nlu_tui.formats.rasa_yaml import load_training_data
    from nlu_tui.ui.screens.case_editor import CaseEditorScreen

    root = make_workspace(tmp_path, SAMPLE, TRAINING)
    app = new_app(root)
    expected = {e.intent for e in load_training_data(TRAINING).examples}
    suite_only = expected - {
        i.name for c in app.workspace.load(root / SAMPLE.name).cases for i in c.intents
    }
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        # read by a worker shortly after start-up
        await wait_for(pilot, lambda: bool(app.training_intents), timeout=30)
        await settle(pilot)
        assert expected <= set(app.training_intents)
        await pilot.press("f3", "a")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, CaseEditorScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, CaseEditorScreen)
        assert expected <= set(app.screen.intent_names)
        assert suite_only <= set(app.screen.intent_names)


async def test_long_suite_name_is_cut_not_wrapped(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    text = (root / SAMPLE.name).read_text(encoding="utf-8")
    long_name = "A very long suite name that cannot fit the panel at all"
    (root / SAMPLE.name).write_text(
        text.replace("name: Banking bot", f"name: {long_name}", 1), encoding="utf-8"
    )
    app = new_app(root)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        lines = screen_text(app).splitlines()
        assert any("A very long suite name" in line and "…" in line for line in lines)
        assert not any(line.startswith("│cannot fit") or "at all" in line for line in lines)
        panel_rows = [line for line in lines if "cases ·" in line]
        assert panel_rows  # the second line of the suite still shows
