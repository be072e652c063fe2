"""The palette gathers its commands by walking the screen's widgets (issue 23, fast keys:
``query("*")`` matched a selector against every widget on each Ctrl+P and each key typed in
it). The commands are the same, in the same order; the palette lists all of them and runs the
chosen one."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette
from ui_support import SIZE, make_workspace, new_app, settle

from nlu_tui.ui.app import NluTuiApp


def by_query(app: NluTuiApp) -> list[tuple[str, str]]:
    """The screen's commands as they were gathered: ``[screen, *screen.query("*")]``."""
    out = []
    screen = app.screen
    for widget in [screen, *screen.query("*")]:
        provider = getattr(widget, "palette_commands", None)
        if provider is not None:
            out.extend((c.name, c.help) for c in provider())
    return out


@pytest.mark.slow
async def test_the_commands_are_those_of_every_widget_in_order_and_run(tmp_path: Path) -> None:
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for tab in ("tab-results", "tab-cases"):
            app.show_tab(tab)
            await settle(pilot)
            commands = [(c.name, c.help) for c in app.palette_commands()]
            widgets = by_query(app)
            assert widgets and commands[-len(widgets) :] == widgets, tab
        app.show_tab("tab-cases")
        await settle(pilot)
        count = len(app.palette_commands())
        await pilot.press("ctrl+p")
        for _ in range(600):  # the list is filled by a worker: up to 60 s on a loaded machine
            if isinstance(app.screen, CommandPalette) and app.screen.has_class("-ready"):
                break
            await pilot.pause(0.1)
        listed = app.screen.query_one(CommandList)
        assert listed.option_count >= count  # and Textual's own (Keys, Screenshot, ...)
        theme = app.theme
        await pilot.press(*"app: Next theme")
        for _ in range(600):
            if listed.option_count == 1:
                break
            await pilot.pause(0.1)
        await pilot.press("enter")
        for _ in range(600):
            if app.theme != theme:
                break
            await pilot.pause(0.1)
        assert app.theme != theme
