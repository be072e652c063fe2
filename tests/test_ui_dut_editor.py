"""The DUT step editor: edit a command, add one with completion from the flows and slots,
refuse a command the reader would refuse, save the file."""

from __future__ import annotations

from pathlib import Path

import yaml
from ui_support import make_workspace, new_app, settle

from nlu_tui.ui.screens.dut_editor import DutEditorScreen

SAMPLES = Path(__file__).parents[1] / "sample_suites"


async def test_edit_add_and_save(tmp_path: Path) -> None:
    from textual.widgets import Input, Static

    root = make_workspace(tmp_path, SAMPLES / "contacts.dut.yml", SAMPLES / "contacts.flows.yml")
    app = new_app(root)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        app.screen.action_dut_editor()  # type: ignore[attr-defined]
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DutEditorScreen)
        first = screen.query_one("#cmd-0-0", Input)
        assert first.value == "start flow add_contact"
        # add a command to "it's @barts" (step 2), completing "set slot na" -> "set slot name "
        screen.query_one("#step-2", Input).focus()
        await pilot.press("ctrl+n")
        await pilot.pause()
        added = screen.query_one("#cmd-2-1", Input)
        assert app.focused is added
        await pilot.press(*"set slot na")
        await pilot.pause()
        await pilot.press("right")  # accept the suggestion
        await pilot.press(*"Bart")
        assert added.value == "set slot name Bart"
        # a command the reader refuses is not saved
        first = screen.query_one("#cmd-0-0", Input)  # the rows were rebuilt
        first.value = "start flow no_such_flow"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        status = str(screen.query_one("#dut-editor-status", Static).render())
        assert "not saved" in status and "no_such_flow" in status
        first.value = "start flow add_contact"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
    data = yaml.safe_load((root / "contacts.dut.yml").read_text(encoding="utf-8"))
    steps = data["test_cases"][0]["steps"]
    assert steps[2]["commands"] == ["set slot handle @barts", "set slot name Bart"]
    assert steps[0]["commands"] == ["start flow add_contact"]
