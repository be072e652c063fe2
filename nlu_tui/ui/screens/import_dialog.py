"""Import a file of any supported format as a new suite: pick it, preview it, then import.

Reading happens in a worker; nothing is written until the user presses Import on a clean
preview. A file with bad rows shows each error with its row or line, and cannot be imported.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, DirectoryTree, Input, Label, Select, Static

from nlu_tui.case_form import format_entities, format_intents, one_line
from nlu_tui.errors import InputError
from nlu_tui.model import Suite
from nlu_tui.textsafe import inert
from nlu_tui.ui.commands import PaletteCommand
from nlu_tui.ui.compact import make_compact
from nlu_tui.ui.state import cursor_blinks, workbench, workspace_root
from nlu_tui.ui.widgets.inert_fields import InertDirectoryTree, TextField
from nlu_tui.ui.workers import ReportsFailedWorkers
from nlu_tui.views.counts import counted

PREVIEW_ROWS = 200
AUTO = "auto"


def import_errors(exc: BaseException) -> list[str]:
    """One line per problem: a group of errors (``.errors``) or the single error itself."""
    inner = getattr(exc, "errors", None)
    if isinstance(inner, list) and inner:
        return [str(e) for e in inner]
    return [str(exc)]


def _cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, ending in "…" when it was cut."""
    from rich.cells import cell_len, set_cell_size

    return text if cell_len(text) <= width else set_cell_size(text, width - 1) + "…"


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)``... when a suite of the workspace has it."""
    if name not in taken:
        return name
    n = 2
    while f"{name} ({n})" in taken:
        n += 1
    return f"{name} ({n})"


class ImportScreen(ReportsFailedWorkers, ModalScreen[Path | None]):
    DEFAULT_CSS = """
    ImportScreen { align: center middle; }
    ImportScreen > Vertical {
        width: 100%; max-width: 130; height: 100%; max-height: 44;
        border: round $primary; background: $surface; padding: 0 1;
    }
    ImportScreen .title { text-style: bold; }
    ImportScreen #picker { height: 1fr; }
    ImportScreen DirectoryTree { width: 40%; }
    ImportScreen #preview-side { width: 1fr; }
    ImportScreen #preview { height: 1fr; }
    ImportScreen #import-errors { color: $error; height: auto; max-height: 8; }
    ImportScreen #import-summary { height: auto; }
    ImportScreen .row { height: 1; }
    ImportScreen #path { width: 1fr; margin-right: 1; }
    ImportScreen #format { width: 24; }
    ImportScreen #suite-name { width: 1fr; margin-right: 1; }
    ImportScreen #suite-description { width: 2fr; }
    ImportScreen #buttons { dock: bottom; height: 1; align-horizontal: right; }
    ImportScreen #buttons Button { margin-left: 1; }
    """
    AUTO_FOCUS = "#path"
    BINDINGS = [
        Binding(
            "escape", "cancel", "Cancel", id="import.cancel", tooltip="Close without importing."
        ),
        Binding(
            "f5,ctrl+r",
            "preview",
            "Preview",
            id="import.preview",
            priority=True,
            tooltip="Read the file and show what would be imported.",
        ),
        Binding(
            "ctrl+s,f8",
            "do_import",
            "Import",
            id="import.do",
            priority=True,
            tooltip="Import the previewed file as a new suite.",
        ),
    ]

    def __init__(self, start: Path | None = None) -> None:
        super().__init__()
        self.start = start or Path.cwd()
        self.previewed: Suite | None = None
        self.previewed_key: tuple[str, str] | None = None
        self.taken_names: set[str] = set()
        """Names of the workspace's suites, read with the preview: an import may not reuse one."""

    def compose(self) -> ComposeResult:
        from nlu_tui.formats.registry import format_names

        with Vertical():
            yield Label("Import a file as a new suite", classes="title")
            with Horizontal(classes="row"):
                yield TextField(placeholder="file to import (or pick one below)", id="path")
                yield Select(
                    [("detect format", AUTO), *[(n, n) for n in format_names()]],
                    value=AUTO,
                    allow_blank=False,
                    id="format",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield TextField(placeholder="suite name (from the file)", id="suite-name")
                yield TextField(placeholder="description (optional)", id="suite-description")
            with Horizontal(id="picker"):
                yield InertDirectoryTree(self.start, id="tree")
                with Vertical(id="preview-side"):
                    yield Static("", id="import-summary", markup=False)
                    yield Static("", id="import-errors", markup=False)
                    yield DataTable(id="preview", cursor_type="row", zebra_stripes=True)
            with Horizontal(id="buttons"):
                yield Button("Preview (F5)", id="preview-btn")
                yield Button("Import (Ctrl+S)", id="import-btn", variant="primary", disabled=True)
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        make_compact(self)
        self.query_one("#path", Input).cursor_blink = cursor_blinks(self)
        table = self.query_one("#preview", DataTable)
        table.add_columns("#", "Utterance", "Intents", "Entities")

    @on(DirectoryTree.FileSelected)
    def _picked(self, event: DirectoryTree.FileSelected) -> None:
        self.query_one("#path", Input).value = str(event.path)
        self.action_preview()

    @on(Input.Submitted, "#path")
    @on(Button.Pressed, "#preview-btn")
    def action_preview(self) -> None:
        text = self.query_one("#path", Input).value.strip()
        if not text:
            self.query_one("#import-errors", Static).update("Choose a file first.")
            return
        fmt = self.query_one("#format", Select).value
        self.query_one("#import-btn", Button).disabled = True
        self.query_one("#import-summary", Static).update("Reading…")
        self.query_one("#import-errors", Static).update("")
        self._read(Path(text).expanduser(), None if fmt == AUTO else str(fmt))

    @on(Input.Changed, "#path")
    @on(Select.Changed, "#format")
    def _invalidate(self) -> None:
        self.previewed = None
        self.query_one("#import-btn", Button).disabled = True

    @work(
        thread=True,
        exclusive=True,
        group="import-preview",
        exit_on_error=False,
        name="import-preview",
        description="Reading the file to import",
    )
    def _read(self, path: Path, fmt: str | None) -> None:
        from nlu_tui.formats.registry import detect_format

        workspace = workbench(self).workspace
        detected = fmt is None
        try:
            if fmt is None:
                try:
                    fmt = detect_format(path)
                except InputError as exc:
                    if "cannot tell the format" not in str(exc):
                        raise
                    self.app.call_from_thread(self._unknown_format, path)
                    return
            result = workspace.preview_import(path, fmt)
            taken = {info.name for info in workspace.list_suites()}
        except InputError as exc:
            self.app.call_from_thread(self._failed, import_errors(exc))
            return
        except Exception as exc:
            self.app.call_from_thread(self._failed, [f"{path}: {exc}"])
            return
        self.taken_names = taken
        self.app.call_from_thread(self._show, path, fmt, result, detected)

    def _unknown_format(self, path: Path) -> None:
        """Detection failed: ask for the format here (the CLI's "--format" means nothing in
        the workbench)."""
        self._failed(
            [
                f"{path.name}: cannot tell the format of this file. "
                "Choose its format in the list at the top right, then preview again (F5)."
            ]
        )
        self.query_one("#format", Select).focus()

    def _failed(self, errors: list[str]) -> None:
        self.previewed = None
        self.query_one("#import-summary", Static).update("Nothing can be imported from this file:")
        self.query_one("#import-errors", Static).update(inert("\n".join(f"✖ {e}" for e in errors)))
        self.query_one("#preview", DataTable).clear()
        self.query_one("#import-btn", Button).disabled = True

    def _show(self, path: Path, fmt: str, result: Any, detected: bool = False) -> None:
        suite: Suite = result.suite
        self.previewed = suite
        how = "detected" if detected else "chosen"
        summary = (
            f"{suite.name}: {counted(len(suite.cases), 'case')}, "
            f"{counted(len(suite.intents_covered()), 'intent')}"
            f" (format {fmt}, {how})"
        )
        name_input = self.query_one("#suite-name", Input)
        name_input.value = unique_name(suite.name or path.stem, self.taken_names)
        self.query_one("#suite-description", Input).value = suite.description or ""
        if len(suite.cases) > PREVIEW_ROWS:
            summary += f"; showing the first {PREVIEW_ROWS}"
        self.query_one("#import-summary", Static).update(inert(summary))
        self.query_one("#import-errors", Static).update(
            inert("\n".join(f"⚠ {w}" for w in result.warnings))
        )
        table = self.query_one("#preview", DataTable)
        table.clear()
        # long utterances must not push Intents and Entities off the preview: the utterance
        # gets about half of the width, the intents a third of the rest, each cut with "…"
        room = max(30, table.size.width - 10)
        utterance_width = max(14, room // 2)
        intents_width = max(10, (room - utterance_width) * 2 // 5)
        for n, case in enumerate(suite.cases[:PREVIEW_ROWS], 1):
            table.add_row(
                str(n),
                Text(_cut(inert(one_line(case.utterance), newlines=False), utterance_width)),
                Text(_cut(inert(format_intents(case), newlines=False), intents_width)),
                Text(inert(one_line(format_entities(case)), newlines=False)),
            )
        self.query_one("#import-btn", Button).disabled = False

    @on(Button.Pressed, "#import-btn")
    def action_do_import(self) -> None:
        if self.previewed is None:
            self.notify("Preview the file first.", severity="warning")
            return
        name = self.query_one("#suite-name", Input).value.strip()
        if not name:
            self.query_one("#import-errors", Static).update("✖ Give the suite a name.")
            self.query_one("#suite-name", Input).focus()
            return
        if name in self.taken_names:
            self.query_one("#import-errors", Static).update(
                f"✖ A suite named {name!r} already exists; choose another name."
            )
            self.query_one("#suite-name", Input).focus()
            return
        description = self.query_one("#suite-description", Input).value.strip()
        self._write(replace(self.previewed, name=name, description=description))

    @work(
        thread=True,
        exclusive=True,
        group="import-write",
        exit_on_error=False,
        name="import-write",
        description="Importing a suite",
    )
    def _write(self, suite: Suite) -> None:
        try:
            path = workbench(self).workspace.add_imported(suite)
        except Exception as exc:
            self.app.call_from_thread(self._failed, import_errors(exc))
            return
        self.app.call_from_thread(self.dismiss, path)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    def palette_commands(self) -> list[PaletteCommand]:
        return [
            PaletteCommand(
                "import: Save the sample files",
                self.action_save_samples,
                "Write sample Kore.ai batch-test files (JSON and CSV) to import or copy",
            )
        ]

    def action_save_samples(self) -> None:
        """Save the sample JSON and CSV beside the file in the path field (or in the folder
        the dialog opened on), then preview the JSON one."""
        from nlu_tui.samples import save_sample_files

        root = workspace_root(self)
        home = Path(root) if root is not None else self.start
        text = self.query_one("#path", Input).value.strip()
        typed = Path(text).expanduser() if text else home
        folder = typed if typed.is_dir() else typed.parent
        if not folder.is_dir():
            folder = home
        try:
            written = save_sample_files(folder)
        except OSError as exc:
            self.notify(escape(f"Cannot save the samples: {exc}"), severity="error")
            return
        self.notify(escape(f"Saved {', '.join(p.name for p in written)} in {folder}"))
        tree = self.query_one("#tree", DirectoryTree)  # show the new files, ready to pick
        if Path(tree.path).resolve() == folder.resolve():
            tree.reload()
        else:
            tree.path = folder
        self.query_one("#path", Input).value = str(written[0])
        self.action_preview()
