"""The workbench app: global bindings, themes, the palette, and the open suite.

The app owns state every pane needs (typed in :class:`~nlu_tui.ui.state.Workbench`: the
workspace, the open suite as a reactive, the run store) and the global keys; screens and widgets own their own flows and talk upward with messages. Heavy
imports (pyarrow, the formats, the store) happen in workers after the first paint.
"""

from __future__ import annotations

import contextlib
from collections import deque
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.command import CommandPalette
from textual.notifications import SeverityLevel
from textual.theme import Theme

from nlu_tui.gcpause import end_start_up_pause, is_parked, park_long_lived
from nlu_tui.textsafe import inert
from nlu_tui.ui.commands import NluCommands, PaletteCommand
from nlu_tui.ui.keyhold import BINDING, BINDING_HOLD_SECONDS, FIELD_HOLD_SECONDS, KeyHold
from nlu_tui.ui.state import Workbench
from nlu_tui.ui.workers import ReportsFailedWorkers
from nlu_tui.workspace import Workspace

if TYPE_CHECKING:
    from nlu_tui.runsessions import RunSession
    from nlu_tui.store import RunStore


class NluTuiApp(ReportsFailedWorkers, Workbench):
    """nlu-tui's workbench. ``suite`` is the suite open in the main screen (None before one is)."""

    TITLE = "nlu-tui"
    prebuild_after: float | None = 1.0
    """Seconds after mounting when the dialogs a key opens are built ahead of it
    (:meth:`prebuild_dialogs`; the first full screen is up by then). ``None`` builds each on its
    key instead: most of the test suite's apps, to keep CI within its time
    (``tests/ui_support.new_app``); the tests of the reuse keep it."""
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {NluCommands}
    ENABLE_COMMAND_PALETTE = True
    COMMAND_PALETTE_BINDING = "ctrl+p"

    BINDINGS = [
        Binding(
            "ctrl+q,f10",
            "quit",
            "Quit",
            priority=True,
            id="app.quit",
            tooltip="Quit nlu-tui (edits are saved as you make them; asks first if one "
            "could not be saved).",
        ),
        Binding(
            "ctrl+s",
            "save_again",
            "Save again",
            show=False,
            id="app.save-again",
            tooltip="Save again the edits that could not be saved (a full or read-only disk).",
        ),
        Binding(
            "question_mark,f1",
            "help",
            "Help",
            key_display="?/F1",
            id="app.help",
            tooltip="Show every key of the focused pane and of the app.",
        ),
        Binding(
            "f9,ctrl+backslash",
            "next_theme",
            "Theme",
            show=False,
            id="app.theme",
            tooltip="Switch to the next colour theme (remembered).",
        ),
    ]

    def __init__(
        self, workspace: Workspace, *, cursor_blink: bool = True, user_themes: bool = True
    ) -> None:
        super().__init__()
        self.workspace = workspace
        self.cursor_blink = cursor_blink
        self.user_themes = user_themes
        self.theme_failures: list[str] = []
        self._restoring_theme = False
        self.user_keymap: dict[str, str] = {}
        """The user's ``keymap:`` from settings.yaml (binding id -> keys), as applied."""
        self.keymap_problems: list[str] = []
        self.nlu_theme_names: list[str] = []
        self.training_intents: list[str] = []
        """Intents of the workspace's ``*.nlu.yml`` training data, offered by the case editor's
        completion next to the suite's own; filled by a worker after the first paint."""
        self.engine_intents: set[str] = set()
        """Intents an engine listed for a coverage check (the case editor knows them)."""
        self.run_store: RunStore | None = None
        """The run store every pane shares, opened on first use (runsessions.store_for)."""
        self.run_sessions: dict[str, RunSession] = {}
        """The runs started in this app (new or resumed), by run id."""
        # Before the app runs: the stylesheet is then first parsed with the chosen theme's
        # colours. Set from on_mount, the theme made Textual parse and apply it all again
        # before the first frame (a fifth of the start-up's own work).
        self._register_themes()
        self._startup_css: dict[str, str] | None = self.get_css_variables()
        """The theme's CSS variables, given to the stylesheet before its first parse; setting
        the theme above also queued Textual's refresh of the CSS, which would clear the parsed
        rules and parse and apply them all again before the first frame (:meth:`refresh_css`
        skips that one when the variables are the same)."""
        self.stylesheet.set_variables(self._startup_css)
        self.key_hold = KeyHold(self, self._deliver_key)
        """Keys typed while their target is being built (a dialog, the cases table)."""
        self._keys_out: deque[tuple[events.Key, object, object]] = deque(maxlen=KEYS_OUT)
        """The last keys forwarded to a screen's focused widget, with that screen and widget."""

    async def on_event(self, event: events.Event) -> None:
        """Hold the keys read while their target is being built or while the key before them is
        on its way through the widgets (:mod:`nlu_tui.ui.keyhold`), except the app's priority
        keys (quit), then deliver keys as :meth:`_deliver_key` does."""
        if isinstance(event, events.Key) and event.is_forwarded:
            await self._key_came_back(event)
            return
        if (
            isinstance(event, events.Key)
            and not self._bypasses_hold(event.key)
            and self.key_hold.take(event)
        ):
            return
        if isinstance(event, events.Key):
            await self._deliver_key(event)
            return
        await super().on_event(event)

    async def _key_came_back(self, event: events.Key) -> None:
        """A key back from the focused widget unused: the app's own binding runs now (F3
        focuses the cases table, backspace deletes in a field). What it moves, the focus,
        moves only once the messages queued meanwhile are handled: the keys read behind it
        wait until then, to land where it moved (F3 then G, typed at once, opened nothing: G
        went to the suites list). A key that comes back from a screen no longer on top, or a
        widget no longer focused, belongs to what is there now: it is delivered again, ahead
        of the keys read behind it."""
        self.key_hold.hold(BINDING, BINDING_HOLD_SECONDS)
        self.key_hold.landed(event)
        try:
            if self._came_back(event):
                again = events.Key(event.key, event.character)  # as if typed now, on this screen
                if not self.key_hold.first(again):
                    await self._deliver_key(again)
                return
            await super().on_event(event)
        finally:
            self.call_later(self.key_hold.release, BINDING)

    def _came_back(self, event: events.Key) -> bool:
        """Whether ``event`` was forwarded to a screen that is no longer on top, or to a widget
        that no longer has the focus, and came back up unused: a key typed right behind the
        one that opened a dialog (or moved the focus), read before the dialog was on top. It
        belongs to the dialog (a dialog built beforehand is on top and focused at once, with
        no hold open to take such keys), or to the widget focused now."""
        for n, (sent, screen, focused) in enumerate(self._keys_out):
            if sent is event:
                del self._keys_out[n]
                return screen is not self.screen or focused is not self.focused
        return False

    def _bypasses_hold(self, key: str) -> bool:
        return any(b.priority for b in self._bindings.key_to_bindings.get(key, ()))

    async def _deliver_key(self, event: events.Key) -> None:
        """Move the focus as Tab is read, so the keys typed right behind it land in the next field.

        Textual forwards each key to the widget focused when the app reads it; Tab moves the
        focus only once the focused widget has let it bubble up to the screen's binding, by
        which time the keys queued behind it (a paste, a fast typist) were already forwarded to
        the old field. When the binding Tab would reach is the plain focus move, it is run here,
        before the next key is read; a widget that takes Tab itself (a TextArea that indents)
        or any other binding for it keeps Textual's usual path. A :class:`TextField` decides
        itself (a completion first), after the keys queued before the Tab: the keys behind it
        are held until it has."""
        if event.key == "tab" and _decides_tab(self.focused):
            self.key_hold.hold("field-tab", FIELD_HOLD_SECONDS)
        elif event.key in FOCUS_KEYS and self._tab_moves_focus(event.key):
            self.app_focus = True
            if not await self._check_bindings(event.key, priority=True):
                await self.run_action(FOCUS_KEYS[event.key], self.screen)
            return
        target = self.focused or self.screen
        self._keys_out.append((event, self.screen, self.focused))
        await super().on_event(event)
        if event.is_forwarded:  # not taken by a priority binding: on its way through the widgets
            self.key_hold.follow(event, target)

    def _tab_moves_focus(self, key: str) -> bool:
        """Whether the first binding ``key`` meets, from the focused widget up, moves focus."""
        try:
            chain = self.screen._modal_binding_chain
        except Exception:  # no screen yet
            return False
        for _node, bindings in chain:
            for binding in bindings.key_to_bindings.get(key, ()):
                if not binding.priority:
                    return binding.action in (FOCUS_KEYS[key], FOCUS_KEYS[key].removeprefix("app."))
        return False

    def refresh_css(self, animate: bool = True) -> None:
        """Textual's refresh of the CSS, except the one queued by setting the remembered theme
        in ``__init__`` (the first one), when the stylesheet still has that theme's variables:
        it would only parse the same rules again and apply them to the same styles. Every later
        refresh, a theme switched with F9 included, runs in full."""
        startup, self._startup_css = self._startup_css, None
        if startup is not None and startup == self.get_css_variables():
            return
        super().refresh_css(animate)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Fallbacks so Textual's own themes work with our CSS too."""
        return {"pass-color": "green", "fail-color": "red", "warn-color": "darkorange"}

    # --- lifecycle ------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.screen_change_signal.subscribe(self, self.key_hold.screen_changed, immediate=True)
        if self.theme_failures:
            self._report("Some themes could not be loaded", self.theme_failures, "error")
        self._apply_keymap()
        from nlu_tui.ui.screens.main import MainScreen, after_first_screen

        self.push_screen(MainScreen())
        # after the first paint and the first suite's load have had their turn (and, on a
        # slow or loaded machine, not before the first full screen: see after_first_screen)
        after_first_screen(self, 0.5, self.load_training_intents)
        after_first_screen(self, COLLECTOR_RESUMES_AFTER, end_start_up_pause)
        if self.prebuild_after is not None:
            after_first_screen(self, self.prebuild_after, self.prebuild_dialogs)
        from nlu_tui.ui.hangup import watch_terminal

        watch_terminal(self)

    @work(
        exclusive=True,
        group="prebuild",
        exit_on_error=False,
        name="prebuild",
        description="Preparing the dialogs",
    )
    async def prebuild_dialogs(self) -> None:
        """Build the dialogs a key opens (the case editor, the generate dialog, the runs' diff,
        help) once, now that the app is idle,
        so the key only refills and shows them (:mod:`nlu_tui.ui.reuse`)."""
        from nlu_tui.ui.reuse import prebuild
        from nlu_tui.ui.screens.case_editor import CaseEditorScreen
        from nlu_tui.ui.screens.generate_dialog import GenerateScreen
        from nlu_tui.ui.screens.help import prebuild_help
        from nlu_tui.ui.screens.run_diff import DiffScreen

        await prebuild(self, CaseEditorScreen.blank())
        await prebuild(self, GenerateScreen.blank())
        await prebuild(self, DiffScreen.blank())
        await prebuild_help(self)
        if is_parked():  # start-up's objects are: these live as long as the app, as they do
            park_long_lived()

    @work(
        thread=True,
        exclusive=True,
        group="training-intents",
        exit_on_error=False,
        name="training-intents",
        description="Reading the intents of the training data",
    )
    def load_training_intents(self) -> None:
        """Read the intents of every training file in the workspace (a broken file is skipped:
        it is reported when that file is opened or used for a run)."""
        from nlu_tui.formats.rasa_yaml import load_training_data

        names: set[str] = set()
        for path in self.workspace.training_paths():
            try:
                data = load_training_data(path)
            except Exception:
                continue
            names.update(example.intent for example in data.examples if example.intent)
            names.update(data.intent_metadata)
        self.training_intents = sorted(names)

    def _register_themes(self) -> None:
        from nlu_tui import paths, themes

        dirs = [paths.bundled_themes_dir()]
        if self.user_themes:
            dirs.append(paths.config_dir() / "themes")
        specs, failed = themes.load_themes(dirs)
        for spec in specs:
            colours = spec.colours  # themes.COLOUR_KEYS, "primary" always among them
            try:
                self.register_theme(
                    Theme(
                        name=spec.name,
                        primary=colours["primary"],
                        secondary=colours.get("secondary"),
                        accent=colours.get("accent"),
                        background=colours.get("background"),
                        surface=colours.get("surface"),
                        panel=colours.get("panel"),
                        warning=colours.get("warning"),
                        error=colours.get("error"),
                        success=colours.get("success"),
                        foreground=colours.get("foreground"),
                        dark=spec.dark,
                        variables=spec.variables,
                    )
                )
                self.nlu_theme_names.append(spec.name)
            except Exception as exc:  # a colour Textual rejects
                failed.append(f"{spec.path.name if spec.path else spec.name}: {exc}")
        self.theme_failures = failed
        wanted = themes.remembered_theme() if self.user_themes else None
        for name in (wanted, themes.DEFAULT_THEME):
            if name and name in self.available_themes:
                try:
                    self._restoring_theme = True  # already remembered: no settings write
                    self.theme = name
                    break
                except Exception:
                    continue
                finally:
                    self._restoring_theme = False

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast (widgets' ``notify`` ends here) with its text made inert: messages quote
        suite files, engine answers and file names. Markup is escaped by the callers."""
        super().notify(
            inert(message),
            title=inert(title, newlines=False),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )

    def _report(self, title: str, lines: list[str], severity: SeverityLevel) -> None:
        """One notice listing what the user's files got wrong (their text escaped)."""
        from rich.markup import escape

        self.notify(escape("\n".join(lines)), title=title, severity=severity, timeout=8)

    def _apply_keymap(self) -> None:
        """Remap keys from settings.yaml's ``keymap:``; bad entries are skipped and reported
        (with ids no binding has) in one notice."""
        if not self.user_themes:
            return
        from nlu_tui import keymap

        entries, problems = keymap.load_keymap()
        if entries:
            known = known_binding_ids()
            for binding_id in entries:
                if binding_id not in known:
                    problems.append(f"keymap.{binding_id}: no key binding has this id")
            entries = {k: v for k, v in entries.items() if k in known}
        self.user_keymap = entries
        self.keymap_problems = problems
        if entries:
            self.set_keymap(entries)
        if problems:
            self._report("Some keymap entries were ignored", problems, "warning")

    def watch_theme(self, name: str) -> None:
        if self.user_themes and name in self.nlu_theme_names and not self._restoring_theme:
            from nlu_tui import themes

            with contextlib.suppress(OSError):
                themes.remember_theme(name)

    # --- actions ----------------------------------------------------------------------------

    async def action_quit(self) -> None:
        """Quit, but never drop an edit silently: with unsaved edits, ask first."""
        from textual.worker import WorkerState

        from nlu_tui.ui.screens.dialogs import UnsavedQuitScreen

        saving = [
            w
            for w in self.workers
            if w.group in ("cases-save", "save-again")
            and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
        ]
        if saving:  # a save under way may yet fail: its outcome decides whether to ask
            await self.workers.wait_for_complete(saving)
        unsaved = self.workspace.unsaved()
        if not unsaved:
            self.exit()
            return
        if isinstance(self.screen, UnsavedQuitScreen):
            return

        def decided(choice: str | None) -> None:
            if choice == "discard":
                self.exit()
            elif choice == "save":
                self._save_again(quit_after=True)

        self.push_screen(UnsavedQuitScreen(unsaved), decided)

    def request_quit(self) -> None:
        """:meth:`action_quit` from a plain callback (the palette's)."""
        self.call_later(self.action_quit)

    def action_save_again(self) -> None:
        """Retry every edit that could not be saved (also tried with the next edit)."""
        if not self.workspace.unsaved():
            self.notify("Everything is saved.", timeout=2)
            return
        self._save_again(quit_after=False)

    @work(
        thread=True,
        exclusive=True,
        group="save-again",
        exit_on_error=False,
        name="save-again",
        description="Saving the unsaved edits again",
    )
    def _save_again(self, quit_after: bool) -> None:
        left = self.workspace.save_unsaved()
        self.call_from_thread(self._saved_again, left, quit_after)

    def _saved_again(self, left: list[Any], quit_after: bool) -> None:
        from nlu_tui.textsafe import inert_markup

        self.refresh_unsaved()
        if left:
            lines = [f"{pending.path.name}: {pending.error}" for pending in left]
            self.notify(
                inert_markup("\n".join(lines)),
                title="Still not saved" + (" (not quitting)" if quit_after else ""),
                severity="error",
                timeout=10,
            )
            return
        if quit_after:
            self.exit()
            return
        self.notify("All edits saved.", timeout=3)

    def refresh_unsaved(self) -> None:
        """Show which suites have unsaved edits (the suites panel's marks, the cases status)."""
        from nlu_tui.ui.widgets.cases_view import CasesView
        from nlu_tui.ui.widgets.suites_panel import SuitesPanel

        for screen in self.screen_stack:
            for panel in screen.query(SuitesPanel):
                panel.refresh_unsaved()
            for view in screen.query(CasesView):
                view.refresh_status()

    def action_command_palette(self) -> None:
        """Textual's palette (as ``App.action_command_palette``), dimming the screen below
        once per change (:class:`~nlu_tui.ui.commands.NluCommandPalette`)."""
        from nlu_tui.ui.commands import NluCommandPalette

        if self.use_command_palette and not isinstance(self.screen, CommandPalette):
            self.push_screen(NluCommandPalette(id="--command-palette"))

    def action_help(self) -> None:
        from nlu_tui.ui.reuse import keep, spare
        from nlu_tui.ui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        screen = spare(self, HelpScreen)
        if screen is None:
            screen = HelpScreen()
            keep(self, screen)
        screen.refill(self.screen)  # the keys of the screen it opens over
        self.push_screen(screen)

    def use_theme(self, name: str) -> None:
        self.theme = name

    def action_next_theme(self) -> None:
        names = self.nlu_theme_names or list(self.available_themes)
        current = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(current + 1) % len(names)]
        self.notify(f"Theme: {self.theme}", timeout=2)

    def show_tab(self, pane_id: str) -> None:
        """Switch the main screen's right-hand tabs (``tab-cases``, ``tab-runs``, ``tab-results``).

        ``App.query`` only sees the app's own children, not a pushed screen's widgets, so this
        asks the MainScreen in the stack (which may sit under a modal or the palette)."""
        from nlu_tui.ui.screens.main import MainScreen

        for screen in reversed(self.screen_stack):
            if isinstance(screen, MainScreen):
                screen.show_tab(pane_id)
                return

    def refresh_suites(self) -> None:
        """List the workspace again (after a run, so the panel shows its status and F1)."""
        from nlu_tui.ui.widgets.suites_panel import SuitesPanel

        for screen in self.screen_stack:
            for panel in screen.query(SuitesPanel):
                panel.reload()
        self.load_training_intents()

    def deliver_screenshot(
        self,
        filename: str | None = None,
        path: str | None = None,
        time_format: str | None = None,
    ) -> str | None:
        """Textual's screenshot (the palette's "Screenshot"), into a folder that exists: the
        folder asked for, else the user's Downloads folder, made when missing; when it cannot
        be made or written, the notification says why (Textual's own says only "failed")."""
        import os

        from platformdirs import user_downloads_path

        if self._driver is not None and self._driver.is_web:  # a browser download: no folder
            return super().deliver_screenshot(filename, path, time_format)
        folder = Path(path).expanduser() if path else Path(user_downloads_path())
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not os.access(folder, os.W_OK | os.X_OK):
                raise PermissionError(f"{folder} is not writable")
        except OSError as exc:
            reason = exc.strerror or str(exc)
            self.notify(
                inert(f"Cannot save the screenshot in {folder}: {reason}."),
                title="Screenshot",
                severity="error",
                markup=False,
            )
            return None
        return super().deliver_screenshot(filename, str(folder), time_format)

    def action_conversation_tests(self) -> None:
        """Open the conversation tests screen (E2E test files of the workspace)."""
        from nlu_tui.ui.screens.conversation_tests import ConversationScreen

        self.push_screen(ConversationScreen())

    def action_talk(self) -> None:
        """Open "talk to the bot": chat with a conversation engine, save it as a test case."""
        from nlu_tui.ui.screens.talk import TalkScreen

        self.push_screen(TalkScreen(folder=self.workspace.root))

    def palette_commands(self) -> list[PaletteCommand]:
        """App commands followed by those of every mounted widget that offers some."""
        commands = [
            PaletteCommand("app: Help", self.action_help, "Show the keys"),
            PaletteCommand("app: Next theme", self.action_next_theme, "Cycle colour themes"),
            PaletteCommand("app: Quit", self.request_quit, "Leave nlu-tui"),
            PaletteCommand(
                "conversation: Tests",
                self.action_conversation_tests,
                "E2E test cases of the workspace: run them, see each conversation",
            ),
            PaletteCommand(
                "conversation: Talk to the bot",
                self.action_talk,
                "Chat with a bot and save the chat as an E2E test case",
            ),
        ]
        if self.workspace.unsaved():
            commands.insert(
                0,
                PaletteCommand(
                    "suite: Save again",
                    self.action_save_again,
                    "Retry the edits that could not be saved (Ctrl+S)",
                ),
            )
        for name in self.nlu_theme_names:
            commands.append(
                PaletteCommand(f"theme: Use {name}", partial(self.use_theme, name), "Switch theme")
            )
        screen = self.screen
        if isinstance(screen, CommandPalette) and len(self.screen_stack) > 1:
            screen = self.screen_stack[-2]  # the screen the palette was opened over
        # a plain walk of the screen's widgets, depth first (as ``query("*")`` lists them,
        # without matching a selector against each: most of this call's time per Ctrl+P)
        for widget in screen.walk_children(with_self=True):
            provider = getattr(widget, "palette_commands", None)
            if provider is not None:
                commands.extend(provider())
        return commands

    def _handle_exception(self, error: Exception) -> None:
        # Textual's hook for an exception no handler caught: it ends the app with a traceback
        # and exit code 1 (a private API: tests/test_private_apis.py).
        if teardown_race(self, error):
            return
        super()._handle_exception(error)


