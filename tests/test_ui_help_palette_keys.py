"""Help (F1) and the command palette (Ctrl+P) open fast (issue 23, item 5: fast keys).

Help is built once in idle time and refilled for each use: it must show the keys of the
screen it opens over, not the previous one's, and draw its table again only when those keys
changed. Both modals dim the screen below once per change (``nlu_tui.ui.backdrop``): the
screen below is rendered once per opening, yet a change below still shows through, and a real
resize still lays the screen below out again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.command import CommandPalette
from textual.screen import Screen
from textual.widgets import Static
from ui_support import SIZE, make_workspace, new_app, settle

from nlu_tui.ui.reuse import spare
from nlu_tui.ui.screens.help import HelpScreen
from nlu_tui.ui.screens.main import MainScreen
from nlu_tui.ui.widgets.rendered_once import RenderedOnce


async def _until(check: Callable[[], bool], what: str, pilot: Any) -> None:
    """Poll ``check`` with a generous deadline (a loaded machine)."""
    deadline = time.monotonic() + 60
    while not check():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.01)
    await pilot.pause()


def _table(help_screen: HelpScreen) -> RenderedOnce:
    return help_screen.query_one("#help-keys", RenderedOnce)


def _shown_text(help_screen: HelpScreen) -> str:
    table = _table(help_screen)
    return "\n".join(table.render_line(y).text for y in range(table.size.height))


async def _open_help(pilot: Any) -> HelpScreen:
    await pilot.press("f1")
    await _until(lambda: isinstance(pilot.app.screen, HelpScreen), "help did not open", pilot)
    screen = pilot.app.screen
    assert isinstance(screen, HelpScreen)
    await _until(lambda: _table(screen).ready, "the table of keys was never drawn", pilot)
    return screen


async def _close(pilot: Any, below: Screen[Any]) -> None:
    await pilot.press("escape")
    await _until(lambda: pilot.app.screen is below, "the modal did not close", pilot)


async def test_help_is_built_once_shows_the_keys_of_the_screen_below_and_redraws_on_change(
    tmp_path: Path,
) -> None:
    app = new_app(make_workspace(tmp_path), prebuild=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _until(lambda: spare(app, HelpScreen) is not None, "help was not built", pilot)
        built = spare(app, HelpScreen)
        main = app.screen
        assert isinstance(main, MainScreen)

        over_main = await _open_help(pilot)
        assert over_main is built
        ids = {row[3] for row in over_main.key_rows}
        assert {"app.help", "main.focus-suites"} <= ids and "conv.run" not in ids
        table = _table(over_main)
        drawn: list[object] = []
        show = table.show

        def counted(renderable: Any) -> None:
            drawn.append(renderable)
            show(renderable)

        table.show = counted  # type: ignore[method-assign]
        lines = [table.render_line(y) for y in range(3)]
        await _close(pilot, main)

        again = await _open_help(pilot)
        assert again is built and _table(again) is table
        # the same keys: the lines drawn for the first use are shown again, not drawn again
        assert drawn == []
        assert [table.render_line(y) for y in range(3)] == lines
        await _close(pilot, main)

        # over another screen: that screen's keys, not the main screen's
        app.action_conversation_tests()
        await _until(lambda: app.screen is not main, "no conversation screen", pilot)
        conversation = app.screen
        await settle(pilot)
        over_other = await _open_help(pilot)
        assert over_other is built and len(drawn) == 1
        ids = {row[3] for row in over_other.key_rows}
        assert {"app.help", "conv.run"} <= ids and "main.focus-suites" not in ids
        shown = _shown_text(over_other)
        assert "conv.run" in shown and "main.focus-suites" not in shown
        await _close(pilot, conversation)
        await pilot.press("escape")
        await _until(lambda: app.screen is main, "the conversation screen did not close", pilot)

        back = await _open_help(pilot)
        assert back is built and len(drawn) == 2
        ids = {row[3] for row in back.key_rows}
        assert "main.focus-suites" in ids and "conv.run" not in ids
        assert "main.focus-suites" in _shown_text(back)
        await _close(pilot, main)

        # narrower: the table has other columns (no binding ids), so it is drawn again
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        narrow = await _open_help(pilot)
        assert narrow is built and not narrow.with_ids and len(drawn) == 3
        assert "main.focus-suites" not in _shown_text(narrow)


def _screen_text(app: Any) -> str:
    """The text on screen now, as the app would paint it (the top screen with what shows of
    the screens below)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def _count_renders(screen: Screen[Any]) -> list[int]:
    """Count the renders of ``screen``'s whole picture (what a modal dims behind itself)."""
    calls = [0]
    render_strips = screen._compositor.render_strips

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return render_strips(*args, **kwargs)

    screen._compositor.render_strips = counted  # type: ignore[method-assign]
    return calls


