"""Compact form widgets for modal dialogs, so every dialog fits an 80×24 terminal.

Textual's default inputs, selects and buttons are three rows tall (a border above and below);
a dialog of five fields and a button row then needs more than 24 rows and its buttons vanish.
``compact`` is a reactive on those widgets, so one call after compose flips them all.

Setting the reactive adds its CSS class, and each class added re-applies the stylesheet to that
widget there and then: after a dialog's mount that was most of the time the dialog took to
open (issue 23, fast keys). The classes are added without that, and the stylesheet is applied
once to the whole ``root``.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, Select, TextArea

COMPACT_CLASS = "-textual-compact"
"""The class Textual's ``compact`` reactive toggles (tests/test_private_apis.py)."""


def make_compact(root: Widget) -> None:
    """Turn every Input, Select, Button and TextArea under ``root`` (a screen or a widget)
    into its one-row form."""
    changed = False
    for widget in root.query("Input, Select, Button, TextArea"):
        if not isinstance(widget, Input | Select | Button | TextArea) or widget.compact:
            continue
        if isinstance(widget, Select):  # its overlay follows the reactive by data binding
            widget.compact = True
            continue
        widget.set_reactive(type(widget).compact, True)
        widget.add_class(COMPACT_CLASS, update=False)
        changed = True
    if changed and not _first_resume_pending(root):
        root.update_node_styles(animate=False)
        root.refresh(layout=True)


def _first_resume_pending(root: Widget) -> bool:
    """A screen being mounted, not yet resumed: its first resume applies the stylesheet to
    all of it anyway (``ScreenResume``), so doing it here too would only double the work."""
    return isinstance(root, Screen) and root.stack_updates == 0
