"""The start-run dialog: which engine and which version, what is shown being what runs.

The Engine select holds every engine this suite can run on (profiles, the embedded engine of a
sibling ``*.nlu.yml``) and three explicit choices: "Other spec…" reveals a field for any
``--engine`` spec, "Training file…" picks a Rasa file for the embedded engine, "Create a
profile…" writes a commented entry into the workspace's ``engines.yaml``. Nothing hidden
overrides the visible choice.

The last spec that ran successfully is kept per suite in ``last-run.json`` in the user config
directory (engine spec and stage only; never a secret, since specs are profile names or
paths/URLs without tokens) and preselected next time; every engine that ran successfully in the
workspace is in the Engine select too.

The engine is checked in the dialog (:mod:`nlu_tui.engine_check`, in a worker): the line under
the Engine says "reachable, model X" (green) for a server that answers, or why it cannot run
(red). Start with a spec that does not resolve (a bad spec, a missing training file) shows the
error here and the dialog stays open with what was typed; an unreachable server is said the
same way, and a second Start runs anyway (the server may be on its way up).
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Input, Label, Select, Static

from nlu_tui.engine_check import EngineCheck, check_engine, quick_check
from nlu_tui.engines.choices import (
    StartChoice,
    write_profile_template,
)
from nlu_tui.repeats import MAX_REPEAT
from nlu_tui.textsafe import inert
from nlu_tui.ui.screens.dialogs import DIALOG_FRAME_CSS, TrainingFilePicker
from nlu_tui.ui.widgets.inert_fields import INERT, TextField
from nlu_tui.ui.workers import ReportsFailedWorkers

OTHER = "\0other"
"""The Engine select's "Other spec…" entry: the spec typed in the field it reveals runs."""
PICK = "\0pick"
"""The Engine select's "Training file…" entry: opens a file picker for the embedded engine."""
CREATE = "\0create"
"""The Engine select's "Create a profile…" entry: writes a commented engines.yaml entry."""
SPECIAL = (OTHER, PICK, CREATE)
CHECK_DELAY = 0.4
"""Seconds after the last key in the Spec field before the engine is checked."""


