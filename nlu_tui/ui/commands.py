"""The command palette: one provider whose commands are named "group: Verb".

Commands come from :meth:`Workbench.palette_commands`, which asks the app and every mounted
widget that has a ``palette_commands()`` method, so panes (cases, runs, results) list only
what makes sense in their current state. The palette itself is Textual's, dimming the screen
below once per change (:class:`NluCommandPalette`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, runtime_checkable

from textual import events
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider

from nlu_tui.textsafe import inert_markup
from nlu_tui.ui.backdrop import CachedBackdrop
from nlu_tui.ui.reuse import style_key


@dataclass(frozen=True)
class PaletteCommand:
    """``name`` reads "group: Verb" (e.g. "suite: New"); ``callback`` takes no arguments."""

    name: str
    callback: Callable[[], Any]
    help: str = ""


@runtime_checkable
class PaletteSource(Protocol):
    """Where the commands come from: the app (``NluTuiApp.palette_commands``). A protocol, so
    that this module, which every pane imports for :class:`PaletteCommand`, needs not import
    the app (that made the app, its screens and its panes one import circle)."""

    def palette_commands(self) -> list[PaletteCommand]: ...


class NluCommands(Provider):
    def _commands(self) -> list[PaletteCommand]:
        app = self.app
        if not isinstance(app, PaletteSource):  # pragma: no cover - only NluTuiApp mounts it
            return []
        return app.palette_commands()

    async def discover(self) -> Hits:
        for cmd in self._commands():
            # names may quote user files (theme names): shown inert, never as markup
            yield DiscoveryHit(inert_markup(cmd.name), partial(_call, cmd), help=cmd.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for cmd in self._commands():
            score = matcher.match(cmd.name)
            if score > 0:
                shown = matcher.highlight(inert_markup(cmd.name))
                yield Hit(score, shown, partial(_call, cmd), help=cmd.help)


def _call(cmd: PaletteCommand) -> None:
    cmd.callback()


class NluCommandPalette(CachedBackdrop, CommandPalette):
    """Textual's command palette; the screen below it is rendered and dimmed once per change
    instead of on every redraw while the palette fills in (:mod:`nlu_tui.ui.backdrop`).

    A palette is mounted (every widget styled) right before it comes on top, and Textual then
    applies the stylesheet to all of it once more; that second pass is skipped when the theme
    and the stylesheet are those it was mounted with (:func:`nlu_tui.ui.reuse.style_key`).
    The palette restyles itself anyway when its list is filled in (its ``-ready`` class)."""

    _styled_for: tuple[object, ...] | None = None

    def on_mount(self) -> None:
        self._styled_for = style_key(self.app)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # runs before Textual's Screen handler (subclass first; tests/test_private_apis.py)
        if self._styled_for == style_key(self.app):
            event.refresh_styles = False
        self._styled_for = None  # only the first time it comes on top
