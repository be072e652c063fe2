"""Starting runs: the checks and the engine dialog, the run's worker, its end.

A run goes in an async worker (``group="run"``, one per run, so runs of different suites go at
once). The runner calls back on the app's event loop; the session keeps the rows and the worker
posts coalescing :class:`~nlu_tui.ui.widgets.run_progress.RunUpdated` messages, redrawn a few
times a second, and :class:`~nlu_tui.ui.widgets.run_progress.RunEnded` at the end.
:class:`RunLauncher` is the base of :class:`~nlu_tui.ui.widgets.runs_pane.RunsPane`, which
holds the keys and the history.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.containers import Vertical
from textual.widget import Widget

from nlu_tui.model import RunStatus, Suite
from nlu_tui.runsessions import (
    RunSession,
    active_sessions,
    initial_progress,
    load_stored_rows,
    sessions,
    store_for,
    suite_key_of,
)
from nlu_tui.textsafe import inert
from nlu_tui.ui.navigation import show_main_tab
from nlu_tui.ui.state import hosting_workbench, workspace_root
from nlu_tui.ui.widgets.run_progress import RunEnded, RunUpdated
from nlu_tui.ui.workers import ReportsFailedWorkers, describe
from nlu_tui.views.counts import counted

PAINT_WAIT_S = 0.5
"""At most this long a run's start waits for the screen showing it to be painted (a screen
not on top may not refresh)."""


COLLECTOR_HOLD_MAX_S = 2.0
"""At most this long the collector stays off for a run's start (see :func:`hold_collector`)."""

SETTLE_FRAMES = 3
"""At most this many frames a run's start waits for the screen to settle (see :func:`settled`)."""


async def painted(widget: Widget) -> None:
    """Wait until the screen has refreshed once more (at most :data:`PAINT_WAIT_S`)."""
    done = asyncio.Event()
    widget.screen.call_after_refresh(done.set)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(done.wait(), PAINT_WAIT_S)


def pending_paint(widget: Widget) -> bool:
    """Whether the screen showing ``widget`` has a layout, a repaint or callbacks to come.

    Reads Textual's private refresh flags (tests/test_private_apis.py pins them)."""
    screen = widget.screen
    return bool(
        screen._layout_required
        or screen._repaint_required
        or screen._recompose_required
        or screen._dirty_widgets
        or screen._callbacks
    )


async def settled(widget: Widget) -> None:
    """Wait until the screen is painted and nothing more is queued for it: the frame that
    shows a key's effect, then what that frame itself queued (the footer's keys for the new
    focus, recomposed after it, and their layout). At most :data:`SETTLE_FRAMES` frames, each
    at most :data:`PAINT_WAIT_S`."""
    for _ in range(SETTLE_FRAMES):
        await painted(widget)
        await asyncio.sleep(0)  # let the frame's own callbacks queue what they queue
        if not widget.is_attached or not pending_paint(widget):
            return


