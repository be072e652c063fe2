"""Editing one E2E test case: its name, fixtures and steps as rows (user / bot / utter /
slot_was_set / slot_was_not_set), added, changed, deleted and reordered, then saved back.

Saving rewrites the whole file from the parsed test cases (comments and quoting are not
kept) and refuses when the file changed on disk since it was opened. The parsing and writing
are :mod:`nlu_tui.formats.e2e_cases`'; this screen only edits the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Select, Static

from nlu_tui.conversation.model import E2EFile, E2EStep, E2ETestCase, StepKind
from nlu_tui.errors import InputError
from nlu_tui.textsafe import inert

KINDS = [(k.value, k.value) for k in StepKind]


def step_value(step: E2EStep) -> str:
    """How a step reads in the editor's value field (``slot`` or ``slot: value``)."""
    if step.kind in (StepKind.SLOT_WAS_SET, StepKind.SLOT_WAS_NOT_SET):
        if step.has_value:
            import yaml

            shown = yaml.safe_dump(step.value, default_flow_style=True).strip()
            shown = shown.removesuffix("\n...").removesuffix("...").strip()
            return f"{step.slot}: {shown}"
        return step.slot or ""
    return step.text or ""


def step_from(kind: str, value: str) -> E2EStep:
    """A step from the editor's fields (InputError when the value does not fit the kind)."""
    step_kind = StepKind(kind)
    value = value.strip()
    if not value and step_kind is not StepKind.USER:
        raise InputError(f"a '{kind}' step needs a value", field=kind)
    if step_kind in (StepKind.SLOT_WAS_SET, StepKind.SLOT_WAS_NOT_SET):
        if ":" in value:
            name, _, raw = value.partition(":")
            import yaml

            from nlu_tui.formats import yaml_nodes

            node = yaml.compose(raw.strip() or "null")
            parsed: Any = (
                yaml_nodes.scalar_value(node)
                if isinstance(node, yaml.ScalarNode)
                else yaml.safe_load(raw)
            )
            return E2EStep(step_kind, slot=name.strip(), value=parsed, has_value=True)
        return E2EStep(step_kind, slot=value)
    return E2EStep(step_kind, text=value or None)


