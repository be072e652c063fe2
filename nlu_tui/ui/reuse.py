"""Dialogs built once, in idle time, and refilled on each use (issue 23, fast keys).

Opening a dialog of ~50 widgets cost most of a key's time in Textual itself: composing and
mounting the widgets, applying the stylesheet to each of them on mount and once more when the
screen comes on top, then laying them out and painting. A :class:`ReusedScreen` is built once,
off the screen stack, while the app is idle (:func:`prebuild`), kept after it closes (it is an
installed screen), and each use refills it with the new data (the screen's own ``refill``,
which must reset every field, so nothing of one use shows in the next) before it is pushed
again. Its styles are applied again on resume only when something they depend on changed (the
theme, the stylesheet), not on every push.

A dialog that covers the whole terminal anyway gets an opaque background
(:meth:`ReusedScreen.cover`), so the screen below, hidden behind it, is not drawn and dimmed
character by character under it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from textual import events
from textual.app import App
from textual.geometry import Size
from textual.screen import Screen

S = TypeVar("S", bound=Screen[Any])

if TYPE_CHECKING:
    _Base = Screen[Any]
else:
    _Base = object

COVERS_CLASS = "-covers"
"""Set on a reused dialog while it covers the whole terminal (its background is then opaque)."""


def style_key(app: App[Any]) -> tuple[object, ...]:
    """What a screen's styles depend on besides its own widgets: the theme and the stylesheet's
    sources that can match any widget. A widget class's default CSS, added to the stylesheet
    when the class is first mounted anywhere, is scoped to that class (Textual's
    ``SCOPED_CSS``): it cannot match a screen built before, which holds no widget of it."""
    sources = app.stylesheet.source.items()
    unscoped = tuple(sorted(str(key) for key, source in sources if not source.scope))
    return (app.theme, app.current_theme.dark, unscoped)


class ReusedScreen(_Base):
    """Mixed into a screen class (before Textual's ``Screen``/``ModalScreen``) that may be
    shown many times (see the module docstring).

    ``MAX_SIZE`` is the largest size of the dialog's frame (None for a screen that covers the
    terminal anyway): when the terminal is no bigger, the dialog covers it and is drawn on an
    opaque background."""

    MAX_SIZE: Size | None = None
    _styled_for: tuple[object, ...] | None = None

    def styled_now(self) -> None:
        """Apply the stylesheet to the whole screen now (idle time, before its first use)."""
        self.cover(self.app.size)
        self.update_node_styles(animate=False)
        self._styled_for = style_key(self.app)
        # and lay it out for the terminal's size, as its first push would (private API:
        # tests/test_private_apis.py); the push lays it out again only after a resize
        self._refresh_layout(self.app.size)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Runs before Textual's own handler (the subclass comes first in the MRO): the styles
        # are re-applied only when they were applied for another theme or stylesheet.
        self.cover(self.app.size)  # first: a class changed restyles the screen, not twice
        key = style_key(self.app)
        if self._styled_for == key:
            event.refresh_styles = False
        self._styled_for = key

    def on_resize(self, event: events.Resize) -> None:
        self.cover(event.size)

    def cover(self, size: Size) -> None:
        """Mark the dialog as covering the terminal of ``size`` (or not)."""
        covers = self.MAX_SIZE is not None and (
            size.width <= self.MAX_SIZE.width and size.height <= self.MAX_SIZE.height
        )
        if self.has_class(COVERS_CLASS) != covers:
            self.set_class(covers, COVERS_CLASS)


def _name(cls: type[Screen[Any]]) -> str:
    return f"nlu-tui-reused:{cls.__module__}.{cls.__qualname__}"


def spare(app: App[Any], cls: type[S]) -> S | None:
    """The built instance of ``cls`` when it is ready for a use: mounted, not shown."""
    name = _name(cls)
    if not app.is_screen_installed(name):
        return None
    screen = app.get_screen(name)
    if not isinstance(screen, cls) or not screen.is_mounted:
        return None
    if any(screen in stack for stack in app._screen_stacks.values()):
        return None
    return screen


def keep(app: App[Any], screen: Screen[Any]) -> None:
    """Keep ``screen`` (about to be pushed) for the next use of its class, unless one is kept."""
    name = _name(type(screen))
    if not app.is_screen_installed(name):
        app.install_screen(screen, name)


async def prebuild(app: App[Any], screen: ReusedScreen) -> None:
    """Mount ``screen`` off the screen stack and style it, to be taken by :func:`spare`.

    Call it when the app is idle: it is the whole cost of building the dialog, paid once."""
    name = _name(type(screen))
    if app.is_screen_installed(name) or not app.is_running:
        return
    app.install_screen(screen, name)
    # What push_screen does first (tests/test_private_apis.py): register and mount the screen
    # without putting it on the stack.
    _screen, mounted = app._get_screen(name)
    await mounted
    screen.styled_now()
