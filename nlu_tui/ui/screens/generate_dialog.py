"""The Cases tab's "Generate…" dialog: test cases for an intent written by an LLM, reviewed
before they are added (seed 000: reject some, "Generate more", "Add Test Cases"). Opened from
the DUT editor with the flows (``flows=``), it writes DUT test cases that start a flow.

The same :class:`nlu_tui.llm.generate.CaseGenerator` (for a flow:
:class:`nlu_tui.llm.generate_flow.FlowCaseGenerator`) as ``nlu-tui generate`` does the work;
this screen shows the proposals (✓ accepted, ✗ rejected, ! flagged, ⛔ blocked by an error)
with their checks, toggles them (Space), edits one inline (``e``, Enter applies), asks for more
(``g``: nothing shown or rejected is proposed again) and answers the accepted cases (``ctrl+s``)
for the Cases tab to append and save. Without an endpoint it says how to configure one.
Generated text is untrusted: it is shown through :func:`nlu_tui.textsafe.inert`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from nlu_tui.model import Suite
from nlu_tui.textsafe import inert
from nlu_tui.ui.compact import make_compact
from nlu_tui.ui.reuse import COVERS_CLASS, ReusedScreen
from nlu_tui.ui.widgets.inert_fields import TextField
from nlu_tui.ui.workers import ReportsFailedWorkers


class GenerateScreen(ReportsFailedWorkers, ReusedScreen, ModalScreen[list[Any] | None]):
    """Answers the accepted, checked cases (``TestCase`` s; for a flow, DUT ``E2ETestCase`` s),
    or None when canceled.

    The Cases tab's dialog is built once in idle time (:meth:`blank`) and refilled for each use
    (:meth:`refill`; :mod:`nlu_tui.ui.reuse`); the DUT editor's (for flows) is built each time."""

    DEFAULT_CSS = (
        """
    GenerateScreen { align: center middle; }
    GenerateScreen > Vertical {
        width: 100%; max-width: 120; height: 100%; max-height: 44;
        border: round $primary; background: $surface; padding: 0 1;
    }
    GenerateScreen .dialog-title { text-style: bold; }
    GenerateScreen #gen-top { height: auto; }
    GenerateScreen #gen-top Select { width: 1fr; }
    GenerateScreen #gen-count { width: 10; }
    GenerateScreen #gen-conversation { width: auto; }
    GenerateScreen #gen-list { height: 1fr; min-height: 4; }
    GenerateScreen #gen-notes { height: auto; max-height: 5; color: $warning; }
    GenerateScreen #gen-status { height: auto; }
    GenerateScreen #gen-error { color: $error; height: auto; }
    GenerateScreen #gen-keys { color: $text-muted; height: 1; }
    GenerateScreen #gen-edit { display: none; }
    GenerateScreen #gen-edit.editing { display: block; }
    GenerateScreen .dialog-buttons { dock: bottom; height: 1; align-horizontal: right; }
    GenerateScreen .dialog-buttons Button { margin-left: 1; }
    """
        + f"GenerateScreen.{COVERS_CLASS} {{ background: $background; }}"
    )
    MAX_SIZE = Size(120, 44)
    """As large as the case editor's frame: up to 120×44 the dialog covers the terminal, on
    an opaque background, and the workbench under it is neither drawn nor dimmed, cell by
    cell, on each paint (at 100×34 it showed around the dialog at 120×36: two thirds of the
    time of ``G``, issue 23 fast keys)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="generate.cancel", tooltip="Close; add nothing."),
        Binding("space", "toggle_accept", "Accept/Reject", id="generate.toggle",
                tooltip="Accept or reject the proposal under the cursor."),
        Binding("e", "edit", "Edit", id="generate.edit", tooltip="Edit the proposal's text."),
        Binding("g", "generate", "Generate more", id="generate.more",
                tooltip="Ask for more (nothing already shown or rejected)."),
        Binding("ctrl+s", "add", "Add test cases", id="generate.add",
                tooltip="Add the accepted proposals to the suite."),
    ]  # fmt: skip

    def __init__(
        self,
        suite: Suite | None,
        intents: list[str],
        intent: str | None = None,
        *,
        flows: Any = None,
        dut: Any = None,
        dut_path: Path | None = None,
    ) -> None:
        super().__init__()
        self.flows = flows
        self.dut = dut
        self.dut_path = dut_path
        if flows is not None:
            intents = list(flows.flows)
        self._set_data(suite, intents, intent)

    def _set_data(self, suite: Suite | None, intents: list[str], intent: str | None) -> None:
        self.suite = suite
        self.intents = intents
        self.initial_intent = intent if intent in intents else (intents[0] if intents else None)
        self.generator: Any = None
        self.config: Any = None
        self.config_error: str | None = None
        self.training: Any = None
        self.training_path: Path | None = None
        self.busy = False
        self.loaded = False
        """The LLM settings and training data of this use have been read (:meth:`_load`)."""
        self._generate_when_loaded = False
        self._use = getattr(self, "_use", 0) + 1
        """Counts the uses of a reused dialog: what a worker of an earlier use reads is dropped."""

    @classmethod
    def blank(cls) -> GenerateScreen:
        """The Cases tab's dialog, to build in idle time and :meth:`refill` for its first use."""
        return cls(Suite(name="", cases=[]), [])

    def refill(self, suite: Suite, intents: list[str], intent: str | None = None) -> None:
        """Show the dialog for ``suite`` as a new one would: no proposals, no generator, no
        error or edit left from the last use; the LLM settings and training data read again."""
        assert self.flows is None, "the flows' dialog is built for each use"
        self.workers.cancel_node(self)  # a generation of the last use still under way
        self._set_data(suite, intents, intent)
        with self.app.batch_update():
            select = self.query_one("#gen-intent", Select)
            select.set_options([(name, name) for name in self.intents])
            select.value = self.initial_intent if self.initial_intent else Select.NULL
            self.query_one("#gen-count", Input).value = "10"
            edit = self.query_one("#gen-edit", Input)
            edit.value = ""
            edit.remove_class("editing")
            self.query_one("#gen-more", Button).disabled = False
            self._show_error("")
            self._refresh()
            self.set_focus(select, scroll_visible=False)
        # read once the dialog is drawn: read now, in a thread, it held the interpreter lock
        # while the dialog's first frame was drawn (issue 23, fast keys)
        self._load_on_resume = True

    _load_on_resume = False

    def on_screen_resume(self) -> None:
        if self._load_on_resume:
            self._load_on_resume = False
            self.call_after_refresh(self._load)

    def compose(self) -> ComposeResult:
        with Vertical():
            title = (
                "Generate DUT test cases for a flow with an LLM"
                if self.flows is not None
                else "Generate test cases with an LLM"
            )
            yield Label(title, classes="dialog-title")
            with Horizontal(id="gen-top"):
                yield Select(
                    [(name, name) for name in self.intents],
                    value=self.initial_intent if self.initial_intent else Select.NULL,
                    prompt="flow" if self.flows is not None else "intent",
                    id="gen-intent",
                )
                yield TextField("10", id="gen-count", type="integer", tooltip="How many per round")
                if self.flows is not None:
                    yield Checkbox(
                        "bot asks open slots",
                        id="gen-conversation",
                        compact=True,
                        tooltip="Go on: the bot asks each slot the message left open, "
                        "the user answers (set slot).",
                    )
            yield Static("", id="gen-status")
            yield Static("", id="gen-error")
            yield OptionList(id="gen-list")
            yield Static("", id="gen-notes")
            yield Static(
                "Space accept/reject · e edit · g generate more · ctrl+s add · Esc cancel",
                id="gen-keys",
            )
            yield TextField(
                id="gen-edit", placeholder="edit the utterance; Enter applies, Esc cancels"
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="gen-cancel")
                yield Button("Generate (g)", id="gen-more", variant="primary")
                yield Button("Add test cases (ctrl+s)", id="gen-add", variant="success")

    def on_mount(self) -> None:
        make_compact(self)
        self._load()

    # --- setup --------------------------------------------------------------------------------

    @work(
        thread=True,
        exclusive=True,
        group="generate-setup",
        exit_on_error=False,
        name="generate-setup",
        description="Reading the LLM settings",
    )
    def _load(self) -> None:
        from nlu_tui.llm import LLMError, load_llm_config
        from nlu_tui.llm.generate import find_training, load_training

        use = self._use
        config = error = training = path = None
        try:
            config = load_llm_config()
        except LLMError as exc:
            error = str(exc)
        try:
            source = self.dut_path if self.flows is not None else getattr(self.suite, "path", None)
            if source is not None:
                path = find_training(source, None)
                training = load_training(path)
        except Exception as exc:  # a broken training file: generate without it, say so
            error = (error + "\n" if error else "") + f"training data not used: {exc}"
        self.app.call_from_thread(self._loaded, use, config, error, training, path)

    def _loaded(
        self, use: int, config: Any, error: str | None, training: Any, path: Path | None
    ) -> None:
        if use != self._use:  # read for an earlier use of the dialog
            return
        self.loaded = True
        self.config, self.config_error = config, error
        self.training, self.training_path = training, path
        if training is not None and self.flows is None:
            names = [n for n in training.intents if n not in self.intents]
            if names:
                self.intents = [*self.intents, *names]
                self.query_one("#gen-intent", Select).set_options([(n, n) for n in self.intents])
                if self.initial_intent is None and self.intents:
                    self.query_one("#gen-intent", Select).value = self.intents[0]
        if config is None:
            self.query_one("#gen-more", Button).disabled = True
        self._show_error(error or "")
        self._refresh()
        if self._generate_when_loaded:  # g typed while the settings were being read
            self._generate_when_loaded = False
            self.action_generate()

    # --- actions ------------------------------------------------------------------------------

    def _intent(self) -> str | None:
        value = self.query_one("#gen-intent", Select).value
        return value if isinstance(value, str) else None

    def _count(self) -> int:
        try:
            return max(1, min(100, int(self.query_one("#gen-count", Input).value or "10")))
        except ValueError:
            return 10

    @on(Button.Pressed, "#gen-more")
    def action_generate(self) -> None:
        if self.busy:
            return
        if not self.loaded:  # the settings are being read: generate once they are
            self._generate_when_loaded = True
            return
        if self.config is None:
            self._show_error(self.config_error or "no LLM endpoint is configured")
            return
        intent = self._intent()
        if intent is None:
            what = "flow" if self.flows is not None else "intent"
            self._show_error(f"pick the {what} to generate test cases for")
            return
        if self.generator is None or self.generator.intent != intent:
            self.generator = self._new_generator(intent)
        self.generator.count = self._count()
        if self.flows is not None:
            self.generator.conversation = self.query_one("#gen-conversation", Checkbox).value
        self.busy = True
        self._show_error("")
        self._refresh(f"asking {self.config.model}…")
        self._ask(self.generator)

    def _new_generator(self, name: str) -> Any:
        if self.flows is not None:
            from nlu_tui.llm.generate_flow import FlowCaseGenerator

            return FlowCaseGenerator(name, self.flows, self.dut, self.training, count=self._count())
        from nlu_tui.llm.generate import CaseGenerator

        assert self.suite is not None
        return CaseGenerator(name, self.suite, self.training, count=self._count())

    @work(
        exclusive=True,
        group="generate",
        exit_on_error=False,
        name="generate",
        description="Generating test cases",
    )
    async def _ask(self, generator: Any) -> None:
        from nlu_tui.llm import ChatClient

        use = self._use
        try:
            async with ChatClient(self.config) as client:
                fresh = await generator.generate(client)
            if use != self._use:  # the dialog was closed and opened again meanwhile
                return
        except Exception as exc:
            if use != self._use:
                return
            self.busy = False
            self._show_error(str(exc))
            self._refresh()
            return
        self.busy = False
        self._refresh(f"{len(fresh)} new proposal(s)")
        listing = self.query_one("#gen-list", OptionList)
        if fresh and not self.query_one("#gen-edit", Input).has_class("editing"):
            listing.focus()  # review with the keys straight away (Space, e, g, ctrl+s)

    def action_toggle_accept(self) -> None:
        index = self._cursor()
        if index is not None:
            proposal = self.generator.proposals[index]
            self.generator.set_accepted(index, not proposal.accepted)
            self._refresh()

    def action_edit(self) -> None:
        index = self._cursor()
        if index is None:
            return
        edit = self.query_one("#gen-edit", Input)
        edit.value = self.generator.proposals[index].utterance
        edit.add_class("editing")
        edit.focus()

    @on(Input.Submitted, "#gen-edit")
    def _edited(self, event: Input.Submitted) -> None:
        index = self._cursor()
        edit = self.query_one("#gen-edit", Input)
        if index is not None and event.value.strip():
            self.generator.edit(index, event.value)
        edit.remove_class("editing")
        self.query_one("#gen-list", OptionList).focus()
        self._refresh()

    @on(Button.Pressed, "#gen-add")
    def action_add(self) -> None:
        if self.generator is None or not self.generator.proposals:
            self._show_error("generate some proposals first")
            return
        cases = self.generator.accepted_cases()
        if not cases:
            self._show_error("no accepted proposal can be added")
            return
        self.dismiss(cases)

    @on(Button.Pressed, "#gen-cancel")
    def action_cancel(self) -> None:
        edit = self.query_one("#gen-edit", Input)
        if edit.has_class("editing"):
            edit.remove_class("editing")
            self.query_one("#gen-list", OptionList).focus()
            return
        self.dismiss(None)

    # --- display ------------------------------------------------------------------------------

    def _cursor(self) -> int | None:
        if self.generator is None or not self.generator.proposals:
            return None
        highlighted = self.query_one("#gen-list", OptionList).highlighted
        return highlighted if highlighted is not None else None

    def _show_error(self, text: str) -> None:
        self.query_one("#gen-error", Static).update(Text(inert(text)))

    @on(OptionList.OptionHighlighted, "#gen-list")
    def _highlighted(self) -> None:
        self._show_notes()

    def _show_notes(self) -> None:
        index = self._cursor()
        notes: list[str] = []
        if index is not None:
            proposal = self.generator.proposals[index]
            notes = [f"⛔ {e}" for e in proposal.errors] + [f"! {f}" for f in proposal.flags]
            summary = proposal.summary()
            if summary:
                label = "commands" if self.flows is not None else "entities"
                notes.append(f"{label}: {summary}")
            notes += proposal.more_lines()
        self.query_one("#gen-notes", Static).update(Text(inert("\n".join(notes))))

    def _refresh(self, status: str = "") -> None:
        listing = self.query_one("#gen-list", OptionList)
        keep = listing.highlighted
        listing.clear_options()
        proposals = self.generator.proposals if self.generator is not None else []
        for proposal in proposals:
            mark = "✓" if proposal.accepted else "✗"
            check = "⛔" if proposal.errors else ("!" if proposal.flags else " ")
            listing.add_option(
                Option(Text(inert(f"{mark}{check} {proposal.utterance}", newlines=False)))
            )
        if proposals:
            listing.highlighted = min(keep or 0, len(proposals) - 1)
        accepted = sum(1 for p in proposals if p.addable)
        if self.config is None and self.config_error is None:
            line = "reading the LLM settings…"
        elif self.config is None:
            line = "No LLM endpoint: generation is off until one is configured (how: below)."
        else:
            source = self.training_path.name if self.training_path else "none (no leakage check)"
            line = (
                f"model {self.config.model} · training data: {source} · "
                f"{len(proposals)} shown, {accepted} to add"
            )
        self.query_one("#gen-status", Static).update(
            Text(inert(line + (f" · {status}" if status else ""), newlines=False))
        )
        self._show_notes()
