"""Issue 23, "Engines that stick", in the workbench: the run dialog checks the engine live and
keeps what was typed on an error; a run canceled then resumed to success is remembered for its
suite and offered to the workspace's other suites."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runner_loopback import LoopbackNlu, write_suite
from ui_runs_support import open_runs_tab, wait_for
from ui_support import SIZE, new_app, settle

from nlu_tui.engines.choices import StartChoice, load_last_choice, workspace_engines
from nlu_tui.model import RunStatus
from nlu_tui.runsessions import sessions, store_for
from nlu_tui.ui.screens.dialogs import ConfirmDialog
from nlu_tui.ui.screens.run_start import OTHER, StartRunDialog


def _profile(root: Path, url: str) -> None:
    (root / "engines.yaml").write_text(
        f"engines:\n  slow:\n    type: rasa\n    url: {url}\n    concurrency: 2\n",
        encoding="utf-8",
    )


async def _dialog(pilot: Any) -> StartRunDialog:
    await pilot.press("r")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, StartRunDialog | ConfirmDialog))
    await pilot.pause()  # the screen pushed: composed and mounted
    if isinstance(pilot.app.screen, ConfirmDialog):  # validation problems first
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, StartRunDialog))
        await pilot.pause()  # the screen pushed: composed and mounted
    dialog = pilot.app.screen
    assert isinstance(dialog, StartRunDialog)
    return dialog


async def test_the_dialog_checks_the_engine_and_keeps_a_wrong_spec(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    write_suite(root / "a.suite.yaml", 6)
    with LoopbackNlu() as server:
        _profile(root, server.url)
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            await open_runs_tab(pilot)
            dialog = await _dialog(pilot)
            # the preselected profile's server answers: a green line before Start
            line = dialog.query_one("#start-check")
            await wait_for(pilot, lambda: "reachable" in str(line.render()))
            assert line.has_class("-ok") and "Rasa" in str(line.render())
            # a wrong spec: its error in the open dialog, with what was typed
            dialog.query_one("#start-engine").value = OTHER
            await pilot.pause()
            await pilot.press(*"embedded:nope.nlu.yml")
            await wait_for(pilot, lambda: "training data not found" in str(line.render()))
            assert line.has_class("-bad")
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert app.screen is dialog and not sessions(app)
            error = str(dialog.query_one("#start-error").render())
            assert "training data not found" in error and "nope.nlu.yml" in error
            assert dialog.query_one("#start-spec").value == "embedded:nope.nlu.yml"
            # corrected in place, it runs
            await pilot.press(*["backspace"] * len("nope.nlu.yml"))
            await pilot.press(*"x")
            (root / "x").write_bytes(
                (Path(__file__).parent / "fixtures" / "engines" / "mini.nlu.yml").read_bytes()
            )
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: any(s.finished for s in sessions(app).values()))
            await settle(pilot)
            session = next(iter(sessions(app).values()))
            assert session.engine_name == f"embedded:{root / 'x'}"


async def test_a_resumed_run_that_succeeds_is_remembered(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    write_suite(root / "slow.suite.yaml", 200)
    with LoopbackNlu(latency=0.25) as server:
        _profile(root, server.url)
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.suite is not None)
            await open_runs_tab(pilot)
            suite = app.suite
            assert suite is not None and suite.path is not None
            key = str(suite.path.resolve())
            dialog = await _dialog(pilot)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: bool(sessions(app)))
            session = next(iter(sessions(app).values()))
            await wait_for(pilot, lambda: session.event is not None and session.event.done >= 4)
            session.cancel()
            await wait_for(pilot, lambda: session.finished, 30)
            await settle(pilot)
            assert session.status is RunStatus.CANCELED
            assert load_last_choice(key) is None  # a canceled run is not a success
            # resume it to success (u in the Runs tab)
            server.latency = 0.0
            app.screen.query_one("#main-tabs").active = "tab-runs"
            await pilot.pause()
            await wait_for(pilot, lambda: bool(app.screen_stack[1].query("#runs-table")))
            table = app.screen.query_one("#runs-table")
            table.focus()
            # u resumes the run under the cursor: the history listed and the table focused
            await wait_for(pilot, lambda: app.focused is table and table.row_count >= 1)
            await pilot.press("u")
            await wait_for(pilot, lambda: sessions(app).get(session.run_id) not in (None, session))
            resumed = sessions(app)[session.run_id]
            await wait_for(pilot, lambda: resumed.finished, 60)
            await settle(pilot)
            assert store_for(app).get_run(session.run_id).status is RunStatus.SUCCESS
            assert load_last_choice(key) == StartChoice("slow", "development")
            assert workspace_engines(root) == ["slow"]
    del dialog
