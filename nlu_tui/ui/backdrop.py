"""The dimmed screen behind a modal (help, the command palette), drawn once per change.

A modal screen with a translucent background shows the screen below it, dimmed: Textual
renders the whole screen below (every widget's lines, cut and joined) and tints each segment
(``textual.renderables.BackgroundScreen``) every time the modal's own background is drawn
again. Opening a modal redraws that background two or three times (once when it comes on top,
once for the resize event its first layout sends, once more when its content settles), each a
full render of the main screen with its tables: most of what F1 and Ctrl+P cost after Textual's
own minimum (issue 23, fast keys).

:class:`CachedBackdrop`, mixed into such a modal, keeps the dimmed picture it rendered and
draws it again only when something below changed. Textual tells the screen on top of every
change below it: a screen below that repaints forwards its changed regions to the top screen's
``refresh`` (``Screen._compositor_refresh``, pinned in ``tests/test_private_apis.py``), so a
``refresh`` with regions drops the picture; so does each new push (the screen below may have
changed while the modal was closed), a new size and a new tint (the theme). The picture drawn is
Textual's own (the same ``BackgroundScreen`` render), so the modal looks exactly as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from textual import events
from textual.css.styles import RulesMap
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, RichVisual, Visual

if TYPE_CHECKING:
    from typing import Self

    from textual.geometry import Region

    _Base = Screen[Any]
else:
    _Base = object


class DimmedPicture(Visual):
    """Textual's dimmed render of the screen below (a ``BackgroundScreen``), kept per size.

    Also a Rich renderable (the same ``BackgroundScreen``), so it is what ``Screen.render``
    returns in either protocol."""

    def __init__(self, owner: Screen[Any], background: BackgroundScreen) -> None:
        self.background = background
        self._visual = RichVisual(owner, background)
        self._strips: tuple[tuple[int, int | None, Style], list[Strip]] | None = None

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        key = (width, height, style)
        if self._strips is None or self._strips[0] != key:
            self._strips = (key, self._visual.render_strips(width, height, style, options))
        return self._strips[1]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self._visual.get_optimal_width(rules, container_width)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self._visual.get_height(rules, width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.background


class CachedBackdrop(_Base):
    """Mixed into a translucent modal screen class (before Textual's ``ModalScreen``): the
    screen below is rendered and dimmed once per change, not on every redraw of the modal."""

    _picture: DimmedPicture | None = None

    def render(self) -> RenderableType:
        renderable = super().render()
        if not isinstance(renderable, BackgroundScreen) or self.app.screen is not self:
            # not dimming a screen below, or not on top (then the changes below are told to
            # the screen on top, not to this one): Textual's own render each time
            self._picture = None
            return renderable
        picture = self._picture
        if (
            picture is None
            or picture.background.screen is not renderable.screen
            or picture.background.color != renderable.color
        ):
            picture = self._picture = DimmedPicture(self, renderable)
        return picture

    def refresh(
        self,
        *regions: Region,
        repaint: bool = True,
        layout: bool = False,
        recompose: bool = False,
    ) -> Self:
        if regions:  # a screen below repainted these regions (or a caller asked for them)
            self._picture = None
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        self._picture = None  # pushed again: the screen below may have changed meanwhile

    async def _on_resize(self, event: events.Resize) -> None:
        # A screen's first layout sends it a Resize of the size it was just laid out for, and
        # Textual's handler then lays out every screen below again (a full reflow of the main
        # screen, which repaints it all and so drops the picture). The screens below that
        # already have that size are left alone; a real resize (a new terminal size) still goes
        # to Textual's handler. (Breakpoint classes are set by that handler: none in nlu-tui.)
        if self.app.HORIZONTAL_BREAKPOINTS or self.app.VERTICAL_BREAKPOINTS:
            return
        if self.HORIZONTAL_BREAKPOINTS or self.VERTICAL_BREAKPOINTS:
            return
        below = [screen for screen in self.app.screen_stack if screen is not self]
        if all(screen.outer_size == event.size for screen in below):
            event.stop()
            event.prevent_default()
            self._screen_resized(event.size)
