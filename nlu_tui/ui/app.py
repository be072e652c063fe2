"""The workbench app: global bindings, themes, the palette, and the open suite.

The app owns state every pane needs (the workspace and the open suite, as reactives) and the
global keys; screens and widgets own their own flows and talk upward with messages. Heavy
imports (pyarrow, the formats, the store) happen in workers after the first paint.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.command import CommandPalette
from textual.notifications import SeverityLevel
from textual.reactive import var
from textual.theme import Theme

from nlu_tui.model import Suite
from nlu_tui.ui.commands import NluCommands, PaletteCommand
from nlu_tui.workspace import Workspace

if TYPE_CHECKING:
    from nlu_tui.store import RunStore
    from nlu_tui.ui.screens.run_session import RunSession


class NluTuiApp(App[int]):
    """nlu-tui's workbench. ``suite`` is the suite open in the main screen (None before one is)."""

    TITLE = "nlu-tui"
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
            tooltip="Quit nlu-tui (edits are already saved).",
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

    suite: var[Suite | None] = var(None, init=False)
    """The open suite; panes watch it with ``self.watch(self.app, "suite", ...)``."""

    def __init__(
        self, workspace: Workspace, *, cursor_blink: bool = True, user_themes: bool = True
    ) -> None:
        super().__init__()
        self.workspace = workspace
        self.cursor_blink = cursor_blink
        self.user_themes = user_themes
        self.theme_failures: list[str] = []
        self.user_keymap: dict[str, str] = {}
        """The user's ``keymap:`` from settings.yaml (binding id -> keys), as applied."""
        self.keymap_problems: list[str] = []
        self.nlu_theme_names: list[str] = []
        self.training_intents: list[str] = []
        """Intents of the workspace's ``*.nlu.yml`` training data, offered by the case editor's
        completion next to the suite's own; filled by a worker after the first paint."""
        self.run_store: RunStore | None = None
        """The run store every pane shares, opened on first use (run_session.store_for)."""
        self.run_sessions: dict[str, RunSession] = {}
        """The runs started in this app (new or resumed), by run id."""

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Fallbacks so Textual's own themes work with our CSS too."""
        return {"pass-color": "green", "fail-color": "red", "warn-color": "darkorange"}

    # --- lifecycle ------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._register_themes()
        self._apply_keymap()
        from nlu_tui.ui.screens.main import MainScreen

        self.push_screen(MainScreen())
        # after the first paint and the first suite's load have had their turn
        self.set_timer(0.5, self.load_training_intents)

    @work(thread=True, exclusive=True, group="training-intents", exit_on_error=False)
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
            try:
                self.register_theme(
                    Theme(
                        name=spec.name,
                        dark=spec.dark,
                        variables=spec.variables,
                        **spec.colours,  # type: ignore[arg-type]
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
                    self.theme = name
                    break
                except Exception:
                    continue
        if failed:
            self._report("Some themes could not be loaded", failed, "error")

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
        if self.user_themes and name in self.nlu_theme_names:
            from nlu_tui import themes

            with contextlib.suppress(OSError):
                themes.remember_theme(name)

    # --- actions ----------------------------------------------------------------------------

    def action_help(self) -> None:
        from nlu_tui.ui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

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

    def palette_commands(self) -> list[PaletteCommand]:
        """App commands followed by those of every mounted widget that offers some."""
        commands = [
            PaletteCommand("app: Help", self.action_help, "Show the keys"),
            PaletteCommand("app: Next theme", self.action_next_theme, "Cycle colour themes"),
            PaletteCommand("app: Quit", self.exit, "Leave nlu-tui"),
        ]
        for name in self.nlu_theme_names:
            commands.append(
                PaletteCommand(f"theme: Use {name}", _setter(self, "theme", name), "Switch theme")
            )
        screen = self.screen
        if isinstance(screen, CommandPalette) and len(self.screen_stack) > 1:
            screen = self.screen_stack[-2]  # the screen the palette was opened over
        for widget in [screen, *screen.query("*")]:
            provider = getattr(widget, "palette_commands", None)
            if provider is not None:
                commands.extend(provider())
        return commands


def _setter(obj: Any, attr: str, value: Any) -> Any:
    def set_it() -> None:
        setattr(obj, attr, value)

    return set_it


def run_app(workspace: str | Path | None) -> int:
    """Open the workbench on ``workspace`` (default: the seeded user workspace)."""
    from nlu_tui.workspace import open_workspace

    app = NluTuiApp(open_workspace(workspace))
    result = app.run()
    return int(result or 0)


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
