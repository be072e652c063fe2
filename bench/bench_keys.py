"""How fast the workbench's keys react: per-key latency percentiles, and quit.

Issue 23 item 5: every key of the workbench reacts within 100 ms on an idle machine, quit
within 300 ms. The app runs on a copy of the sample workspace (the banking suite, its training
data, two finished runs and canceled runs to resume, all made by the real CLI and store) and
is driven by Textual's Pilot: each key is posted to the app as the terminal driver posts it,
and the clock stops once the key's effect is on screen (the dialog or screen on top with its
focus, the pane focused, the run's progress shown) and the app has painted it. Each key is
measured ``--rounds`` times (closed again in between, untimed) and printed as p50/p95/max.
Help counts as shown once its table of keys is drawn (not its "Reading the keys…" line), the
palette once its list of commands is (Textual hides the palette's box until the list is filled).

The app is started as ``nlu-tui`` starts it (``cli/tui.open_workbench``): the cyclic collector
is paused before the app is built and the app turns it back on a second after its first screen,
parking start-up's objects outside it (``gc.freeze``; ``gcpause.end_start_up_pause``). Without
that, a full collection over start-up's objects (tens of ms) fell inside one key in a few and
was a p95 the user never sees.

The reference, measured in the same run, is a minimal Textual app's round trip for a key that
opens a one-label modal screen: the ratio says how far each key is from what Textual itself
costs on this machine now (the figures move with the load; the ratios much less). A second
reference is Textual's own command palette in that minimal app (its four system commands),
until its list is shown: the floor under the workbench's palette.

One tmux run at 80x24 then times help, palette, editor and quit as a user sees them (the time
until the pane shows the result; the pane is polled every 5 ms), and quit until the process
has exited.

Run: ``.venv/bin/python bench/bench_keys.py [--rounds 9] [--no-tmux]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_suites"
SIZE = (120, 36)
CANCELED_RUNS = 4


# --- the workspace ---------------------------------------------------------------------------


def make_workspace(base: Path) -> Path:
    """A workspace with the sample suite and training data, two finished runs of the embedded
    engine and a few canceled runs (nothing sent) to resume."""
    root = base / "ws"
    root.mkdir()
    for name in ("banking_bot.suite.yaml", "banking_bot.nlu.yml"):
        shutil.copy(SAMPLES / name, root / name)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    engine = f"embedded:{root / 'banking_bot.nlu.yml'}"
    suite_file = str(root / "banking_bot.suite.yaml")
    for _ in range(2):
        subprocess.run(
            [sys.executable, "-m", "nlu_tui", "run", suite_file, "--engine", engine],
            env=env,
            check=True,
            capture_output=True,
        )
    from nlu_tui.formats.native import load_suite
    from nlu_tui.model import RunStatus
    from nlu_tui.store import RunStore

    suite = load_suite(root / "banking_bot.suite.yaml")
    store = RunStore()
    for _ in range(CANCELED_RUNS):
        run = store.create_run(suite, engine_name=f"embedded:{root / 'banking_bot.nlu.yml'}")
        store.finish_run(run.id, RunStatus.CANCELED)
    store.close()
    return root


# --- timing ----------------------------------------------------------------------------------


def stats(values: list[float]) -> tuple[float, float, float]:
    """p50, p95 (nearest rank) and max, in ms."""
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered) + 0.5) - 1))]
    return statistics.median(ordered) * 1000, p95 * 1000, ordered[-1] * 1000


async def painted(app: Any) -> None:
    """Wait until the app has refreshed the screen on top once more."""
    done = asyncio.Event()
    app.screen.call_after_refresh(done.set)
    await done.wait()


async def timed_key(app: Any, key: str, ready: Callable[[], bool], timeout: float = 10.0) -> float:
    """Post ``key`` as the driver does; seconds until ``ready()`` holds and it is painted."""
    from textual import events

    started = time.perf_counter()
    app.post_message(events.Key(key, key if len(key) == 1 else None))
    while not ready():
        if time.perf_counter() - started > timeout:
            raise TimeoutError(f"{key}: no reaction within {timeout} s")
        await asyncio.sleep(0.001)
    await painted(app)
    return time.perf_counter() - started


async def idle(pilot: Any) -> None:
    """Let workers and their callbacks finish between rounds (untimed)."""
    for _ in range(3):
        busy = [w for w in pilot.app.workers if w.group != "_loader"]
        if busy:  # an exclusive worker replaced meanwhile ends as cancelled: not an error
            await asyncio.gather(*(w.wait() for w in busy), return_exceptions=True)
        await pilot.pause(0.05)


# --- the reference ---------------------------------------------------------------------------


async def reference(rounds: int) -> tuple[list[float], list[float]]:
    """A minimal Textual app: a key that pushes a modal screen with one label; and Textual's
    own command palette in it (its few system commands), until its list is shown."""
    from textual.app import App, ComposeResult
    from textual.binding import Binding
    from textual.command import CommandPalette
    from textual.screen import ModalScreen
    from textual.widgets import Label

    class One(ModalScreen[None]):
        BINDINGS = [Binding("escape", "app.pop_screen")]

        def compose(self) -> ComposeResult:
            yield Label("one")

    class Minimal(App[None]):
        BINDINGS = [Binding("x", "open")]

        def compose(self) -> ComposeResult:
            yield Label("minimal")

        def action_open(self) -> None:
            self.push_screen(One())

    app = Minimal()
    out: list[float] = []
    palette: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        for _ in range(rounds):
            out.append(await timed_key(app, "x", lambda: isinstance(app.screen, One)))
            await pilot.press("escape")
            await pilot.pause(0.05)

        def palette_shown() -> bool:
            return isinstance(app.screen, CommandPalette) and app.screen.has_class("-ready")

        for _ in range(rounds):
            palette.append(await timed_key(app, "ctrl+p", palette_shown))
            await pilot.press("escape")
            await pilot.pause(0.05)
    return out, palette


# --- the workbench ---------------------------------------------------------------------------


async def workbench(root: Path, rounds: int) -> dict[str, list[float]]:
    import gc

    from textual.command import CommandPalette
    from textual.widgets import DataTable

    from nlu_tui.gcpause import is_parked, pause_for_start_up
    from nlu_tui.ui.app import NluTuiApp
    from nlu_tui.ui.screens.case_editor import CaseEditorScreen
    from nlu_tui.ui.screens.generate_dialog import GenerateScreen
    from nlu_tui.ui.screens.help import HelpScreen
    from nlu_tui.ui.screens.run_diff import DiffScreen
    from nlu_tui.ui.widgets.cases_view import CasesView
    from nlu_tui.ui.widgets.rendered_once import RenderedOnce
    from nlu_tui.ui.widgets.results_detail import ResultDetail
    from nlu_tui.ui.widgets.runs_pane import RunsPane
    from nlu_tui.workspace import open_workspace

    pause_for_start_up()  # as cli/tui.open_workbench does: the app turns it on after start-up
    app = NluTuiApp(open_workspace(root), cursor_blink=False, user_themes=False)
    figures: dict[str, list[float]] = {}

    def on_top(cls: type) -> Callable[[], bool]:
        return lambda: isinstance(app.screen, cls) and app.screen.focused is not None

    def help_shown() -> bool:
        screen = app.screen
        return on_top(HelpScreen)() and screen.query_one("#help-keys", RenderedOnce).ready

    def palette_shown() -> bool:  # Textual shows the palette's box once its list is filled
        return on_top(CommandPalette)() and app.screen.has_class("-ready")

    async with app.run_test(size=SIZE) as pilot:
        await idle(pilot)
        deadline = time.perf_counter() + 60
        while not gc.isenabled():  # the app turns it on (and builds its dialogs) after 1 s
            if time.perf_counter() > deadline:
                raise TimeoutError("the app did not turn the collector back on")
            await pilot.pause(0.05)
        await idle(pilot)
        assert is_parked(), "start-up's objects were not parked"
        main = app.screen
        cases = main.query_one(CasesView)

        async def cases_focused() -> None:
            while app.screen is not main:
                app.pop_screen()
                await pilot.pause()
            app.show_tab("tab-cases")
            await idle(pilot)

        async def close(key: str = "escape") -> None:
            await pilot.press(key)
            await idle(pilot)
            while app.screen is not main:
                app.pop_screen()
                await pilot.pause(0.05)

        for name, key, shown in (
            ("editor (e)", "e", on_top(CaseEditorScreen)),
            ("palette (ctrl+p)", "ctrl+p", palette_shown),
            ("help (F1)", "f1", help_shown),
            ("generate dialog (G)", "G", on_top(GenerateScreen)),
        ):
            figures[name] = []
            for _ in range(rounds):
                await cases_focused()
                assert cases.table is not None and cases.table.has_focus, app.focused
                figures[name].append(await timed_key(app, key, shown))
                await close()

        # the runs tab: diff the newest finished run with the one before, resume canceled runs
        app.show_tab("tab-runs")
        await idle(pilot)
        runs = main.query_one(RunsPane)
        table = runs.query_one("#runs-table", DataTable)

        def select(status: str, skip: int = 0) -> None:
            rows = [n for n, r in enumerate(runs.history) if r.record.status.value == status]
            table.move_cursor(row=rows[skip])
            table.focus()

        figures["diff (D)"] = []
        for _ in range(rounds):
            select("success")
            await idle(pilot)
            figures["diff (D)"].append(await timed_key(app, "D", on_top(DiffScreen)))
            await close()
            app.show_tab("tab-runs")

        from nlu_tui.runsessions import active_sessions

        figures["resume (u)"] = []
        for _ in range(min(rounds, CANCELED_RUNS)):
            select("canceled")
            await idle(pilot)
            figures["resume (u)"].append(
                await timed_key(app, "u", lambda: bool(active_sessions(app)))
            )
            while active_sessions(app):
                await pilot.pause(0.1)
            await idle(pilot)
            app.show_tab("tab-runs")
            await idle(pilot)

        # the results tab: a finished run open, the detail pane focused with d
        select("success")
        await pilot.press("enter")
        await idle(pilot)
        figures["detail (d)"] = []
        for _ in range(rounds):
            app.show_tab("tab-results")
            await idle(pilot)
            pane = app.screen.query_one("#tab-results")
            target = pane.query(DataTable).first()
            target.focus()
            await idle(pilot)
            detail = pane.query_one(ResultDetail)
            figures["detail (d)"].append(
                await timed_key(
                    app,
                    "d",
                    lambda detail=detail: (
                        app.focused is not None  # type: ignore[misc]
                        and detail in app.focused.ancestors_with_self
                    ),
                )
            )

        figures["quit (ctrl+q)"] = []
        started = time.perf_counter()
        await pilot.press("ctrl+q")
        while app.is_running and app.return_code is None:
            await asyncio.sleep(0.001)
        figures["quit (ctrl+q)"].append(time.perf_counter() - started)
    return figures


# --- tmux ------------------------------------------------------------------------------------


def tmux_run(root: Path) -> dict[str, float] | None:
    """Help, palette, editor and quit as a user at 80x24 sees them, from send-keys to the pane."""
    if shutil.which("tmux") is None:
        return None
    socket = f"bench-keys-{os.getpid()}"

    def tmux(*args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", socket, *args], capture_output=True, text=True, check=False
        ).stdout

    def wait_for(text: str, timeout: float = 20.0) -> float:
        started = time.perf_counter()
        while text not in tmux("capture-pane", "-p", "-t", "b"):
            if time.perf_counter() - started > timeout:
                raise TimeoutError(text)
            time.sleep(0.005)
        return time.perf_counter() - started

    env = f"PYTHONPATH={REPO} NLU_TUI_DATA_DIR={os.environ['NLU_TUI_DATA_DIR']}"
    env += f" NLU_TUI_CONFIG_DIR={os.environ['NLU_TUI_CONFIG_DIR']}"
    command = f"env {env} {sys.executable} -m nlu_tui {root}; echo EXITED; sleep 30"
    tmux("new-session", "-d", "-s", "b", "-x", "80", "-y", "24", command)
    out: dict[str, float] = {}
    try:
        wait_for("of 54 cases")
        tmux("send-keys", "-t", "b", "F3")
        time.sleep(1.0)
        for name, key, shows, close in (
            ("help (F1)", "F1", "Keys", "Escape"),
            ("palette (ctrl+p)", "C-p", "Search for commands", "Escape"),
            ("editor (e)", "e", "Edit case", "Escape"),
        ):
            tmux("send-keys", "-t", "b", key)
            out[name] = wait_for(shows)
            time.sleep(0.5)
            tmux("send-keys", "-t", "b", close)
            time.sleep(1.0)
        tmux("send-keys", "-t", "b", "C-q")
        out["quit (ctrl+q)"] = wait_for("EXITED")
    finally:
        tmux("kill-server")
    return out


# --- main ------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--no-tmux", action="store_true")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-keys-"))
    os.environ["NLU_TUI_DATA_DIR"] = str(base / "data")
    os.environ["NLU_TUI_CONFIG_DIR"] = str(base / "config")
    sys.path.insert(0, str(REPO))
    try:
        root = make_workspace(base)
        ref, ref_palette = asyncio.run(reference(args.rounds))
        figures = asyncio.run(workbench(root, args.rounds))
        ref50 = statistics.median(ref)
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(f"{'key':<22} {'n':>3} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'p50/ref':>8}")
        rows = [("reference (minimal)", ref), ("minimal app's palette", ref_palette)]
        for name, values in [*rows, *figures.items()]:
            p50, p95, top = stats(values)
            ratio = statistics.median(values) / ref50
            print(f"{name:<22} {len(values):>3} {p50:>8.1f} {p95:>8.1f} {top:>8.1f} {ratio:>8.1f}")
        if not args.no_tmux:
            shown = tmux_run(root)
            if shown is None:
                print("tmux: not installed")
            else:
                print("tmux 80x24, send-keys to the pane showing it (polled every 5 ms):")
                for name, seconds in shown.items():
                    print(f"  {name:<20} {seconds * 1000:>8.1f} ms")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
