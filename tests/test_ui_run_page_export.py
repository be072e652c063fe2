"""Export of a conversation or DUT run from the workbench (issue 23): ``x`` on the conversation
tests screen and on the DUT results offers the HTML page and the Markdown summary, and the
file written is byte for byte what ``nlu-tui show RUN -f html|markdown -o FILE`` writes."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from test_ui_conversation import SIZE, _items
from textual.app import App
from textual.widgets import Input, Select
from ui_runs_support import wait_for
from ui_support import make_workspace, new_app, settle

from nlu_tui.cli.main import run as cli
from nlu_tui.store import RunStore
from nlu_tui.ui.screens.conversation_tests import ConversationScreen
from nlu_tui.ui.screens.dialogs import ExportDialog
from nlu_tui.ui.screens.dut_results import DutResultsScreen

SAMPLES = Path(__file__).parents[1] / "sample_suites"
DEADLINE = 60.0


async def wait_until(pilot: Any, done: Any, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.05)


async def export_with_x(pilot: Any, fmt: str, target: Path) -> None:
    """Press x, pick ``fmt``, type ``target`` and press Ctrl+S; wait for the file."""
    app = pilot.app
    await pilot.press("x")
    await wait_until(pilot, lambda: isinstance(app.screen, ExportDialog), "the Export dialog")
    dialog = app.screen
    offered = [value for _label, value in dialog.query_one("#export-format", Select)._options]
    assert offered == ["html", "markdown"]
    dialog.query_one("#export-format", Select).value = fmt
    await pilot.pause()
    dialog.query_one("#export-path", Input).value = str(target)
    await pilot.press("ctrl+s")
    await wait_until(pilot, target.exists, f"{target.name} to be written")


def cli_page(run_id: str, fmt: str, target: Path) -> str:
    assert cli(["show", run_id, "-f", fmt, "-o", str(target)]) == 0
    return target.read_text(encoding="utf-8")


def test_x_on_the_conversation_screen_writes_the_cli_pages(tmp_path: Path) -> None:
    _items(tmp_path, stable=False)  # one run of the file, stored
    path = tmp_path / "shop.e2e.yml"
    run_id = next(r.id for r in RunStore().list_runs() if r.kind == "e2e")

    class ConvApp(App[None]):
        run_store: RunStore | None = None
        run_sessions: dict[str, Any] = {}

        def on_mount(self) -> None:
            self.push_screen(ConversationScreen([path]))

    async def scenario() -> None:
        app = ConvApp()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            await wait_until(pilot, lambda: screen.last_run is not None, "the last run")
            for fmt, name in (("html", "ui.html"), ("markdown", "ui.md")):
                await export_with_x(pilot, fmt, tmp_path / name)
                assert app.screen is screen
        return None

    asyncio.run(scenario())
    assert (tmp_path / "ui.html").read_text(encoding="utf-8") == cli_page(
        run_id, "html", tmp_path / "cli.html"
    )
    assert (tmp_path / "ui.md").read_text(encoding="utf-8") == cli_page(
        run_id, "markdown", tmp_path / "cli.md"
    )
    assert "| book |" in (tmp_path / "ui.md").read_text(encoding="utf-8")  # its failed case


@pytest.mark.parametrize("fmt", ["html", "markdown"])
async def test_x_on_the_dut_results_writes_the_cli_page(tmp_path: Path, fmt: str) -> None:
    args = ["test", "du", str(SAMPLES / "contacts.dut.yml")]
    args += ["--engine", f"embedded:{SAMPLES / 'contacts.nlu.yml'}", "--no-output"]
    assert await asyncio.to_thread(cli, args) == 1
    run_id = next(r.id for r in RunStore().list_runs() if r.kind == "dut")
    target = tmp_path / f"ui.{fmt}"
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.action_dut_results()  # type: ignore[attr-defined]
        await wait_until(pilot, lambda: isinstance(app.screen, DutResultsScreen), "DUT results")
        await export_with_x(pilot, fmt, target)
        assert isinstance(app.screen, DutResultsScreen)
    written = target.read_text(encoding="utf-8")
    assert written == cli_page(run_id, fmt, tmp_path / f"cli.{fmt}")
    assert run_id in written and "just Bart" in written  # the failed step's user message