def teardown_race(app: App[Any], error: Exception) -> bool:
    """Whether ``error`` is a widget's handler finding its children gone while the app closes.

    Textual removes a closing app's widgets children first and still delivers what their
    parents had queued: a pane's ``on_mount`` after its table was removed, a tab bar's resize
    after its underline was, a select's value watcher after its label was. Quitting within a
    second of start-up (while panes mount and dialogs are built ahead) printed such a
    traceback, with exit code 1, after every edit was already saved. A query or mount that
    fails then has nothing left to act on; any other error, and any error while the app runs,
    is reported as before."""
    from textual.css.query import NoMatches
    from textual.widget import MountError

    closing = app._exit or not app.is_running
    return closing and isinstance(error, (NoMatches, MountError))


def _decides_tab(widget: object) -> bool:
    """Whether ``widget`` handles Tab itself (a :class:`TextField`: completion, then focus)."""
    from nlu_tui.ui.widgets.inert_fields import TextField

    return isinstance(widget, TextField)


KEYS_OUT = 256
"""How many forwarded keys are remembered to tell whether one came back from an old screen (a
key a widget used never comes back; the oldest are forgotten)."""

FOCUS_KEYS = {"tab": "app.focus_next", "shift+tab": "app.focus_previous"}
"""Tab's and Shift+Tab's focus moves (the actions of Textual's Screen bindings)."""


