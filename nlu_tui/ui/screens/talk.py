"""Talk to the bot: chat with a conversation engine and save the chat as an E2E test case.

The screen is a face over :class:`nlu_tui.conversation.recorder.Recorder`: the engine spec
(``rasa:URL`` or a profile) is typed at the top, each message sent in a worker, the bot's
answers, the actions it ran and the slots it set shown as they arrive. ``Ctrl+O`` marks a part
of the bot's last message as volatile (ignored when compared), ``Ctrl+S`` saves the chat as a
test case appended to a test file of the workspace (``Recorder.test_case`` and
``e2e_splice.append_test_case`` decide the steps and the layout). Everything the bot says goes
through the one sanitizer before it is drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, RichLog, Static

from nlu_tui.textsafe import inert
from nlu_tui.ui.widgets.inert_fields import TextField
from nlu_tui.ui.workers import ReportsFailedWorkers

if TYPE_CHECKING:
    from nlu_tui.conversation.recorder import RecordedTurn, Recorder
    from nlu_tui.conversation_model import Turn


class TalkScreen(ReportsFailedWorkers, Screen[None]):
    """Chat with a bot; save the chat as a test case (see the module)."""

    DEFAULT_CSS = """
    TalkScreen #talk-engine-row { height: 1; }
    TalkScreen #talk-engine-row Label { width: auto; padding: 0 1 0 0; }
    TalkScreen #talk-engine { width: 1fr; }
    TalkScreen #talk-body { height: 1fr; }
    TalkScreen #talk-log { width: 2fr; border: round $primary-darken-2; }
    TalkScreen #talk-state { width: 1fr; min-width: 24; border: round $primary-darken-2;
        padding: 0 1; }
    TalkScreen #talk-status { height: 1; color: $text-muted; text-wrap: nowrap;
        text-overflow: ellipsis; }
    TalkScreen #talk-message-row { height: 1; }
    TalkScreen #talk-message-row Label { width: auto; padding: 0 1 0 0; }
    TalkScreen #talk-message { width: 1fr; }
    """
    BINDINGS = [
        Binding("ctrl+s", "save", "Save as test", id="talk.save", tooltip="Save the chat"),
        Binding("ctrl+o", "volatile", "Volatile part", id="talk.volatile"),
        Binding("escape", "close", "Close", id="talk.close"),
    ]

    def __init__(self, engine: str = "", folder: Path | None = None) -> None:
        super().__init__()
        self.engine_spec = engine
        self.folder = folder
        self.recorder: Recorder | None = None
        self.slots: dict[str, Any] = {}

    def compose(self) -> ComposeResult:
        with Horizontal(id="talk-engine-row"):
            yield Label("Engine")
            yield TextField(
                self.engine_spec,
                placeholder="rasa:http://localhost:5005 or a profile; Enter to connect",
                id="talk-engine",
            )
        with Horizontal(id="talk-body"):
            yield RichLog(id="talk-log", wrap=True, markup=False)
            yield Static("No slots set yet.", id="talk-state")
        yield Static("Type the engine, Enter; then chat below.", id="talk-status")
        with Horizontal(id="talk-message-row"):
            yield Label("You say")
            yield TextField(placeholder="a message to the bot, Enter to send", id="talk-message")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#talk-engine" if not self.engine_spec else "#talk-message", Input).focus()
        if self.engine_spec:
            self.connect(self.engine_spec)

    # --- connecting and chatting ------------------------------------------------------------

    @on(Input.Submitted, "#talk-engine")
    def _engine(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.connect(event.value.strip())

    @work(
        exclusive=True,
        group="talk",
        exit_on_error=False,
        name="talk-connect",
        description="Connecting to the bot",
    )
    async def connect(self, spec: str) -> None:
        from nlu_tui.conversation.recorder import Recorder
        from nlu_tui.errors import NluTuiError

        if self.recorder is not None:
            await self.recorder.close()
            self.recorder = None
        try:
            recorder = Recorder(spec, self.folder)
            await recorder.start()
        except (NluTuiError, OSError) as exc:
            self._status(f"Cannot talk to {spec}: {exc}", error=True)
            return
        self.recorder = recorder
        self.slots = {}
        self.query_one("#talk-log", RichLog).clear()
        self._status(f"Talking to {recorder.name}. Ctrl+O marks a volatile part, Ctrl+S saves.")
        self.query_one("#talk-message", Input).focus()

    @on(Input.Submitted, "#talk-message")
    def _message(self, event: Input.Submitted) -> None:
        text = event.value
        if not text.strip():
            return
        if self.recorder is None:
            self._status("Connect to an engine first (the field at the top).", error=True)
            return
        event.input.value = ""
        self._say(text)

    @work(
        exclusive=False,
        group="talk-say",
        exit_on_error=False,
        name="talk-say",
        description="Sending a message to the bot",
    )
    async def _say(self, text: str) -> None:
        from nlu_tui.errors import NluTuiError

        assert self.recorder is not None
        log = self.query_one("#talk-log", RichLog)
        log.write(Text("you: ", style="bold") + Text(inert(text)))
        try:
            recorded = await self.recorder.say(text)
        except (NluTuiError, OSError) as exc:
            self._status(f"The bot did not answer: {exc}", error=True)
            return
        self._show(recorded)

    def _show(self, recorded: RecordedTurn) -> None:
        from nlu_tui.conversation_model import EventKind

        log = self.query_one("#talk-log", RichLog)
        turn: Turn = recorded.turn
        actions: list[str] = []
        for event in turn.events:
            if event.kind is EventKind.BOT:
                name = f" ({event.name})" if event.name else ""
                line = Text("bot: ", style="bold green") + Text(inert(event.text or ""))
                log.write(line + Text(inert(name), style="dim"))
            elif event.kind is EventKind.SLOT and event.name:
                self.slots[event.name] = event.value
            elif event.kind is EventKind.ACTION and event.name and event.name != "action_listen":
                actions.append(event.name)
        intent = f"intent {turn.intent}" if turn.intent else "no intent"
        lines = [f"{intent}; actions: {', '.join(actions) or '-'}", "", "slots:"]
        lines += [f"  {k}: {v!r}" for k, v in self.slots.items()] or ["  (none)"]
        self.query_one("#talk-state", Static).update(Text(inert("\n".join(lines))))

    # --- volatile parts and saving ------------------------------------------------------------

    def action_volatile(self) -> None:
        from nlu_tui.ui.screens.dialogs import PromptScreen

        recorder = self.recorder
        turn = len(recorder.turns) - 1 if recorder is not None else -1
        messages = recorder.turns[turn].bot_messages() if recorder is not None and turn >= 0 else []
        if not messages:
            self._status("Nothing to mark: the bot has not answered yet.", error=True)
            return
        index = len(messages) - 1
        text = messages[index].text or ""

        def mark(part: str | None) -> None:
            if part is None or recorder is None:
                return
            from nlu_tui.errors import InputError

            try:
                recorder.mark_volatile(turn, index, part)
            except InputError as exc:
                self._status(str(exc.message), error=True)
                return
            self._status(f"Marked {part!r} as volatile: it is ignored when the test runs.")

        self.app.push_screen(
            PromptScreen("The part of the bot's last message that changes", value=text), mark
        )

    def action_save(self) -> None:
        from nlu_tui.ui.screens.dialogs import PromptScreen

        if self.recorder is None or not self.recorder.turns:
            self._status("Nothing to save yet: chat with the bot first.", error=True)
            return
        default = self._default_file()

        def named(name: str | None) -> None:
            if name:
                self.app.push_screen(
                    PromptScreen("Append to test file", value=str(default)),
                    lambda path: self._save(name, path),
                )

        self.app.push_screen(PromptScreen("Test case name", placeholder="books a table"), named)

    def _save(self, name: str, path: str | None) -> None:
        from nlu_tui.errors import NluTuiError
        from nlu_tui.formats.e2e_splice import append_test_case

        if not path or self.recorder is None:
            return
        target = Path(path).expanduser()
        if not target.is_absolute() and self.folder is not None:
            target = self.folder / target
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            saved = append_test_case(target, self.recorder.test_case(name))
        except (NluTuiError, OSError) as exc:
            self._status(f"Not saved: {exc}", error=True)
            return
        notes = f" ({'; '.join(saved.notes)})" if saved.notes else ""
        self._status(f"Saved test case {name!r} to {target}{notes}.")

    def _default_file(self) -> Path:
        from nlu_tui.workspace import Workspace

        folder = self.folder or Path.cwd()
        found = Workspace(folder).conversation_paths()
        return found[0] if found else folder / "tests" / "recorded_tests.yml"

    def action_close(self) -> None:
        recorder, self.recorder = self.recorder, None
        if recorder is not None:
            self.app.run_worker(recorder.close(), group="talk-close", exit_on_error=False)
        self.app.pop_screen()

    def _status(self, text: str, error: bool = False) -> None:
        self.query_one("#talk-status", Static).update(
            Text(inert(text, newlines=False), style="red" if error else "")
        )