class StartRunDialog(ReportsFailedWorkers, ModalScreen[StartChoice | None]):
    """Choose the engine and the version; the Engine select is the one source of the spec.

    Compact so it fits 80×24: one row per field, each with its label on the left, and the
    buttons docked at the bottom. Enter in any field (or ctrl+s) starts, Escape cancels.
    """

    DEFAULT_CSS = (
        DIALOG_FRAME_CSS.format(name="StartRunDialog")
        + """
    StartRunDialog .start-row { height: 1; }
    StartRunDialog .start-label { width: 9; color: $text-muted; }
    StartRunDialog .start-row Select, StartRunDialog .start-row Input { width: 1fr; }
    StartRunDialog .dialog-body { margin-bottom: 1; }
    StartRunDialog #start-help { height: auto; color: $warning; }
    StartRunDialog #start-check { height: auto; padding-left: 9; color: $text-muted; }
    StartRunDialog #start-check.-ok { color: $success; }
    StartRunDialog #start-check.-bad { color: $error; }
    """
    )
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="start.cancel", tooltip="Close without running."),
        Binding("ctrl+s,f5", "start", "Start", id="start.start", tooltip="Start the run."),
        Binding(
            "enter",
            "enter_start",
            "Start",
            show=False,
            priority=True,
            id="start.enter",
            tooltip="Start the run (Enter in any field).",
        ),
    ]

    def __init__(
        self,
        suite_name: str,
        choices: list[tuple[str, str]],
        last: StartChoice | None,
        *,
        workspace: Path | None = None,
        suite_path: Path | None = None,
    ) -> None:
        super().__init__()
        self._suite_name = suite_name
        self._choices = list(choices)
        self._last = last
        self._workspace = workspace
        self._suite_path = suite_path
        self._value: str | None = None
        """The Engine select's value before "Training file…" or "Create…" was picked."""
        self._checks: dict[tuple[str, str], EngineCheck] = {}
        """Finished engine checks by (spec, stage)."""
        self._pending: StartChoice | None = None
        """A Start waiting for its engine's check."""
        self._confirmed: tuple[str, str] | None = None
        """The unreachable (spec, stage) a first Start was told about: a second Start runs."""
        self._check_timer: Timer | None = None
        self._in_flight: set[tuple[str, str]] = set()
        """The (spec, stage) pairs being checked."""

    # --- composing ---------------------------------------------------------------------------

    def _options(self) -> list[tuple[Text, str]]:
        options = [(Text(inert(label, newlines=False)), spec) for spec, label in self._choices]
        options += [
            (Text("Other spec… (type an --engine spec)"), OTHER),
            (Text("Training file… (embedded engine)"), PICK),
            (Text("Create a profile… (engines.yaml)"), CREATE),
        ]
        return options

    def compose(self) -> ComposeResult:
        specs = [spec for spec, _ in self._choices]
        last_engine = self._last.engine if self._last else None
        other = ""
        preselect: str | None
        if last_engine in specs:
            preselect = last_engine
        elif last_engine:
            preselect, other = OTHER, last_engine  # shown in the field it reveals
        else:
            preselect = specs[0] if specs else None
        with Vertical():
            yield Label(
                Text(inert(f"Run {self._suite_name}", newlines=False)), classes="dialog-title"
            )
            with VerticalScroll(classes="dialog-body"):
                if not self._choices:
                    yield Static(self._no_engine_text(), id="start-help")
                with Horizontal(classes="start-row"):
                    yield Static("Engine", classes="start-label")
                    yield Select(
                        self._options(),
                        value=preselect if preselect is not None else Select.NULL,
                        allow_blank=True,
                        prompt="(no engine configured: pick one of the choices)",
                        id="start-engine",
                        compact=True,
                    )
                with Horizontal(classes="start-row", id="start-spec-row"):
                    yield Static("Spec", classes="start-label")
                    yield TextField(
                        other,
                        highlighter=INERT,
                        placeholder="embedded:PATH, rasa:URL, http:URL or a profile name",
                        id="start-spec",
                        compact=True,
                    )
                yield Static("", id="start-check")
                with Horizontal(classes="start-row"):
                    yield Static("Version", classes="start-label")
                    yield Select(
                        [("In development", "development"), ("Published", "published")],
                        value=self._last.stage if self._last else "development",
                        allow_blank=False,
                        id="start-stage",
                        compact=True,
                    )
                with Horizontal(classes="start-row"):
                    yield Static("Note", classes="start-label")
                    yield TextField(
                        placeholder="optional, up to 1,024 characters",
                        id="start-note",
                        max_length=1024,
                        compact=True,
                    )
                with Horizontal(classes="start-row"):
                    yield Static("Repeat", classes="start-label")
                    yield TextField(
                        "1",
                        placeholder="1",
                        type="integer",
                        max_length=3,
                        tooltip=f"Send each case N times (1-{MAX_REPEAT}) to see how stable "
                        "the engine's answers are: agreement per case, flaky cases.",
                        id="start-repeat",
                        compact=True,
                    )
                yield Static("", id="start-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Start (enter)", variant="primary", id="start-ok", compact=True)
                yield Button("Cancel (esc)", id="start-cancel", compact=True)

    def _no_engine_text(self) -> Text:
        where = self._workspace or (self._suite_path.parent if self._suite_path else None)
        text = Text("No engine is configured for this suite")
        text.append(
            " (no profile in an engines.yaml and no *.nlu.yml training file beside it). "
            "Pick one of the Engine choices: type an --engine spec (Other spec…), "
            "use the embedded engine with a training file (Training file…), or "
            "write a profile"
        )
        if where is not None:
            text.append(f" into {where / 'engines.yaml'}")
        text.append(" (Create a profile…).")
        return text

    def on_mount(self) -> None:
        self._value = self._engine_value()
        self._show_spec_row()
        self._check_soon(0)
        if self._engine_value() == OTHER:
            self.query_one("#start-spec", Input).focus()
        else:
            self.query_one("#start-engine", Select).focus()

    def _engine_value(self) -> str | None:
        value = self.query_one("#start-engine", Select).value
        return None if value == Select.NULL else str(value)

    def _show_spec_row(self) -> None:
        self.query_one("#start-spec-row").display = self._engine_value() == OTHER

    # --- the engine choice -------------------------------------------------------------------

    @on(Select.Changed, "#start-engine")
    def _engine_changed(self, event: Select.Changed) -> None:
        event.stop()
        value = self._engine_value()
        self.query_one("#start-error", Static).update("")
        if value == PICK:
            self._restore()
            self._pick_training_file()
        elif value == CREATE:
            self._restore()
            self._create_profile()
        else:
            self._value = value
            self._show_spec_row()
            if value == OTHER:
                self.query_one("#start-spec", Input).focus()
            self._check_soon(0)

    @on(Input.Changed, "#start-spec")
    def _spec_typed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_one("#start-error", Static).update("")
        self._check_soon(CHECK_DELAY)

    @on(Select.Changed, "#start-stage")
    def _stage_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._check_soon(0)

    # --- checking the engine -------------------------------------------------------------

    def _current(self) -> tuple[str, str] | None:
        """The (spec, stage) that Start would run now, or None when no spec is picked."""
        value = self._engine_value()
        if value == OTHER:
            spec = self.query_one("#start-spec", Input).value.strip()
        elif value is None or value in SPECIAL:
            return None
        else:
            spec = value
        return (spec, str(self.query_one("#start-stage", Select).value)) if spec else None

    def _check_soon(self, delay: float) -> None:
        if self._check_timer is not None:
            self._check_timer.stop()
        self._check_timer = self.set_timer(delay, self._check_now) if delay else None
        if not delay:
            self._check_now()

    def _check_now(self) -> None:
        current = self._current()
        line = self.query_one("#start-check", Static)
        line.display = current is not None
        if current is None:
            line.update("")
            return
        done = self._checks.get(current)
        if done is not None:
            self._show_check(done)
            return
        line.set_classes("")
        line.update(Text("checking the engine…", style="italic"))
        self._run_check(*current)

    def _run_check(self, spec: str, stage: str) -> None:
        """Check in an app worker: a check still going when the dialog closes is not
        cancelled with it (its answer is then dropped), and a stale answer only fills the
        cache."""
        if (spec, stage) in self._in_flight:
            return
        self._in_flight.add((spec, stage))
        self.app.run_worker(
            self._check_job(spec, stage),
            group="engine-check",
            exit_on_error=False,
            name="engine-check",
            description="Checking the engine",
        )

    async def _check_job(self, spec: str, stage: str) -> None:
        try:
            found = await check_engine(spec, self._suite_path, self._workspace, stage)
        finally:
            self._in_flight.discard((spec, stage))
        if not self.is_attached:
            return
        self._checks[(spec, stage)] = found
        if self._current() == (spec, stage):
            self._show_check(found)
        pending = self._pending
        if pending is not None and (pending.engine, pending.stage) == (spec, stage):
            self._pending = None
            self._start_checked(pending, found)

    def _show_check(self, check: EngineCheck) -> None:
        line = self.query_one("#start-check", Static)
        line.set_classes("-ok" if check.ok else "-bad")
        mark = "✔ " if check.ok else "✘ "
        line.update(Text(inert(mark + check.message)))

    def _start_checked(self, choice: StartChoice, check: EngineCheck) -> None:
        """Start ``choice`` if its engine passed; else say why here and stay open (an
        unreachable server: a second Start runs anyway)."""
        key = (choice.engine, choice.stage)
        if check.ok or (self._confirmed == key and check.name):
            self.dismiss(choice)
            return
        error = self.query_one("#start-error", Static)
        text = Text(inert(f"Cannot run on {choice.engine}: {check.message}"))
        if check.name:  # it resolved: only the server did not answer as it should
            self._confirmed = key
            text.append("  Start again to run anyway.", style="italic")
        error.update(text)
        if self._engine_value() == OTHER:
            self.query_one("#start-spec", Input).focus()

    def _restore(self) -> None:
        """Put back the choice made before a picker entry (until that picker answers)."""
        select = self.query_one("#start-engine", Select)
        with self.prevent(Select.Changed):
            select.value = self._value if self._value is not None else Select.NULL
        self._show_spec_row()

    def _pick_training_file(self) -> None:
        roots = [p for p in (self._workspace, Path.cwd(), Path.home()) if p is not None]

        def picked(path: Path | None) -> None:
            if path is None:
                return
            spec = f"embedded:{path.resolve()}"
            if spec not in [s for s, _ in self._choices]:
                self._choices.append((spec, f"embedded ({path.name})"))
                self.query_one("#start-engine", Select).set_options(self._options())
            self.query_one("#start-engine", Select).value = spec

        self.app.push_screen(TrainingFilePicker(roots), picked)

    def _create_profile(self) -> None:
        folder = self._workspace or (self._suite_path.parent if self._suite_path else None)
        error = self.query_one("#start-error", Static)
        if folder is None:
            error.update("No workspace folder to write engines.yaml into.")
            return
        try:
            target = write_profile_template(folder)
        except (OSError, UnicodeDecodeError) as exc:
            error.update(Text(inert(f"Cannot write {folder / 'engines.yaml'}: {exc}")))
            return
        error.update(
            Text(
                f"A commented profile entry is in {target}: uncomment it, set its url, "
                "save, and start the run again to pick it."
            )
        )

    # --- starting ------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter starts from every field, but still picks an option in an open select list,
        opens the Engine list while no engine is picked, and still presses the Cancel button."""
        return not (action == "enter_start" and self._enter_is_local())

    def _enter_is_local(self) -> bool:
        focused = self.focused
        if focused is None:
            return False
        if isinstance(focused, Button):
            return focused.id != "start-ok"
        if focused.id == "start-engine" and self._engine_value() is None:
            return True
        return any(
            isinstance(node, Select) and node.expanded for node in (focused, *focused.ancestors)
        )

    def action_enter_start(self) -> None:
        self.action_start()

    def action_start(self) -> None:
        value = self._engine_value()
        error = self.query_one("#start-error", Static)
        if value == OTHER:
            spec = self.query_one("#start-spec", Input).value.strip()
            if not spec:
                error.update("Type an engine spec, or pick another Engine choice.")
                self.query_one("#start-spec", Input).focus()
                return
        elif value is None or value in SPECIAL:
            error.update("Pick an engine first (see the Engine choices).")
            return
        else:
            spec = value
        stage = str(self.query_one("#start-stage", Select).value)
        note = self.query_one("#start-note", Input).value
        repeat_field = self.query_one("#start-repeat", Input)
        try:
            repeat = int(repeat_field.value.strip() or "1")
        except ValueError:
            repeat = 0
        if not 1 <= repeat <= MAX_REPEAT:
            error.update(f"Repeat: a number of times from 1 to {MAX_REPEAT}.")
            repeat_field.focus()
            return
        choice = StartChoice(spec, stage, note, repeat)
        done = self._checks.get((spec, stage))
        if done is not None and done.timed_out and self._confirmed != (spec, stage):
            done = None  # the server was slow to answer the check: ask it again now
        if done is None:
            done = quick_check(spec, self._suite_path, self._workspace, stage)
        if done is not None:
            self._start_checked(choice, done)
            return
        # an HTTP engine whose server was not asked yet: Start goes on once it answers
        self._pending = choice
        error.update(Text("checking the engine…", style="italic"))
        self._run_check(spec, stage)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start-ok":
            self.action_start()
        else:
            self.dismiss(None)
