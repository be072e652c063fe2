"""Compact form widgets for modal dialogs, so every dialog fits an 80×24 terminal.

Textual's default inputs, selects and buttons are three rows tall (a border above and below);
a dialog of five fields and a button row then needs more than 24 rows and its buttons vanish.
``compact`` is a reactive on those widgets, so one call after compose flips them all.
"""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Button, Input, Select, TextArea


def make_compact(root: Widget) -> None:
    """Turn every Input, Select, Button and TextArea under ``root`` (a screen or a widget)
    into its one-row form."""
    for widget in root.query("Input, Select, Button, TextArea"):
        if isinstance(widget, Input | Select | Button | TextArea):
            widget.compact = True
