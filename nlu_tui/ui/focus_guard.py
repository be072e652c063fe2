"""The focus never lands on a widget that is leaving the screen.

``Widget.focus()`` does not focus at once: it queues the change on the app (``call_later``).
A widget removed between the call and the change (the results table is rebuilt when a repeated
run's stability column appears, right after the run's end focused it) was focused anyway: the
screen's ``focused`` then named a widget no longer in the DOM, whose binding chain holds only
itself, so no key reached a binding any more, not even the app's own (Ctrl+P did nothing after
a repeated run, one start in ten on a busy machine). :class:`FocusGuard`, mixed into a screen,
refuses such a change and keeps the focus where it is; whoever removes a widget moves the
focus on (Textual's own removal does, for a widget focused when it is removed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.screen import Screen
from textual.widget import Widget

if TYPE_CHECKING:
    _Base = Screen[Any]
else:
    _Base = object


def leaving(widget: Widget) -> bool:
    """Whether ``widget`` is being removed, or was, from the DOM."""
    return widget._pruning or not widget.is_attached


class FocusGuard(_Base):
    """Mixed into a screen class (before Textual's ``Screen``)."""

    def set_focus(
        self,
        widget: Widget | None,
        scroll_visible: bool = True,
        from_app_focus: bool = False,
    ) -> None:
        if widget is not None and leaving(widget):
            return
        super().set_focus(widget, scroll_visible=scroll_visible, from_app_focus=from_app_focus)
