"""The workbench's state, typed: what a screen or widget may read from the app or ask of it.

:class:`Workbench` is the face of :class:`~nlu_tui.ui.app.NluTuiApp` that screens and widgets
see. They reach it with :func:`workbench` (an ``isinstance`` check, no cast, no ``getattr``):
``workbench(self).workspace.root``, ``workbench(self).suite``. This module imports no screen or
widget, so any of them can import it without an import circle.

The state itself:

- ``suite`` (a reactive): the suite open in the main screen; panes watch it with
  ``self.watch(workbench(self), "suite", ...)``.
- ``workspace``: the open workspace (its folder, its suites, the unsaved edits).
- ``training_intents``: the intents of the workspace's training data (filled after start-up).
- ``run_store`` / ``run_sessions``: the one run store and the runs started in this app
  (:class:`~nlu_tui.runsessions.RunHost`).
- ``cursor_blink``, ``user_themes`` (whether the app reads and writes the user's settings),
  ``user_keymap``: how the app was started.

What a widget asks of the whole workbench is a method here (``refresh_unsaved``,
``refresh_suites``, ``show_tab``); what it tells its parents is a message.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App
from textual.dom import DOMNode
from textual.reactive import var

from nlu_tui.model import Suite

if TYPE_CHECKING:
    from nlu_tui.runsessions import RunSession
    from nlu_tui.store import RunStore
    from nlu_tui.ui.commands import PaletteCommand
    from nlu_tui.workspace import Workspace


class Workbench(App[int]):
    """The app's state and services as its screens and widgets may use them."""

    suite: var[Suite | None] = var(None, init=False, always_update=True)
    """The open suite; panes watch it with ``self.watch(workbench(self), "suite", ...)``.

    A suite's identity is its file, not its content (``Suite`` equality ignores the path), so
    every assignment reaches the watchers: a suite re-read after a run, or another file with
    the same cases, is a new open suite, and watchers tell them apart by object and path."""

    workspace: Workspace
    """The open workspace."""
    cursor_blink: bool
    """Whether text inputs blink (tests and snapshots turn it off)."""
    user_themes: bool
    """Whether the app reads and writes the user's files: themes, keymap, the remembered suite
    and tab (tests and snapshots turn it off)."""
    user_keymap: dict[str, str]
    """The user's ``keymap:`` from settings.yaml (binding id -> keys), as applied."""
    training_intents: list[str]
    """Intents of the workspace's training data, offered by the case editor's completion."""
    engine_intents: set[str]
    """Intents engines listed for a coverage check in this session (the case editor knows
    them too)."""
    run_store: RunStore | None
    """The run store every pane shares, opened on first use (runsessions.store_for)."""
    run_sessions: dict[str, RunSession]
    """The runs started in this app (new or resumed), by run id."""

    def refresh_unsaved(self) -> None:
        """Show which suites have unsaved edits (the suites panel's marks, the cases status)."""
        raise NotImplementedError

    def refresh_suites(self) -> None:
        """List the workspace again (after a run, so the panel shows its status)."""
        raise NotImplementedError

    def show_tab(self, pane_id: str) -> None:
        """Switch the main screen's right-hand tabs (``tab-cases``, ``tab-runs``, ...)."""
        raise NotImplementedError

    def palette_commands(self) -> list[PaletteCommand]:
        """The command palette's entries for the current screen."""
        raise NotImplementedError


def workbench(node: DOMNode) -> Workbench:
    """The workbench ``node`` belongs to (a ``TypeError`` in an app that is not one)."""
    app = node.app
    if not isinstance(app, Workbench):
        raise TypeError(f"{type(app).__name__} is not the nlu-tui workbench")
    return app


def hosting_workbench(node: DOMNode) -> Workbench | None:
    """The workbench ``node`` belongs to, or None when a screen or dialog is shown by another
    app (tests show the conversation screen and the dialogs on a bare ``App``)."""
    app = node.app
    return app if isinstance(app, Workbench) else None


def cursor_blinks(node: DOMNode) -> bool:
    """Whether text inputs under ``node`` blink (yes outside the workbench, as Textual's)."""
    host = hosting_workbench(node)
    return host.cursor_blink if host is not None else True


def workspace_root(node: DOMNode) -> Path | None:
    """The workspace folder, or None outside the workbench."""
    host = hosting_workbench(node)
    return host.workspace.root if host is not None else None
