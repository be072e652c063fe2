"""The case editor: a form (not YAML) for adding or editing test cases.

Every change re-checks the form with the shared validator (``nlu_tui.validation.validate_case``)
and shows the problems under it; Save (button and Ctrl+S alike) is refused while any is an
error. A removed entity row leaves the form at once, so its problem goes with it. Escape with
unsaved edits asks (Discard / Keep editing). The screen returns the new cases (one per
utterance line) and never writes files itself.

The editor is built once (in idle time, :func:`CaseEditorScreen.blank`) and refilled for each
case (:meth:`CaseEditorScreen.refill`, which sets every field, so nothing of one case is left
in the next): see :mod:`nlu_tui.ui.reuse`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from nlu_tui.case_form import (
    CaseForm,
    EntityRow,
    cases_from_form,
    form_from_case,
    form_intents,
    form_problems,
    known_entities,
    known_intents,
    split_list,
)
from nlu_tui.model import MAX_INTENTS, IntentKind, Suite, TestCase
from nlu_tui.textsafe import inert
from nlu_tui.ui.compact import make_compact
from nlu_tui.ui.reuse import COVERS_CLASS, ReusedScreen
from nlu_tui.ui.state import cursor_blinks
from nlu_tui.ui.widgets.entity_row import EntityRowWidget
from nlu_tui.ui.widgets.inert_fields import InertTextArea, NameSuggester, TextField
from nlu_tui.views.counts import counted

KIND_CHOICES = [(k.value.replace("_", " "), k.value) for k in IntentKind]


SPARE_ENTITY_ROWS = 4
"""Entity rows the editor built in idle time holds (hidden), so a case with entities opens
without mounting rows."""


class CaseEditorScreen(ReusedScreen, ModalScreen[list[TestCase] | None]):
    """Add cases (``case`` None) or edit one; returns the resulting cases or None."""

    DEFAULT_CSS = f"""
    CaseEditorScreen {{ align: center middle; }}
    CaseEditorScreen.{COVERS_CLASS} {{ background: $background; }}
    CaseEditorScreen > Vertical {{
        width: 100%; max-width: 120; height: 100%; max-height: 44;
        border: round $primary; background: $surface; padding: 0 1;
    }}
    CaseEditorScreen #form {{ height: 1fr; }}
    CaseEditorScreen .row > Input {{ margin-right: 1; }}
    CaseEditorScreen #form > TextArea, CaseEditorScreen #form > .row {{ margin-bottom: 1; }}
    CaseEditorScreen #form > #entity-labels {{ margin-bottom: 0; color: $text-muted; }}
    CaseEditorScreen #entity-labels > Label {{ margin-right: 1; }}
    CaseEditorScreen .field-label {{ width: 8; color: $text-muted; }}
    CaseEditorScreen .inline-label {{ width: 5; color: $text-muted; }}
    CaseEditorScreen #parent, CaseEditorScreen #tags {{ width: 1fr; }}
    CaseEditorScreen #entity-labels .ent-name {{ width: 18; }}
    CaseEditorScreen #entity-labels .ent-value {{ width: 1fr; }}
    CaseEditorScreen #entity-labels .ent-kind {{ width: 14; }}
    CaseEditorScreen #entity-labels .ent-alt {{ width: 16; margin-right: 6; }}
    CaseEditorScreen .title {{ text-style: bold; }}
    CaseEditorScreen .hint {{ color: $text-muted; }}
    CaseEditorScreen #utterances {{ height: 4; }}
    CaseEditorScreen .intent {{ width: 1fr; }}
    CaseEditorScreen #kind {{ width: 18; }}
    CaseEditorScreen .row {{ height: 1; }}
    CaseEditorScreen #entities {{ height: auto; }}
    CaseEditorScreen #order {{ width: 1fr; }}
    CaseEditorScreen #problems {{ color: $error; height: auto; max-height: 6; }}
    CaseEditorScreen #problems.ok {{ color: $success; }}
    CaseEditorScreen #buttons {{ dock: bottom; height: 1; align-horizontal: right; }}
    CaseEditorScreen #buttons Button {{ margin-left: 1; }}
    """
    AUTO_FOCUS = "#utterances"
    MAX_SIZE = Size(120, 44)
    BINDINGS = [
        Binding(
            "ctrl+s,f5",
            "save",
            "Save",
            id="editor.save",
            priority=True,
            tooltip="Save the case(s) (only when the form is valid).",
        ),
        Binding(
            "escape",
            "cancel",
            "Cancel",
            id="editor.cancel",
            tooltip="Close without saving (asks first when the form has unsaved edits).",
        ),
        Binding(
            "ctrl+n,f4",
            "add_entity",
            "Entity +",
            id="editor.add-entity",
            tooltip="Add an expected entity row.",
        ),
        Binding(
            "ctrl+o,f6",
            "order_from_entities",
            "Order",
            id="editor.order",
            tooltip="Fill the entity order from the entity list (one intent only).",
        ),
    ]

    def __init__(
        self,
        suite: Suite,
        case: TestCase | None,
        extra_intents: list[str],
        engine_intents: Iterable[str] = (),
    ) -> None:
        super().__init__()
        self._intent_suggester = NameSuggester([])
        self._entity_suggester = NameSuggester([])
        self.spare_rows = 0
        """Hidden entity rows composed besides the form's (:func:`blank`)."""
        self._set_data(suite, case, extra_intents, engine_intents)

    @classmethod
    def blank(cls) -> CaseEditorScreen:
        """An editor to build in idle time and :meth:`refill` for its first use."""
        editor = cls(Suite(name="", cases=[]), None, [])
        editor.spare_rows = SPARE_ENTITY_ROWS
        return editor

    def _set_data(
        self,
        suite: Suite,
        case: TestCase | None,
        extra_intents: list[str],
        engine_intents: Iterable[str],
    ) -> None:
        self.suite = suite
        self.case = case
        self.intent_names = known_intents(suite, [*extra_intents, *engine_intents])
        self._elsewhere = set(extra_intents) | set(engine_intents)
        """Intents known outside the suite: its training data's and the engine's."""
        self.entity_names = known_entities(suite)
        self._intent_suggester.set_names(self.intent_names)
        self._entity_suggester.set_names(self.entity_names)
        self.form = form_from_case(case) if case is not None else CaseForm()
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self._others: Suite | None = None
        self._initial: CaseForm | None = None
        """The form as it opened, to tell whether Escape would lose edits."""

    # --- layout ---------------------------------------------------------------------------------

    def _title(self) -> Text:
        title = "Edit case" if self.case is not None else "Add cases"
        return Text(inert(f"{title} · {self.suite.name}", newlines=False))

    def compose(self) -> ComposeResult:
        form = self.form
        intents = self._intent_suggester
        with Vertical():
            yield Label(self._title(), classes="title", id="title")
            with VerticalScroll(id="form"):
                yield Label("Utterances — one per line; each line becomes a case", classes="hint")
                yield InertTextArea(form.utterances, id="utterances", soft_wrap=True)
                with Horizontal(classes="row"):
                    yield Label("Intents", classes="field-label")
                    for n in range(MAX_INTENTS):
                        yield TextField(
                            form.intents[n] if n < len(form.intents) else "",
                            placeholder=f"or intent {n + 1}" if n else "empty: none expected",
                            id=f"intent-{n + 1}",
                            classes="intent",
                            suggester=intents,
                            tooltip=f"Intent {n + 1} of up to {MAX_INTENTS} accepted ones; "
                            "Tab takes the completion shown",
                        )
                    yield Label("Kind", classes="inline-label")
                    yield Select(
                        KIND_CHOICES,
                        value=form.kind or Select.NULL,
                        prompt="kind",
                        id="kind",
                        compact=True,
                    )
                with Horizontal(classes="row"):
                    yield Label("Parent", classes="field-label")
                    yield TextField(
                        form.parent,
                        placeholder="parent intent path: outer > inner",
                        id="parent",
                        suggester=intents,
                    )
                yield Label(
                    "Entities — regex: full match · multi: a||b · composite: c1:v|c2:v · "
                    "or: other accepted values",
                    classes="hint",
                )
                with Horizontal(classes="row", id="entity-labels"):
                    yield Label("Entity", classes="ent-name")
                    yield Label("Value", classes="ent-value")
                    yield Label("Kind", classes="ent-kind")
                    yield Label("Or (others)", classes="ent-alt")
                with Vertical(id="entities"):
                    for row in form.entities:
                        yield EntityRowWidget(row, self._entity_suggester)
                    for _ in range(self.spare_rows):
                        spare = EntityRowWidget(EntityRow(), self._entity_suggester)
                        spare.park()
                        yield spare
                with Horizontal(classes="row"):
                    yield Label("Order", classes="field-label")
                    yield TextField(
                        form.order,
                        placeholder="entity order: first, second (one intent only)",
                        id="order",
                        suggester=self._entity_suggester,
                    )
                    yield Button("From entities", id="order-fill", compact=True)
                    yield Button("+ Entity (Ctrl+N)", id="add-entity", compact=True)
                with Horizontal(classes="row"):
                    yield Label("Tags", classes="field-label")
                    yield TextField(form.tags, placeholder="tags: smoke, regression", id="tags")
            yield Static("", id="problems", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Save (Ctrl+S)", id="save", variant="primary", disabled=True)
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        make_compact(self)
        blink = cursor_blinks(self)
        for widget in self.query(Input):
            widget.cursor_blink = blink
        self.query_one(TextArea).cursor_blink = blink
        self.revalidate()
        self._initial = self.read_form()

    def refill(
        self,
        suite: Suite,
        case: TestCase | None,
        extra_intents: list[str],
        engine_intents: Iterable[str] = (),
    ) -> None:
        """Show ``case`` of ``suite`` (None: add cases), as a new editor would: every field,
        the entity rows, the problems, the scroll position and the focus are set anew."""
        self._set_data(suite, case, extra_intents, engine_intents)
        form = self.form
        with self.app.batch_update():
            self.query_one("#title", Label).update(self._title())
            utterances = self.query_one("#utterances", InertTextArea)
            utterances.load_text(form.utterances)
            utterances.move_cursor(utterances.document.end)
            utterances.scroll_home(animate=False)
            for n in range(MAX_INTENTS):
                field = self.query_one(f"#intent-{n + 1}", Input)
                field.value = form.intents[n] if n < len(form.intents) else ""
            self.query_one("#kind", Select).value = form.kind or Select.NULL
            order = self.query_one("#order", Input)
            order.disabled = False
            for name, value in (
                ("parent", form.parent),
                ("order", form.order),
                ("tags", form.tags),
            ):
                self.query_one(f"#{name}", Input).value = value
            self._refill_entities(form.entities)
            self.query_one("#form", VerticalScroll).scroll_home(animate=False)
            self.revalidate()
            self._initial = self.read_form()
            self.set_focus(utterances, scroll_visible=False)

    def _refill_entities(self, rows: list[EntityRow]) -> None:
        """One row per entity of the form: the rows there are refilled (or parked, hidden, when
        there are more), and only the missing ones mounted."""
        widgets = [w for w in self.query(EntityRowWidget) if not w.removed or w.parked]
        for widget, row in zip(widgets, rows, strict=False):
            widget.unpark(row)
        for widget in widgets[len(rows) :]:
            widget.park()
        missing = [EntityRowWidget(row, self._entity_suggester) for row in rows[len(widgets) :]]
        if missing:
            self.query_one("#entities").mount_all(missing)
            for widget in missing:  # before their mount: the form reads their values now
                widget.removed = False

    # --- reading the form ---------------------------------------------------------------------------

    def read_form(self) -> CaseForm:
        kind = self.query_one("#kind", Select).value
        return CaseForm(
            utterances=self.query_one("#utterances", TextArea).text,
            intents=[self.query_one(f"#intent-{n + 1}", Input).value for n in range(MAX_INTENTS)],
            kind=kind if isinstance(kind, str) else "",
            parent=self.query_one("#parent", Input).value,
            entities=[w.value() for w in self.query(EntityRowWidget) if not w.removed],
            order=self.query_one("#order", Input).value,
            tags=self.query_one("#tags", Input).value,
        )

    def _other_cases(self) -> Suite:
        """The suite without the case being edited, so it does not clash with itself."""
        if self._others is None:
            skip = self.case.id if self.case is not None else None
            self._others = Suite(
                name=self.suite.name,
                cases=[c for c in self.suite.cases if c.id != skip],
                path=self.suite.path,
            )
        return self._others

    def revalidate(self) -> None:
        from nlu_tui.validation import validate_case

        form = self.read_form()
        errors = list(form_problems(form))
        warnings: list[str] = []
        if not errors:
            others = self._other_cases()
            for case in cases_from_form(form, self.case):
                for problem in validate_case(case, others):
                    text = f"{case.utterance[:30]}: {problem.message}"
                    (errors if problem.severity == "error" else warnings).append(text)
        if not errors:
            warnings.extend(self._unknown_intents(form))
        self.errors, self.warnings = errors, warnings
        self.query_one("#entity-labels").display = bool(form.entities)
        order = self.query_one("#order", Input)
        single = len(form_intents(form)) == 1
        order.disabled = not single and not order.value
        self.query_one("#order-fill", Button).disabled = not single
        status = self.query_one("#problems", Static)
        lines = [f"✖ {e}" for e in errors] + [f"⚠ {w}" for w in warnings]
        count = len(cases_from_form(form, self.case)) if not errors else 0
        status.update(
            inert("\n".join(lines)) if lines else f"✔ ready to save {counted(count, 'case')}"
        )
        status.set_class(not errors, "ok")
        self.query_one("#save", Button).disabled = bool(errors)

    def _unknown_intents(self, form: CaseForm) -> list[str]:
        """An intent found nowhere (the suite's other cases, the training data, the intents
        an engine listed) is most likely a typo or a half-typed name: a warning (Save stays
        possible, for a new intent). Nothing is said when nothing is known to compare with."""
        known = set(self._other_cases().intents_covered()) | self._elsewhere
        known |= {p for c in self._other_cases().cases for p in c.parent_intents}
        if not known:
            return []
        return [
            f"intent {name!r} is not in this suite, the training data or the engine's intents"
            " (a typo? Tab takes the completion shown)"
            for name in form_intents(form)
            if name not in known
        ]

    @on(Input.Changed)
    @on(TextArea.Changed)
    @on(Select.Changed)
    def _changed(self, event: Any) -> None:
        self.revalidate()

    # --- actions --------------------------------------------------------------------------------

    @on(Button.Pressed, "#add-entity")
    def action_add_entity(self) -> None:
        parked = [w for w in self.query(EntityRowWidget) if w.parked]
        if parked:  # the first hidden row, right after the shown ones
            row = parked[0]
            row.unpark(EntityRow())
        else:
            row = EntityRowWidget(EntityRow(), self._entity_suggester)
            self.query_one("#entities").mount(row)
        self.call_after_refresh(lambda: row.query_one(Input).focus())
        self.call_after_refresh(self.revalidate)

    @on(Button.Pressed, "#order-fill")
    def action_order_from_entities(self) -> None:
        form = self.read_form()
        if len(form_intents(form)) != 1:
            self.notify("An entity order needs exactly one intent.", severity="warning")
            return
        names: list[str] = []
        for row in form.entities:
            if row.name.strip() and row.name.strip() not in names:
                names.append(row.name.strip())
        order = self.query_one("#order", Input)
        order.disabled = False
        order.value = ", ".join(names)

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        """Button and Ctrl+S alike: the form is checked again, as shown, and refused when
        it has an error (the Save button is disabled then too)."""
        self.revalidate()
        if self.errors:
            self.notify("Fix the problems first.", severity="warning")
            return
        form = self.read_form()
        if split_list(form.order) and len(form_intents(form)) != 1:
            return
        self.dismiss(cases_from_form(form, self.case))

    @property
    def edited(self) -> bool:
        """Whether the form differs from how it opened."""
        return self._initial is not None and self.read_form() != self._initial

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close; with unsaved edits, ask first (Enter keeps editing)."""
        if not self.edited:
            self.dismiss(None)
            return
        from nlu_tui.ui.screens.dialogs import ConfirmDialog

        def answer(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(
            ConfirmDialog(
                "Discard your changes to this case?",
                "The edits in the form are not saved yet.",
                yes="Discard (y)",
                no="Keep editing (n)",
            ),
            answer,
        )
