"""The start-run dialog: engine profile and version, with the last choice preselected.

The last choice per suite is kept in ``last-run.json`` in the user config directory (engine spec
and stage only; never a secret, since specs are profile names or paths/URLs without tokens).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from nlu_tui.textsafe import inert
from nlu_tui.ui.screens.run_dialogs import DIALOG_CSS
from nlu_tui.ui.widgets.inert_fields import INERT

LAST_RUN_FILE = "last-run.json"
STAGES = ("development", "published")


@dataclass(frozen=True)
class StartChoice:
    """What the user picked: an engine spec (profile name or ``embedded:PATH`` ...), a version."""

    engine: str
    stage: str
    note: str = ""


def _last_run_path() -> Path:
    from nlu_tui import paths

    return paths.config_dir() / LAST_RUN_FILE


def load_last_choice(suite_key: str) -> StartChoice | None:
    """The choice last made for this suite (or for any suite, when this one has none)."""
    try:
        data = json.loads(_last_run_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    entry = data.get("suites", {}).get(suite_key) or data.get("last")
    if not isinstance(entry, dict) or not isinstance(entry.get("engine"), str):
        return None
    stage = entry.get("stage") if entry.get("stage") in STAGES else "development"
    return StartChoice(entry["engine"], str(stage))


def save_last_choice(suite_key: str, choice: StartChoice) -> None:
    from nlu_tui.fileio import atomic_write_text

    path = _last_run_path()
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    entry = {"engine": choice.engine, "stage": choice.stage}
    suites = data.get("suites") if isinstance(data.get("suites"), dict) else {}
    assert isinstance(suites, dict)
    suites[suite_key] = entry
    data["suites"] = suites
    data["last"] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, indent=2) + "\n")


def engine_choices(suite_path: Path | None, workspace: Path | None) -> list[tuple[str, str]]:
    """(spec, label) for the engines this suite can run on: profiles, then the embedded engine."""
    from nlu_tui.engines import profiles

    choices: list[tuple[str, str]] = []
    try:
        found = profiles.list_profiles(suite_path, workspace)
    except Exception:  # a broken engines.yaml is reported when a run starts with it
        found = {}
    for name, source in found.items():
        choices.append((name, f"{name}  ({source.parent.name}/{source.name})"))
    sibling = profiles._sibling_training_data(suite_path)
    if sibling is not None:
        choices.append((f"embedded:{sibling}", f"embedded ({sibling.name})"))
    return choices


class StartRunDialog(ModalScreen[StartChoice | None]):
    """Choose the engine and the version; an "other" field takes any ``--engine`` spec.

    Compact so it fits 80×24: one row per field, each with its label on the left, and the
    buttons docked at the bottom. Tab goes engine → version → note → other spec → Start;
    Enter in any field (or ctrl+s) starts, Escape cancels.
    """

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="StartRunDialog")
        + """
    StartRunDialog .start-row { height: 1; }
    StartRunDialog .start-label { width: 9; color: $text-muted; }
    StartRunDialog .start-row Select, StartRunDialog .start-row Input { width: 1fr; }
    StartRunDialog .dialog-body { margin-bottom: 1; }
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
        self, suite_name: str, choices: list[tuple[str, str]], last: StartChoice | None
    ) -> None:
        super().__init__()
        self._suite_name = suite_name
        self._choices = choices
        self._last = last

    def compose(self) -> ComposeResult:
        specs = [spec for spec, _ in self._choices]
        last_engine = self._last.engine if self._last else None
        preselect = last_engine if last_engine in specs else (specs[0] if specs else None)
        other = last_engine if last_engine and last_engine not in specs else ""
        with Vertical():
            yield Label(
                Text(inert(f"Run {self._suite_name}", newlines=False)), classes="dialog-title"
            )
            with VerticalScroll(classes="dialog-body"):
                with Horizontal(classes="start-row"):
                    yield Static("Engine", classes="start-label")
                    yield Select(
                        [
                            (Text(inert(label, newlines=False)), spec)
                            for spec, label in self._choices
                        ],
                        value=preselect if preselect is not None else Select.BLANK,
                        allow_blank=True,
                        prompt="(pick an engine profile)",
                        id="start-engine",
                        compact=True,
                    )
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
                    yield Input(
                        placeholder="optional, up to 1,024 characters",
                        id="start-note",
                        max_length=1024,
                        compact=True,
                    )
                with Horizontal(classes="start-row"):
                    yield Static("Other", classes="start-label")
                    yield Input(
                        other,
                        highlighter=INERT,
                        placeholder="engine spec instead: embedded:PATH, rasa:URL, http:URL",
                        id="start-spec",
                        compact=True,
                    )
                yield Static("", id="start-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Start (enter)", variant="primary", id="start-ok", compact=True)
                yield Button("Cancel (esc)", id="start-cancel", compact=True)

    def on_mount(self) -> None:
        if not self._choices and not self.query_one("#start-spec", Input).value:
            self.query_one("#start-spec", Input).focus()
        else:
            self.query_one("#start-engine", Select).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter starts from every field, but still picks an option in an open select list
        and still presses the Cancel button."""
        return not (action == "enter_start" and self._enter_is_local())

    def _enter_is_local(self) -> bool:
        focused = self.focused
        if focused is None:
            return False
        if isinstance(focused, Button):
            return focused.id != "start-ok"
        return any(
            isinstance(node, Select) and node.expanded for node in (focused, *focused.ancestors)
        )

    def action_enter_start(self) -> None:
        self.action_start()

    def action_start(self) -> None:
        spec = self.query_one("#start-spec", Input).value.strip()
        if not spec:
            value = self.query_one("#start-engine", Select).value
            spec = "" if value is Select.BLANK else str(value)
        if not spec:
            self.query_one("#start-error", Static).update("Pick an engine or type a spec.")
            return
        stage = str(self.query_one("#start-stage", Select).value)
        note = self.query_one("#start-note", Input).value
        self.dismiss(StartChoice(spec, stage, note))

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start-ok":
            self.action_start()
        else:
            self.dismiss(None)
