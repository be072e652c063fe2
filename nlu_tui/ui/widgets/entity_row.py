"""One expected entity in the case editor: name (with completion), value, kind, alternatives."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Input, Select

from nlu_tui.case_form import EntityRow
from nlu_tui.model import ValueKind
from nlu_tui.ui.compact import make_compact
from nlu_tui.ui.widgets.inert_fields import NameSuggester, TextField

VALUE_KINDS = [
    ("auto", ValueKind.AUTO.value),
    ("exact", ValueKind.EXACT.value),
    ("regex", ValueKind.REGEX.value),
    ("multi a||b", ValueKind.MULTI.value),
    ("composite c:v|d:w", ValueKind.COMPOSITE.value),
]
VALUE_PLACEHOLDERS = {
    ValueKind.AUTO.value: "value",
    ValueKind.EXACT.value: "exact value",
    ValueKind.REGEX.value: "regular expression (full match)",
    ValueKind.MULTI.value: "item1||item2||item3",
    ValueKind.COMPOSITE.value: "component1:value|component2:value",
}


class EntityRowWidget(Horizontal):
    """One expected entity: name (with completion), value, kind, alternatives, remove."""

    DEFAULT_CSS = """
    EntityRowWidget { height: 1; }
    EntityRowWidget .ent-name { width: 18; }
    EntityRowWidget .ent-value { width: 1fr; }
    EntityRowWidget .ent-kind { width: 14; }
    EntityRowWidget .ent-alt { width: 16; }
    EntityRowWidget .ent-remove { min-width: 5; width: 5; }
    EntityRowWidget Input, EntityRowWidget Select { margin-right: 1; }
    """

    def __init__(self, row: EntityRow, names: NameSuggester) -> None:
        super().__init__(classes="entity-row")
        self.row = row
        self.names = names
        """The entity names the name field completes (shared by the editor's rows)."""
        self.removed = False
        """Set as soon as the row's ✕ is pressed: the form stops reading it before the DOM
        removal (which is asynchronous) completes. Also set while the row is parked."""
        self.parked = False
        """Hidden and empty, kept for the next entity of a reused editor (:meth:`park`)."""

    def compose(self) -> ComposeResult:
        yield TextField(
            self.row.name,
            placeholder="entity",
            classes="ent-name",
            suggester=self.names,
        )
        yield TextField(
            self.row.value,
            placeholder=VALUE_PLACEHOLDERS.get(self.row.kind, "value"),
            classes="ent-value",
        )
        yield Select(
            VALUE_KINDS, value=self.row.kind, allow_blank=False, classes="ent-kind", compact=True
        )
        yield TextField(self.row.alternatives, placeholder="or: a, b", classes="ent-alt")
        yield Button("✕", classes="ent-remove", tooltip="Remove this entity", compact=True)

    def on_mount(self) -> None:
        make_compact(self)

    def park(self) -> None:
        """Hide the row, out of the form, emptied, for :meth:`unpark` to show again."""
        self.fill(EntityRow())
        self.parked = self.removed = True
        self.display = False

    def unpark(self, row: EntityRow) -> None:
        """Show the row again (or keep it shown) with ``row``'s fields."""
        self.fill(row)
        self.parked = self.removed = False
        self.display = True

    def fill(self, row: EntityRow) -> None:
        """Set every field to ``row`` (before the mount: the fields are made with it)."""
        self.row = row
        inputs = list(self.query(Input))
        if len(inputs) != 3:  # not composed yet
            return
        for field, text in zip(inputs, (row.name, row.value, row.alternatives), strict=True):
            field.value = text
        self.query_one(Select).value = row.kind
        inputs[1].placeholder = VALUE_PLACEHOLDERS.get(row.kind, "value")

    def value(self) -> EntityRow:
        if len(self.query(Input)) != 3:  # not composed yet: what it will show
            return self.row
        name, value, alt = self.query(Input).results()
        kind = self.query_one(Select).value
        return EntityRow(
            name=name.value,
            value=value.value,
            kind=kind if isinstance(kind, str) else ValueKind.AUTO.value,
            alternatives=alt.value,
        )

    @on(Select.Changed)
    def _kind_changed(self, event: Select.Changed) -> None:
        inputs = list(self.query(Input))
        if isinstance(event.value, str):
            inputs[1].placeholder = VALUE_PLACEHOLDERS.get(event.value, "value")

    @on(Button.Pressed, ".ent-remove")
    def _remove(self, event: Button.Pressed) -> None:
        event.stop()
        self.removed = True
        self.display = False
        # the form is checked again now, not when the (asynchronous) removal completes
        revalidate = getattr(self.screen, "revalidate", None)
        if callable(revalidate):
            revalidate()
        self.remove()