def run_app(workspace: str | Path | None) -> int:
    """Open the workbench on ``workspace`` (default: the seeded user workspace)."""
    from nlu_tui.workspace import open_workspace

    app = NluTuiApp(open_workspace(workspace))
    _preload_in_background()
    result = app.run()
    # the app's own exit code first: 1 after a crash (Textual's traceback), 129 when the
    # terminal was hung up (ui/hangup.py); run() returns only the value given to exit()
    return app.return_code or int(result or 0)


COLLECTOR_RESUMES_AFTER = 1.0
"""Seconds after mounting when the cyclic collector, paused for start-up by
``cli.tui.open_workbench``, runs again with what start-up built parked outside it
(``gcpause.end_start_up_pause``: a no-op when start-up did not pause it, as in tests): the
first full screen is up by then."""


PRELOAD = ("nlu_tui.formats.native",)
"""Modules the first full screen needs from worker threads (reading the suites). Not the cases
table's Arrow backend: pyarrow and numpy take about 0.1 s to import, and imported here they
slowed every step of the first screen (the UI thread waits for the GIL); the first rows are
drawn without them (``TablePreview``) and the table's worker imports them after that paint."""


def _preload_in_background() -> None:
    """Import :data:`PRELOAD` in a daemon thread while Textual starts the driver and paints.

    The main thread has imported Textual and the app by now, so the two share no module; the
    UI thread spends much of its start-up waiting (terminal writes, refresh timers), which is
    when this thread runs. An import error is left for the code that needs the module."""
    import importlib
    import threading

    def preload() -> None:
        for name in PRELOAD:
            with contextlib.suppress(Exception):
                importlib.import_module(name)

    threading.Thread(target=preload, name="nlu-tui-preload", daemon=True).start()


def known_binding_ids() -> set[str]:
    """The ids of every ``Binding`` declared by the app or a screen/widget class of nlu_tui.ui.

    Imports each nlu_tui.ui module (cheap: the heavy imports are deferred to workers) so that
    classes not yet used are counted too, then walks the subclasses of Textual's ``DOMNode``.
    """
    import importlib
    import pkgutil

    from textual.dom import DOMNode

    import nlu_tui.ui

    for info in pkgutil.walk_packages(nlu_tui.ui.__path__, "nlu_tui.ui."):
        importlib.import_module(info.name)
    ids: set[str] = set()
    stack: list[type[DOMNode]] = [DOMNode]
    seen: set[type[DOMNode]] = set()
    while stack:
        cls = stack.pop()
        if cls in seen:
            continue
        seen.add(cls)
        stack.extend(cls.__subclasses__())
        if not cls.__module__.startswith("nlu_tui.ui"):
            continue
        for binding in cls.__dict__.get("BINDINGS", []):
            if isinstance(binding, Binding) and binding.id:
                ids.add(binding.id)
    return ids