class E2ECaseEditor(ModalScreen[bool]):
    """One test case of an E2E file; dismisses True when saved."""

    DEFAULT_CSS = """
    E2ECaseEditor { align: center middle; }
    E2ECaseEditor > Vertical { width: 90%; height: 90%; border: round $accent;
        background: $surface; padding: 0 1; }
    E2ECaseEditor #ed-steps { height: 1fr; }
    E2ECaseEditor .ed-row { height: 1; }
    E2ECaseEditor .ed-label { width: 12; }
    E2ECaseEditor #ed-kind { width: 22; }
    E2ECaseEditor #ed-message { height: auto; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Close", id="e2e-editor.close", tooltip="Close unsaved."),
        Binding("ctrl+s", "save", "Save", id="e2e-editor.save", tooltip="Write the file."),
        Binding("a", "add", "Add step", id="e2e-editor.add", tooltip="Add the step below."),
        Binding("u", "update", "Update", id="e2e-editor.update", tooltip="Change this step."),
        Binding("d", "delete", "Delete", id="e2e-editor.delete", tooltip="Delete the step."),
        Binding("K", "move(-1)", "Up", id="e2e-editor.up", tooltip="Move the step up."),
        Binding("J", "move(1)", "Down", id="e2e-editor.down", tooltip="Move the step down."),
    ]

    def __init__(self, path: Path, case_name: str, line: int | None, focus_step: int = 0) -> None:
        super().__init__()
        from nlu_tui.formats import e2e_cases

        self.path = path
        self.data: E2EFile = e2e_cases.read(path)
        matches = [c for c in self.data.test_cases if c.name == case_name]
        exact = [c for c in matches if c.line == line]
        if not matches:
            raise InputError(f"no test case '{case_name}' in the file", path=path)
        self.case: E2ETestCase = (exact or matches)[0]
        self.steps: list[E2EStep] = list(self.case.steps)
        self.focus_step = focus_step

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text(
                    f"Test case in {inert(self.path.name)}: a add, u update, d delete, "
                    "K/J move, Ctrl+S save (rewrites the file: comments are not kept)"
                )
            )
            with Horizontal(classes="ed-row"):
                yield Static("name", classes="ed-label")
                yield Input(self.case.name, id="ed-name", compact=True)
            with Horizontal(classes="ed-row"):
                yield Static("fixtures", classes="ed-label")
                yield Input(
                    ", ".join(self.case.fixture_names),
                    id="ed-fixtures",
                    compact=True,
                    placeholder=(
                        f"none (defined: {', '.join(self.data.fixtures)})"
                        if self.data.fixtures
                        else "none (no fixtures in this file)"
                    ),
                )
            yield DataTable(id="ed-steps", cursor_type="row", zebra_stripes=True)
            with Horizontal(classes="ed-row"):
                yield Select(KINDS, value="user", allow_blank=False, id="ed-kind", compact=True)
                yield Input(
                    "", id="ed-value", compact=True, placeholder="text, name or slot: value"
                )
            yield Static("", id="ed-message")

    def on_mount(self) -> None:
        table = self.query_one("#ed-steps", DataTable)
        table.add_column("#", key="n")
        table.add_column("Step", key="kind")
        table.add_column("Value", key="value")
        self._refill(self.focus_step)
        table.focus()

    def _refill(self, cursor: int) -> None:
        table = self.query_one("#ed-steps", DataTable)
        table.clear()
        for n, step in enumerate(self.steps, 1):
            table.add_row(str(n), step.kind.value, Text(inert(step_value(step))))
        if self.steps:
            table.move_cursor(row=max(0, min(cursor, len(self.steps) - 1)))

    def _say(self, text: str, style: str = "") -> None:
        self.query_one("#ed-message", Static).update(Text(text, style=style))

    @property
    def _cursor(self) -> int:
        return self.query_one("#ed-steps", DataTable).cursor_row

    @on(DataTable.RowHighlighted, "#ed-steps")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self.steps):
            step = self.steps[event.cursor_row]
            self.query_one("#ed-kind", Select).value = step.kind.value
            self.query_one("#ed-value", Input).value = step_value(step)

    def _field_step(self) -> E2EStep | None:
        kind = str(self.query_one("#ed-kind", Select).value)
        try:
            return step_from(kind, self.query_one("#ed-value", Input).value)
        except Exception as exc:  # a bad kind or value: said, nothing changes
            self._say(str(exc), "red")
            return None

    def action_add(self) -> None:
        step = self._field_step()
        if step is None:
            return
        at = self._cursor + 1 if self.steps else 0
        self.steps.insert(at, step)
        self._refill(at)

    def action_update(self) -> None:
        step = self._field_step()
        if step is None or not self.steps:
            return
        at = self._cursor
        old = self.steps[at]
        step.metadata_name, step.commands, step.extra = old.metadata_name, old.commands, old.extra
        self.steps[at] = step
        self._refill(at)

    def action_delete(self) -> None:
        if self.steps:
            at = self._cursor
            del self.steps[at]
            self._refill(at)

    def action_move(self, delta: int) -> None:
        at = self._cursor
        to = at + delta
        if self.steps and 0 <= to < len(self.steps):
            self.steps[at], self.steps[to] = self.steps[to], self.steps[at]
            self._refill(to)

    def action_cancel(self) -> None:
        self.dismiss(False)

    def action_save(self) -> None:
        from nlu_tui.formats import e2e_cases
        from nlu_tui.model import digest_bytes

        name = self.query_one("#ed-name", Input).value.strip()
        fixtures = [
            f.strip() for f in self.query_one("#ed-fixtures", Input).value.split(",") if f.strip()
        ]
        unknown = [f for f in fixtures if f not in self.data.fixtures]
        if not name:
            self._say("a test case needs a name", "red")
            return
        if unknown:
            self._say(f"fixture(s) not defined in this file: {', '.join(unknown)}", "red")
            return
        try:
            current = digest_bytes(self.path.read_bytes())
        except OSError as exc:
            self._say(f"cannot read {self.path.name}: {exc.strerror}", "red")
            return
        if current != self.data.digest:
            self._say(f"{self.path.name} changed on disk since it was opened; not saved", "red")
            return
        for step in self.steps:  # folded slot lists are rebuilt from adjacent steps
            step.line = None
        self.case.name, self.case.fixture_names, self.case.steps = name, fixtures, self.steps
        try:
            e2e_cases.write(self.data, self.path)
        except OSError as exc:
            self._say(f"cannot write {self.path.name}: {exc.strerror}", "red")
            return
        self.dismiss(True)