def _count_changes(screen: Screen[Any]) -> list[int]:
    """Count the changes ``screen``, below a modal, tells the modal about (its repaints forwarded
    by ``Screen._compositor_refresh``): each one rightly costs the modal a new picture."""
    calls = [0]
    refresh = screen._compositor_refresh

    def counted() -> None:
        if screen is not screen.app.screen and screen._compositor._dirty_regions:
            calls[0] += 1
        refresh()

    screen._compositor_refresh = counted  # type: ignore[method-assign]
    return calls


async def test_modals_render_the_screen_below_once_yet_show_its_changes_and_resizes(
    tmp_path: Path,
) -> None:
    from nlu_tui.ui.widgets.suites_panel import SuitesPanel

    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        # nothing changes below while it is counted: the suites panel lists the training files
        # and the last runs once the first screen is up (up to a second after mounting)
        panel = main.query_one(SuitesPanel)
        await _until(lambda: panel._first_screen_up, "the first screen never came up", pilot)
        await settle(pilot)
        renders = _count_renders(main)
        changes = _count_changes(main)
        await _open_help(pilot)
        await settle(pilot)
        # Textual alone renders it 3 times: on top, on its first Resize, once it settles; here
        # once, and once more for each change of the screen below (main repaints once after it
        # is covered, sooner or later: when later, the first picture is already drawn)
        assert renders[0] <= 1 + changes[0] and renders[0] <= 2, (renders, changes)
        await _close(pilot, main)
        await settle(pilot)

        renders[0] = changes[0] = 0
        await pilot.press("ctrl+p")
        await _until(
            lambda: isinstance(app.screen, CommandPalette) and app.screen.has_class("-ready"),
            "the palette did not fill in",
            pilot,
        )
        await settle(pilot)
        # Textual alone: 2 (its first Resize lays main out), whatever changed below
        assert renders[0] <= 1 + changes[0] and renders[0] <= 2, (renders, changes)

        # a resize under the palette still lays the main screen out for the new size
        await pilot.resize_terminal(90, 30)
        await _until(lambda: main.outer_size == (90, 30), "main was not laid out again", pilot)
        assert app.screen.outer_size == (90, 30)
        await _close(pilot, main)
        await settle(pilot)

        # a change below shows through the dimmed background (the top row, above the box)
        await _open_help(pilot)
        await settle(pilot)
        assert "CHANGED BELOW" not in _screen_text(app)
        probe = Static("CHANGED BELOW", id="probe")
        probe.styles.dock = "top"
        # not while Textual holds updates (the palette closed above calls delay_update: a screen
        # laid out in that window waits for its next message, which this test never sends)
        await _until(lambda: not app._batch_count, "Textual kept holding updates", pilot)
        await main.mount(probe)
        await _until(lambda: "CHANGED BELOW" in _screen_text(app), "the change never showed", pilot)
        await _close(pilot, main)


async def test_the_palette_looks_as_textuals_own(tmp_path: Path) -> None:
    """NluCommandPalette skips the stylesheet pass Textual makes again when a palette it has
    just mounted comes on top: what it paints is what Textual's own palette paints."""
    from nlu_tui.ui.commands import NluCommandPalette

    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        painted = []
        for palette in (CommandPalette(id="--command-palette"), NluCommandPalette()):
            app.push_screen(palette)
            await _until(lambda p=palette: p.has_class("-ready"), "no palette", pilot)  # type: ignore[misc]
            await settle(pilot)
            painted.append(app.screen._compositor.render_strips())
            await _close(pilot, main)
            await settle(pilot)
        text = "\n".join(strip.text for strip in painted[1])
        assert "Search for commands" in text and "app: Help" in text
        assert painted[0] == painted[1]
