"""The DUT step editor: a test case's steps as rows, each user step's expected commands as
editable rows completing from the flows and slots (Tab accepts the suggestion); Ctrl+N adds a
command to the focused user step, Ctrl+X removes the focused command, Ctrl+S checks every
command as ``test du`` would read it and saves the file. Ctrl+G ("Generate…") asks an LLM for
test cases that start a flow (:class:`nlu_tui.ui.screens.generate_dialog.GenerateScreen`) and
appends the accepted ones to the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widgets import Footer, Input, Label, Select, Static

from nlu_tui.textsafe import inert
from nlu_tui.ui.widgets.inert_fields import TextField
from nlu_tui.views.counts import counted


class DutEditorScreen(Screen[None]):
    DEFAULT_CSS = """
    DutEditorScreen #dut-editor-top { height: auto; }
    DutEditorScreen #dut-editor-top Select { width: 1fr; }
    DutEditorScreen .dut-row { height: auto; }
    DutEditorScreen .dut-actor { width: 8; padding: 1 1 0 0; }
    DutEditorScreen .dut-row Input { width: 1fr; }
    DutEditorScreen .dut-command { margin-left: 8; }
    DutEditorScreen #dut-editor-status { height: auto; color: $warning; }
    """
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="dut-editor.save"),
        Binding("ctrl+n", "add_command", "Add command", id="dut-editor.add"),
        Binding("ctrl+x", "remove_command", "Remove command", id="dut-editor.remove"),
        Binding("ctrl+g", "generate", "Generate…", id="dut-editor.generate"),
        Binding("escape", "close", "Close", id="dut-editor.close"),
    ]

    def __init__(self, files: list[Path]) -> None:
        super().__init__()
        self.files = files
        self.path: Path | None = None
        self.data: Any = None
        self.flows: Any = None
        self.version = "v2"
        self.case_index = 0
        self.commands: dict[int, list[str]] = {}
        self.texts: dict[int, str] = {}

    def compose(self) -> ComposeResult:
        with Horizontal(id="dut-editor-top"):
            yield Select(
                [(inert(str(p.name)), str(p)) for p in self.files],
                allow_blank=False,
                id="dut-editor-file",
            )
            yield Select([], allow_blank=True, id="dut-editor-case", prompt="test case")
        yield Static("", id="dut-editor-status")
        yield VerticalScroll(id="dut-editor-steps")
        yield Footer()

    def on_mount(self) -> None:
        if self.files:
            self._open(self.files[0])

    def _open(self, path: Path) -> None:
        from nlu_tui.dialogue_understanding.flows import load_flows
        from nlu_tui.dut.editing import file_version
        from nlu_tui.dut.service import DutRequest, find_flows
        from nlu_tui.errors import InputError
        from nlu_tui.formats.e2e_cases import read

        try:
            self.data = read(path)
            flows_path = find_flows(DutRequest(path), None)
            self.flows = load_flows(flows_path) if flows_path else None
        except InputError as exc:
            self._status(str(exc))
            return
        self.path = path
        self.version = file_version(self.data)
        cases = self.query_one("#dut-editor-case", Select)
        cases.set_options([(inert(c.name), str(i)) for i, c in enumerate(self.data.test_cases)])
        if self.data.test_cases:
            cases.value = "0"
        self._load_case(0)

    def _status(self, text: str) -> None:
        self.query_one("#dut-editor-status", Static).update(inert(text))

    def _load_case(self, index: int) -> None:
        self.case_index = index
        case = self.data.test_cases[index] if self.data and self.data.test_cases else None
        self.texts = {i: s.text or "" for i, s in enumerate(case.steps)} if case else {}
        self.commands = (
            {i: list(s.commands or []) for i, s in enumerate(case.steps) if s.actor == "user"}
            if case
            else {}
        )
        self._render_rows()

    def _render_rows(self, focus: str | None = None) -> None:
        """Rebuild the rows (queued: the old rows are gone before the new ones come)."""
        self.call_later(self._rebuild, focus)

    async def _rebuild(self, focus: str | None) -> None:
        from nlu_tui.dut.editing import command_candidates

        box = self.query_one("#dut-editor-steps", VerticalScroll)
        await box.remove_children()
        if self.data is None or not self.data.test_cases:
            await box.mount(Label("No test case."))
            return
        case = self.data.test_cases[self.case_index]
        suggester = SuggestFromList(command_candidates(self.flows), case_sensitive=True)
        rows: list[Any] = []
        for i, step in enumerate(case.steps):
            if step.kind.value in ("slot_was_set", "slot_was_not_set"):
                continue
            rows.append(
                Horizontal(
                    Label(step.kind.value, classes="dut-actor"),
                    TextField(self.texts.get(i, ""), id=f"step-{i}", compact=False),
                    classes="dut-row",
                )
            )
            for j, command in enumerate(self.commands.get(i, [])):
                rows.append(
                    TextField(
                        command,
                        suggester=suggester,
                        id=f"cmd-{i}-{j}",
                        compact=False,
                        classes="dut-command",
                        placeholder="command, e.g. start flow ...",
                    )
                )
        await box.mount_all(rows)
        if focus:
            self._focus(focus)

    def _focus(self, widget_id: str) -> None:
        for widget in self.query(f"#{widget_id}"):
            widget.focus()

    @on(Select.Changed, "#dut-editor-file")
    def _file_chosen(self, event: Select.Changed) -> None:
        if event.value is not Select.BLANK and (self.path is None or str(self.path) != event.value):
            self._open(Path(str(event.value)))

    @on(Select.Changed, "#dut-editor-case")
    def _case_chosen(self, event: Select.Changed) -> None:
        value = event.value  # blank (Select.NULL after set_options) when no case is chosen
        if isinstance(value, str) and value.isdigit() and int(value) != self.case_index:
            self._load_case(int(value))

    @on(Input.Changed)
    def _edited(self, event: Input.Changed) -> None:
        widget_id = event.input.id or ""
        if widget_id.startswith("step-"):
            self.texts[int(widget_id[5:])] = event.value
        elif widget_id.startswith("cmd-"):
            _, i, j = widget_id.split("-")
            commands = self.commands.get(int(i))
            if commands is not None and int(j) < len(commands):
                commands[int(j)] = event.value

    def _focused_step(self) -> tuple[int, int | None] | None:
        widget_id = getattr(self.focused, "id", None) or ""
        if widget_id.startswith("cmd-"):
            _, i, j = widget_id.split("-")
            return int(i), int(j)
        if widget_id.startswith("step-"):
            return int(widget_id[5:]), None
        return None

    def action_add_command(self) -> None:
        where = self._focused_step()
        if where is None or where[0] not in self.commands:
            self._status("Put the cursor on a user step (or one of its commands) first.")
            return
        step = where[0]
        self.commands[step].append("")
        self._render_rows(focus=f"cmd-{step}-{len(self.commands[step]) - 1}")

    def action_remove_command(self) -> None:
        where = self._focused_step()
        if where is None or where[1] is None:
            self._status("Put the cursor on a command to remove it.")
            return
        step, index = where[0], where[1]
        del self.commands[step][index]
        self._render_rows(focus=f"step-{step}")

    def action_save(self) -> None:
        from nlu_tui.dut.editing import apply_edits, check_commands, save
        from nlu_tui.errors import NluTuiError

        if self.data is None or self.path is None or not self.data.test_cases:
            return
        case = self.data.test_cases[self.case_index]
        apply_edits(case, self.texts, self.commands)
        problems = check_commands(case, self.version, self.flows)
        if problems:
            index, message = problems[0]
            line = case.steps[index].line
            self._status(f"not saved: step at line {line}: {message}")
            return
        try:
            save(self.data, self.path)
        except (OSError, NluTuiError) as exc:
            self._status(f"not saved: {exc}")
            return
        self._status(f"saved {self.path}")
        self.app.notify(f"Saved {self.path.name}")

    def action_generate(self) -> None:
        """DUT test cases for a flow from an LLM, reviewed; the accepted ones are appended to
        the file (its text kept) and the file is read again (the edits on screen stay)."""
        from nlu_tui.ui.screens.generate_dialog import GenerateScreen

        if self.path is None or self.data is None:
            self._status("Open a DUT file first.")
            return
        if self.flows is None:
            self._status(f"No flows file beside {self.path.name}: generation needs the flows.")
            return
        path = self.path

        def done(result: list[Any] | None) -> None:
            from nlu_tui.errors import NluTuiError
            from nlu_tui.formats.e2e_cases import read
            from nlu_tui.llm.generate_flow import add_to_dut_file

            if not result:
                return
            try:
                add_to_dut_file(path, result)
                self.data = read(path)
            except (OSError, NluTuiError) as exc:
                self._status(f"not added: {exc}")
                return
            cases = self.query_one("#dut-editor-case", Select)
            cases.set_options([(inert(c.name), str(i)) for i, c in enumerate(self.data.test_cases)])
            cases.value = str(self.case_index)
            what = f"Added {counted(len(result), 'generated test case')}"
            self._status(f"{what} to {path.name}")
            self.app.notify(what)

        self.app.push_screen(
            GenerateScreen(None, [], flows=self.flows, dut=self.data, dut_path=path), done
        )

    def action_close(self) -> None:
        self.app.pop_screen()


def dut_files(root: Path) -> list[Path]:
    """E2E files of the workspace whose steps carry commands (DUT files)."""
    from nlu_tui.ui.screens.conversation_tests import conversation_files

    found = []
    for path in conversation_files(root):
        try:
            head = path.read_text(encoding="utf-8-sig", errors="replace")
        except OSError:
            continue
        if "commands:" in head:
            found.append(path)
    return found
