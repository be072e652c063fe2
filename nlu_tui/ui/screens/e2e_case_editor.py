"""Editing one E2E test case: its name, fixtures and steps as rows (user / bot / utter /
slot_was_set / slot_was_not_set), added, changed, deleted and reordered, then saved back.

On the steps table: ``a`` adds a step below, Enter edits the selected one (the kind and value
fields below the table; Enter there applies, Esc leaves them), ``d`` deletes, ``K``/``J`` (or
Ctrl+Up/Down) move. Ctrl+S saves through :mod:`nlu_tui.formats.e2e_splice`: atomically, with
``<file>.bak``, only the changed parts of this test case rewritten (comments stay), refused when
the file changed on disk since it was opened. Opened from a failed step, that step is marked.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Select, Static

from nlu_tui.conversation_model import E2EFile, E2EStep, E2ETestCase, StepKind
from nlu_tui.errors import InputError, NluTuiError
from nlu_tui.textsafe import inert
from nlu_tui.ui.widgets.footer import BudgetFooter
from nlu_tui.ui.widgets.inert_fields import TextField
from nlu_tui.views.counts import counted

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
    """One test case of an E2E file; dismisses True when saved (``notes`` then says what the
    save could not keep, if anything)."""

    DEFAULT_CSS = """
    E2ECaseEditor { align: center middle; }
    E2ECaseEditor > Vertical { width: 100%; max-width: 110; height: 1fr; max-height: 40;
        border: round $accent; background: $surface; padding: 0 1; }
    E2ECaseEditor #ed-title { height: auto; text-style: bold; }
    E2ECaseEditor #ed-steps { height: 1fr; }
    E2ECaseEditor .ed-row { height: 1; }
    E2ECaseEditor .ed-label { width: 10; }
    E2ECaseEditor #ed-kind { width: 20; }
    E2ECaseEditor #ed-message { height: auto; max-height: 3; }
    """

    BINDINGS = [
        Binding(
            "ctrl+s",
            "save",
            "Save",
            id="e2e-editor.save",
            priority=True,
            tooltip="Write the test case to its file (comments and other test cases stay).",
        ),
        Binding(
            "escape",
            "back",
            "Back",
            id="e2e-editor.back",
            tooltip="Leave the step fields; on the table, close (asks when there are edits).",
        ),
        Binding(
            "ctrl+t",
            "cycle_kind",
            "Kind",
            id="e2e-editor.kind",
            priority=True,
            tooltip="In the step fields: the next step kind (user, bot, utter, slot...).",
        ),
        Binding("a", "add", "Add", id="e2e-editor.add", tooltip="Add a step below this one."),
        Binding(
            "e", "edit_step", "Edit", id="e2e-editor.edit", tooltip="Edit the step (or Enter)."
        ),
        Binding("d,delete", "delete", "Delete", id="e2e-editor.delete", tooltip="Delete it."),
        Binding("K,ctrl+up", "move(-1)", "Up", id="e2e-editor.up", tooltip="Move the step up."),
        Binding("J,ctrl+down", "move(1)", "Down", id="e2e-editor.down", tooltip="Move it down."),
    ]

    def __init__(
        self,
        path: Path,
        case_name: str,
        line: int | None,
        focus_step: int = 0,
        *,
        failed_step: int | None = None,
        failure: str = "",
    ) -> None:
        """``failed_step`` (and ``failure``, what went wrong there) mark the step a run failed
        at; the editor opens on ``focus_step``."""
        super().__init__()
        from nlu_tui.formats import e2e_cases

        self.path = path
        self.data: E2EFile = e2e_cases.read(path)
        matches = [c for c in self.data.test_cases if c.name == case_name]
        exact = [c for c in matches if c.line == line]
        if not matches:
            raise InputError(f"no test case '{case_name}' in the file", path=path)
        self.case: E2ETestCase = (exact or matches)[0]
        self.index = self.data.test_cases.index(self.case)
        self.steps: list[E2EStep] = list(self.case.steps)
        self.focus_step = focus_step
        self.failed: E2EStep | None = (
            self.steps[failed_step]
            if failed_step is not None and 0 <= failed_step < len(self.steps)
            else None
        )
        self.failure = failure
        self.mode: str | None = None
        """``add`` or ``edit`` while the step fields are being filled in, else None."""
        self.notes: list[str] = []
        self._discard_asked = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text(f"Test case in {inert(self.path.name)}:{self.case.line or ''}"),
                id="ed-title",
            )
            with Horizontal(classes="ed-row"):
                yield Static("name", classes="ed-label")
                yield TextField(self.case.name, id="ed-name", compact=True)
            with Horizontal(classes="ed-row"):
                yield Static("fixtures", classes="ed-label")
                yield TextField(
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
                yield TextField(
                    "", id="ed-value", compact=True, placeholder="text, name or slot: value"
                )
            yield Static("", id="ed-message")
        yield BudgetFooter()

    def on_mount(self) -> None:
        table = self.query_one("#ed-steps", DataTable)
        table.add_column("#", key="n")
        table.add_column("", key="mark")
        table.add_column("Step", key="kind")
        table.add_column("Value", key="value")
        self._refill(self.focus_step)
        table.focus()
        if self.failed is not None:
            n = self.steps.index(self.failed) + 1
            text = f"✗ step {n} failed in the last run"
            self._say(text + (f": {self.failure}" if self.failure else ""), "red")
        else:
            self._say(HINT, "dim")

    # --- showing ----------------------------------------------------------------------------

    def _refill(self, cursor: int) -> None:
        table = self.query_one("#ed-steps", DataTable)
        table.clear()
        for n, step in enumerate(self.steps, 1):
            mark = Text("✗", style="bold red") if step is self.failed else Text("")
            value = Text(inert(step_value(step)))
            if step.metadata_name:  # kept as they are; shown so that they are not a surprise
                value.append(f"  metadata: {inert(step.metadata_name)}", style="dim")
            if step.commands:
                value.append(f"  {counted(len(step.commands), 'command')}", style="dim")
            table.add_row(str(n), mark, step.kind.value, value)
        if self.steps:
            table.move_cursor(row=max(0, min(cursor, len(self.steps) - 1)))
        self._discard_asked = False  # an edit since the warning: Esc warns again

    def _say(self, text: str, style: str = "") -> None:
        self.query_one("#ed-message", Static).update(Text(inert(text), style=style))

    @property
    def _cursor(self) -> int:
        return self.query_one("#ed-steps", DataTable).cursor_row

    def _show_step(self, at: int) -> None:
        if 0 <= at < len(self.steps):
            step = self.steps[at]
            self.query_one("#ed-kind", Select).value = step.kind.value
            self.query_one("#ed-value", Input).value = step_value(step)

    @on(DataTable.RowHighlighted, "#ed-steps")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.mode is None:
            self._show_step(event.cursor_row)

    @property
    def edited(self) -> bool:
        """Whether anything differs from the test case as opened."""
        return (
            self.query_one("#ed-name", Input).value.strip() != self.case.name
            or self._fixtures() != self.case.fixture_names
            or len(self.steps) != len(self.case.steps)
            or any(a is not b for a, b in zip(self.steps, self.case.steps, strict=True))
        )

    def _fixtures(self) -> list[str]:
        value = self.query_one("#ed-fixtures", Input).value
        return [f.strip() for f in value.split(",") if f.strip()]

    # --- the step fields ----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The step keys act on the table only (in a field, letters are typed)."""
        if action in ("add", "edit_step", "delete", "move"):
            return self.focused is self.query_one("#ed-steps", DataTable)
        if action == "cycle_kind":
            return self.focused in (self.query_one("#ed-kind"), self.query_one("#ed-value"))
        return True

    def action_cycle_kind(self) -> None:
        kind = self.query_one("#ed-kind", Select)
        values = [value for _label, value in KINDS]
        at = values.index(str(kind.value)) if kind.value in values else -1
        kind.value = values[(at + 1) % len(values)]

    @on(DataTable.RowSelected, "#ed-steps")
    def _edit(self, event: DataTable.RowSelected) -> None:
        self.action_edit_step()

    def action_edit_step(self) -> None:
        if not self.steps:
            self.action_add()
            return
        self.mode = "edit"
        self._show_step(self._cursor)
        self.query_one("#ed-value", Input).focus()
        self._say(
            f"Step {self._cursor + 1}: change its kind (Ctrl+T) or value; "
            "Enter applies, Esc leaves it as it was.",
            "dim",
        )

    def action_add(self) -> None:
        self.mode = "add"
        previous = self.steps[self._cursor] if self.steps else None
        kind = "utter" if previous is not None and previous.kind is StepKind.USER else "user"
        self.query_one("#ed-kind", Select).value = kind
        self.query_one("#ed-value", Input).value = ""
        self.query_one("#ed-value", Input).focus()
        where = f"after step {self._cursor + 1}" if self.steps else "as the first step"
        self._say(
            f"New step {where}: choose its kind (Ctrl+T), type its value; Enter adds it, "
            "Esc drops it.",
            "dim",
        )

    @on(Input.Submitted, "#ed-value")
    def _apply(self, event: Input.Submitted) -> None:
        event.stop()
        self._apply_fields()

    def _apply_fields(self) -> bool:
        """The step fields into the steps (a new one, or the selected one changed); False,
        with the reason said, when the value does not fit the kind."""
        kind = str(self.query_one("#ed-kind", Select).value)
        try:
            step = step_from(kind, self.query_one("#ed-value", Input).value)
        except Exception as exc:  # a bad kind or value: said, nothing changes
            self._say(str(exc), "red")
            return False
        if self.mode == "add" or not self.steps:
            at = self._cursor + 1 if self.steps else 0
            self.steps.insert(at, step)
            said = f"added step {at + 1}"
        else:
            at = self._cursor
            old = self.steps[at]
            step.metadata_name, step.commands = old.metadata_name, old.commands
            step.extra = dict(old.extra)
            step.assertions, step.assertion_order_enabled = (
                old.assertions,
                old.assertion_order_enabled,
            )
            step.order_written = old.order_written
            if step.as_dict() == old.as_dict():
                step = old  # unchanged: the step keeps its own text in the file
            elif old is self.failed:
                self.failed = step
            self.steps[at] = step
            said = f"step {at + 1} changed" if step is not old else f"step {at + 1} unchanged"
        self.mode = None
        self._refill(at)
        self.query_one("#ed-steps", DataTable).focus()
        self._say(f"{said} (Ctrl+S saves)", "green")
        return True

    @on(Input.Submitted, "#ed-name, #ed-fixtures")
    def _field_done(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#ed-steps", DataTable).focus()

    def action_delete(self) -> None:
        if self.steps:
            at = self._cursor
            del self.steps[at]
            self._refill(at)
            self._say(f"step {at + 1} deleted (Ctrl+S saves)", "green")

    def action_move(self, delta: int) -> None:
        at = self._cursor
        to = at + delta
        if self.steps and 0 <= to < len(self.steps):
            self.steps[at], self.steps[to] = self.steps[to], self.steps[at]
            self._refill(to)
            way = "up" if delta < 0 else "down"
            self._say(f"step {at + 1} moved {way} to {to + 1} (Ctrl+S saves)", "green")

    def action_back(self) -> None:
        table = self.query_one("#ed-steps", DataTable)
        if self.focused is not table:
            self.mode = None
            self._show_step(self._cursor)
            table.focus()
            self._say(HINT, "dim")
            return
        if not self.edited or self._discard_asked:
            self.dismiss(False)
            return
        self._discard_asked = True
        self._say("Unsaved changes: Ctrl+S saves them, Esc again closes without saving.", "red")

    # --- saving -------------------------------------------------------------------------------

    def action_save(self) -> None:
        from nlu_tui.formats import e2e_splice

        if self.mode is not None and not self._apply_fields():
            return  # the step being written is kept as typed, with what is wrong with it
        name = self.query_one("#ed-name", Input).value.strip()
        fixtures = self._fixtures()
        unknown = [f for f in fixtures if f not in self.data.fixtures]
        if not name:
            self._say("a test case needs a name", "red")
            return
        if unknown:
            self._say(f"fixture(s) not defined in this file: {', '.join(unknown)}", "red")
            return
        if not self.steps:
            self._say("a test case needs at least one step", "red")
            return
        edited = replace(self.case, name=name, fixture_names=fixtures, steps=list(self.steps))
        try:
            result = e2e_splice.save_test_case(self.path, self.data.digest, self.index, edited)
        except NluTuiError as exc:
            self._say(str(exc), "red")
            return
        except OSError as exc:
            self._say(f"cannot write {self.path.name}: {exc.strerror or exc}", "red")
            return
        self.notes = result.notes
        self.dismiss(True)


HINT = "a add · Enter/e edit · d delete · K/J move · Ctrl+S save · Esc close"