class RunLauncher(ReportsFailedWorkers, Vertical):
    """Starts and follows the open suite's runs; the subclass shows them."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.suite: Suite | None = None

    @property
    def suite_key(self) -> str | None:
        return suite_key_of(self.suite) if self.suite is not None else None

    def current_session(self) -> RunSession | None:
        """The open suite's newest run still going, if any."""
        key = self.suite_key
        if key is None:
            return None
        active = active_sessions(self.app, key)
        return active[-1] if active else None

    def _show_progress(self) -> None:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    # --- starting a run -----------------------------------------------------------------

    def action_start_run(self) -> None:
        suite = self.suite
        if suite is None:
            self.notify("Open a suite first.", severity="warning")
            return
        problems = self._problems(suite)
        if problems:
            from nlu_tui.ui.screens.dialogs import ConfirmDialog

            body = Text()
            for p in problems[:12]:
                body.append(inert(f"{p}\n"))
            if len(problems) > 12:
                body.append(f"… and {len(problems) - 12} more\n")

            def go_on(yes: bool | None) -> None:
                if yes:
                    self._ask_engine(suite)

            self.app.push_screen(
                ConfirmDialog(
                    inert(f"{len(problems)} validation problem(s) in {suite.name}", newlines=False),
                    body,
                    yes="Run anyway",
                    no="Go back",
                ),
                go_on,
            )
            return
        self._ask_engine(suite)

    def _problems(self, suite: Suite) -> list[str]:
        from nlu_tui.validation import validate_suite

        out = []
        for p in validate_suite(suite):
            where = f" (case {p.case_id})" if getattr(p, "case_id", None) else ""
            out.append(f"{p.severity}: {p.message}{where}")
        return out

    def _ask_engine(self, suite: Suite) -> None:
        from nlu_tui.engines.choices import StartChoice, engine_choices, load_last_choice
        from nlu_tui.ui.screens.run_start import StartRunDialog

        key = suite_key_of(suite)
        workspace = workspace_root(self)
        choices = engine_choices(suite.path, workspace)

        def chosen(choice: StartChoice | None) -> None:
            if choice is None:
                return
            same = [
                s
                for s in active_sessions(self.app, key)
                if s.engine_name == choice.engine or s.engine_name.endswith(choice.engine)
            ]
            if same:
                from nlu_tui.ui.screens.dialogs import ConfirmDialog

                def again(yes: bool | None) -> None:
                    if yes:
                        self.start_run(
                            suite, choice.engine, choice.stage, choice.note, repeat=choice.repeat
                        )

                self.app.push_screen(
                    ConfirmDialog(
                        "This suite is already running on this engine",
                        "Start a second run of the same suite and engine?",
                        yes="Start another",
                        no="Don't",
                    ),
                    again,
                )
                return
            self.start_run(suite, choice.engine, choice.stage, choice.note, repeat=choice.repeat)

        self.app.push_screen(
            StartRunDialog(
                suite.name,
                choices,
                load_last_choice(key),
                workspace=workspace,
                suite_path=suite.path,
            ),
            chosen,
        )

    def start_run(
        self,
        suite: Suite,
        engine: str,
        stage: str = "development",
        note: str = "",
        resume_run_id: str | None = None,
        *,
        repeat: int = 1,
        rerun_of: str | None = None,
    ) -> None:
        """Start (or resume) a run in a worker; the session appears at once in the panel.
        The spec is remembered for this suite only once the run succeeds (see ``_run_ended``).
        ``repeat`` sends each case that many times (a resume keeps the stored run's count).
        ``rerun_of``: send only that run's failed and errored cases, as a child run (the run
        service's ``--rerun-failed``: its engine and version are the parent's)."""
        release = hold_collector(self)
        self._run_worker(suite, engine, stage, note, resume_run_id, repeat, rerun_of, release)

    def start_runs_in_order(self, suite: Suite, runs: list[tuple[str, str, str]]) -> None:
        """Start the runs ``(engine, stage, note)`` one after the other, each when the one
        before has ended: a new suite's first runs test development, then published, as the
        command line does (two runs at once would double the load on a rate-limited bot)."""
        self._runs_in_order(suite, runs)

    @work(
        group="run",
        exit_on_error=False,
        name="run-both",
        description="Running a suite on both versions",
    )
    async def _runs_in_order(self, suite: Suite, runs: list[tuple[str, str, str]]) -> None:
        for engine, stage, note in runs:
            await self._run_one(suite, engine, stage, note, None)

    @work(group="run", exit_on_error=False, name="run", description="Running a suite")
    async def _run_worker(
        self,
        suite: Suite,
        engine: str,
        stage: str,
        note: str,
        resume_run_id: str | None,
        repeat: int = 1,
        rerun_of: str | None = None,
        release: Callable[[], None] | None = None,
    ) -> None:
        describe(f"Running suite {suite.path.name if suite.path else suite.name} on {engine}")
        await self._run_one(suite, engine, stage, note, resume_run_id, repeat, rerun_of, release)

    async def _run_one(
        self,
        suite: Suite,
        engine: str,
        stage: str,
        note: str,
        resume_run_id: str | None,
        repeat: int = 1,
        rerun_of: str | None = None,
        release: Callable[[], None] | None = None,
    ) -> None:
        """Open the run, show it, run it to its end (errors are notified, never raised).
        ``release`` turns the collector back on once the run is on screen (see
        :func:`hold_collector`)."""
        try:
            await self._run_to_end(
                suite, engine, stage, note, resume_run_id, repeat, rerun_of, release
            )
        finally:
            if release is not None:
                release()

    async def _run_to_end(
        self,
        suite: Suite,
        engine: str,
        stage: str,
        note: str,
        resume_run_id: str | None,
        repeat: int,
        rerun_of: str | None,
        release: Callable[[], None] | None,
    ) -> None:
        from nlu_tui.runservice import RunRequest, open_run

        workspace = workspace_root(self)
        if rerun_of is not None:  # the parent's own cases, engine and version
            request = RunRequest(rerun_failed=rerun_of, note=note, workspace=workspace)
        else:
            request = RunRequest(
                suite=suite,
                engine=engine,
                stage=stage,
                note=note,
                resume=resume_run_id,
                workspace=workspace,
                repeat=repeat if repeat > 1 and not resume_run_id else None,
            )
        try:
            store = store_for(self.app)  # a damaged store file is reported, not swallowed
            # in a thread: it writes every case of a new run, or reads a resumed one's results
            job = await asyncio.to_thread(open_run, request, store)
        except Exception as exc:
            self.notify(escape(str(exc)), title="Cannot start the run", severity="error")
            return
        record = job.record
        session = RunSession(
            run=job,
            suite_key=suite_key_of(suite),
            suite_name=suite.name,
            engine_name=job.engine_name,
            stage=job.stage,
            total=record.total,
            # what the run resolved to (a resumed run's too): a relative embedded:PATH is
            # remembered as the file it named, a profile by its name
            engine_spec=job.engine_name,
            initial=initial_progress(record) if job.resumed else None,
            seeded=not job.resumed,
        )

        def progress(event: Any) -> None:
            session.on_progress(event)
            self.post_message(RunUpdated(session.run_id))

        job.on_progress = progress
        sessions(self.app)[session.run_id] = session
        self.post_message(RunUpdated(session.run_id))
        self._open_in_results(session.run_id)
        show_main_tab(self, "tab-results")
        self._focus_results()
        # The run on screen first: its engine's opening (an embedded model's load) and a
        # resumed run's stored rows go in threads that hold the interpreter lock for long
        # stretches, and started now they delayed this paint by up to half a second. Not
        # just the first frame: the footer recomposes its keys after it and the screen is
        # laid out again; a model loading meanwhile made that second frame the slow one.
        await settled(self)
        if release is not None:
            release()
        if job.resumed:
            self._seed_session(session)
        try:
            session.record = (await job.execute()).record
        except Exception as exc:
            session.error = str(exc) or type(exc).__name__
        finally:
            self.post_message(RunEnded(session.run_id))

    @work(
        thread=True,
        group="run-seed",
        exit_on_error=False,
        name="run-seed",
        description="Reading the stored results of a run",
    )
    def _seed_session(self, session: RunSession) -> None:
        """Load a resumed run's stored results, so its live view starts from them."""
        try:
            stored, prepared = load_stored_rows(store_for(self.app), session.run_id)
        except Exception as exc:
            self.app.call_from_thread(
                self.notify,
                escape(str(exc)),
                title="Cannot show the run's earlier results",
                severity="warning",
            )
            return
        self.app.call_from_thread(self._seeded, session, stored, prepared)

    def _seeded(self, session: RunSession, stored: list[Any], prepared: Any) -> None:
        session.seed(stored, prepared)
        self.post_message(RunUpdated(session.run_id))

    @on(RunUpdated)
    def _run_updated(self, message: RunUpdated) -> None:
        message.stop()
        session = sessions(self.app).get(message.run_id)
        if session is not None and session.suite_key == self.suite_key:
            self._show_progress()

    @on(RunEnded)
    def _run_ended(self, message: RunEnded) -> None:
        message.stop()
        session = sessions(self.app).get(message.run_id)
        if session is None:
            return
        status = session.status
        progress = session.progress()
        done = progress.done if progress else 0
        if status is RunStatus.CANCELED:
            self.notify(
                f"Run canceled; {done}/{counted(session.total, 'case')} done.", severity="warning"
            )
        elif status is RunStatus.FAILED:
            reason = session.record.reason if session.record else session.error
            self.notify(escape(f"Run failed: {reason}"), severity="error", timeout=8)
        elif status is RunStatus.INTERRUPTED:  # the run store went away and stayed away
            reason = session.record.reason if session.record else session.error
            self.notify(
                escape(f"Run interrupted: {reason}. Resume it with u in the Runs tab."),
                severity="error",
                timeout=10,
            )
        elif status is RunStatus.SUCCESS_WITH_WARNING:
            reason = session.record.reason if session.record else ""
            self.notify(escape(f"Run finished with a warning: {reason}"), severity="warning")
        else:
            self.notify(f"Run finished: {done}/{counted(session.total, 'case')}.", timeout=3)
        if session.engine_spec and status in (
            RunStatus.SUCCESS,
            RunStatus.SUCCESS_WITH_WARNING,
        ):
            from nlu_tui.engines.choices import StartChoice, save_last_choice

            with contextlib.suppress(OSError):
                save_last_choice(
                    session.suite_key,
                    StartChoice(session.engine_spec, session.stage),
                    workspace_root(self),
                )
        self._show_progress()
        self.reload()
        host = hosting_workbench(self)
        if host is not None:
            host.refresh_suites()

    def _open_in_results(self, run_id: str) -> None:
        from nlu_tui.ui.widgets.results_pane import ResultsPane

        panes = self.screen.query(ResultsPane)
        if panes:
            panes.first().show_run(run_id)

    def _focus_results(self) -> None:
        from nlu_tui.ui.widgets.results_pane import ResultsPane

        panes = self.screen.query(ResultsPane)
        if panes:
            panes.first().table.focus_table()


def hold_collector(widget: Widget) -> Callable[[], None]:
    """Turn the cyclic collector off from a run's key until the run is on screen; returns the
    function that turns it back on (once; a timer does it after :data:`COLLECTOR_HOLD_MAX_S`
    whatever happens to the run's worker).

    Textual does the same for smooth scrolls (``App._realtime_animation_begin``). Between
    ``u`` and its settled frame a full pass of the collector came in most rounds of the keys
    bench: 60–530 ms (under load) walking the 35,000–160,000 objects built since start-up
    was parked, inside the key; it now comes right after the frame, as the run starts. An
    app whose collector is off (start-up's pause) is left as it is."""
    import gc

    if not gc.isenabled():
        return lambda: None
    gc.disable()
    released = False

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            gc.enable()

    widget.set_timer(COLLECTOR_HOLD_MAX_S, release)
    return release
