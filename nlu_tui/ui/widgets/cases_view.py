"""The cases of the open suite: the keys, the selection and sort, and the status line.

:class:`CasesView` puts together three widgets, each in its own module: the filter box
(:class:`~nlu_tui.ui.widgets.cases_filter.CasesFilter`), the table area
(:class:`~nlu_tui.ui.widgets.cases_area.CasesArea`: the table, the preview of its first rows,
or why there is none) and the status line
(:class:`~nlu_tui.ui.widgets.cases_status.CasesStatus`). They talk to it by messages
(``CasesFilter.Changed``, ``CasesArea.Swapped``). Its two base classes hold its other jobs:
:class:`~nlu_tui.ui.widgets.cases_shown.CasesShown` builds and shows the rows (in workers, with
``cases_rows``), :class:`~nlu_tui.ui.widgets.cases_edits.CaseEdits` edits and saves the suite.
Cells are rendered without markup, so utterances such as ``[bold red]x[/]`` show literally.
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message

from nlu_tui.model import Suite
from nlu_tui.ui.commands import PaletteCommand
from nlu_tui.ui.state import cursor_blinks, workbench
from nlu_tui.ui.widgets.cases_area import CasesArea
from nlu_tui.ui.widgets.cases_filter import CasesFilter
from nlu_tui.ui.widgets.cases_rows import PartialRows
from nlu_tui.ui.widgets.cases_shown import CasesShown
from nlu_tui.ui.widgets.cases_status import (
    CasesStatus,
    CasesStatusFacts,
    loading_text,
    status_text,
)
from nlu_tui.views.cases import (
    COLUMNS,
    SEL_MARK,
)

__all__ = ["NO_SUITE", "CasesView", "PartialRows"]

NO_SUITE = (
    "No suite open: pick one on the left, or in the suites panel (F2) press n for a new suite"
    " or i to import a file (Kore.ai, Rasa, NLU.DevOps, LUIS)."
)
"""What an empty workspace shows a newcomer instead of an empty table."""


class CasesView(CasesShown):
    """Filter box, the table, and a status line; owns the open suite's edits and undo."""

    BINDINGS = [
        Binding("a,insert", "add", "Add", id="cases.add", tooltip="Add cases (one per line)."),
        Binding("e", "edit", "Edit", id="cases.edit", tooltip="Edit the case under the cursor."),
        Binding(
            "space",
            "toggle_select",
            "Select",
            id="cases.select",
            tooltip="Mark or unmark the case under the cursor for bulk actions.",
        ),
        Binding(
            "A,ctrl+a",
            "select_all",
            "All",
            show=False,
            id="cases.select-all",
            tooltip="Mark every shown case (again: unmark all).",
        ),
        Binding("t", "tag", "Tag", id="cases.tag", tooltip="Add tags to the marked cases."),
        Binding(
            "G",
            "generate",
            "Generate…",
            id="cases.generate",
            tooltip="Generate test cases for an intent with an LLM, review them, add them.",
        ),
        Binding(
            "delete,D",
            "delete",
            "Delete",
            id="cases.delete",
            tooltip="Delete the marked cases (or the one under the cursor).",
        ),
        Binding(
            "m",
            "move",
            "Move",
            show=False,
            id="cases.move",
            tooltip="Move the marked cases to another suite.",
        ),
        Binding(
            "slash,f",
            "focus_filter",
            "Filter",
            key_display="/",
            id="cases.filter",
            tooltip="Filter: words, intent:X, tag:X, entity:X, has:entities, has:problems.",
        ),
        Binding(
            "s",
            "sort_next",
            "Sort",
            id="cases.sort",
            tooltip="Sort by the next column (1-9 pick a column; again reverses).",
        ),
        Binding(
            "ctrl+z,z",
            "undo",
            "Undo",
            id="cases.undo",
            tooltip="Undo the last change to this suite.",
        ),
        *[
            Binding(str(n), f"sort_column({n - 1})", show=False, id=f"cases.sort-{n}")
            for n in range(1, 10)
        ],
    ]

    def __init__(self) -> None:
        super().__init__(id="cases-view")
        self._announced = False

    class FirstShown(Message):
        """The cases area first shows a suite's table (or why it cannot): the first screen is
        complete and usable, and the main screen mounts what it deferred."""

    def compose(self) -> ComposeResult:
        yield CasesFilter()
        yield CasesArea(NO_SUITE)
        yield CasesStatus()

    def on_mount(self) -> None:
        self.query_one(CasesFilter).set_blink(cursor_blinks(self))
        self.watch(workbench(self), "suite", self._suite_set, init=False)

    # --- showing ----------------------------------------------------------------------------

    @on(CasesArea.Swapped)
    def _swapped(self, event: CasesArea.Swapped) -> None:
        if event.table:
            self.views_shown += 1
        self._update_status()
        if event.final:
            self._announce()  # the table, or why there is none

    def _announce(self) -> None:
        if not self._announced:
            self._announced = True
            self.post_message(self.FirstShown())

    def _suite_set(self, suite: Suite | None) -> None:
        if suite is self.suite:
            return
        if self.suite is None or suite is None or suite.path != self.suite.path:
            self.undo_stack.clear()
            self.selected.clear()
        self.suite = suite
        self.loading_path = None
        self.problems = {}
        self.problem_text = {}
        self._invalidate()
        if suite is not None and suite.cases and self.wants_preview and self.table is None:
            self.show_preview(suite.path, suite.cases, len(suite.cases), self._rebuild_validated)
            return
        self.rebuild(validate=True)

    def _update_status(self) -> None:
        status = self.query_one(CasesStatus)
        if self.loading_path is not None:
            status.update(loading_text(self.loading_path, self.loading_fraction, self.shown_count))
            return
        suite = self.suite
        if suite is None:
            return
        case_id = self.cursor_case_id() if not self.previewing else None
        facts = CasesStatusFacts(
            total=len(suite.cases),
            shown=self.shown_count,
            marked=len(self.selected),
            with_problems=len(self.problems),
            sort=self.sort,
            read_only=suite.read_only,
            unsaved=suite.path is not None and self.workspace.is_unsaved(suite.path),
            previewing=self.previewing,
            cursor_problems=self.problem_text.get(case_id, []) if case_id else [],
        )
        status.update(status_text(facts))

    # --- cursor and selection -------------------------------------------------------------------

    def target_ids(self) -> list[str]:
        """The marked cases, or the one under the cursor when none are marked."""
        if self.selected:
            return [i for i in self.view_ids if i in self.selected] or list(self.selected)
        case_id = self.cursor_case_id()
        return [case_id] if case_id else []

    @on(CasesFilter.Changed)
    def _filter_changed(self) -> None:
        self.rebuild()

    @on(CasesFilter.Submitted)
    def _filter_submitted(self) -> None:
        self.focus_table()

    def on_data_table_row_highlighted(self, event: Any) -> None:
        self._update_status()

    def on_data_table_row_selected(self, event: Any) -> None:
        self.action_edit()

    def on_data_table_header_selected(self, event: Any) -> None:
        self.action_sort_column(event.column_index)

    def action_focus_filter(self) -> None:
        self.query_one(CasesFilter).focus_input()

    def action_toggle_select(self) -> None:
        if self.loading_path is not None:
            return
        table = self.table
        case_id = self.cursor_case_id()
        if table is None or case_id is None:
            return
        if case_id in self.selected:
            self.selected.discard(case_id)
        else:
            self.selected.add(case_id)
        table.update_cell(table.cursor_row, 1, SEL_MARK if case_id in self.selected else "")
        self._invalidate()
        if table.cursor_row + 1 < self.shown_count:
            table.move_cursor(row=table.cursor_row + 1)
        self._update_status()

    def action_select_all(self) -> None:
        if self.loading_path is not None:
            return
        shown = set(self.view_ids)
        if shown and shown <= self.selected:
            self.selected -= shown
        else:
            self.selected |= shown
        self._invalidate()
        self.rebuild()

    def action_sort_column(self, index: int) -> None:
        if not 0 <= index < len(COLUMNS):
            return
        key = COLUMNS[index][0]
        if key == "sel":
            return
        if self.sort and self.sort[0] == key:
            self.sort = (key, not self.sort[1])
        else:
            self.sort = (key, False)
        self.rebuild()

    def action_sort_next(self) -> None:
        keys = [k for k, _, _ in COLUMNS if k != "sel"]
        current = keys.index(self.sort[0]) if self.sort else -1
        key = keys[(current + 1) % len(keys)]
        self.sort = (key, False)
        self.rebuild()

    def refresh_status(self) -> None:
        """Redraw the status line (after a save or a retry changed what is unsaved)."""
        if self.is_mounted:
            self._update_status()

    def palette_commands(self) -> list[PaletteCommand]:
        if self.suite is None:
            return []
        commands = [
            PaletteCommand("cases: Filter", self.action_focus_filter, "Focus the filter box"),
            PaletteCommand("cases: Select all", self.action_select_all, "Mark all shown"),
        ]
        if not self.suite.read_only:
            commands += [
                PaletteCommand("cases: Add", self.action_add, "Add cases, one per line"),
                PaletteCommand("cases: Edit", self.action_edit, "Edit the case under the cursor"),
                PaletteCommand("cases: Tag", self.action_tag, "Tag the marked cases"),
                PaletteCommand(
                    "cases: Generate…",
                    self.action_generate,
                    "Generate test cases for an intent with an LLM, review them, add them (G)",
                ),
                PaletteCommand("cases: Delete", self.action_delete, "Delete the marked cases"),
                PaletteCommand("cases: Move", self.action_move, "Move them to another suite"),
                PaletteCommand("cases: Undo", self.action_undo, "Undo the last change"),
            ]
        for n, (key, label, _) in enumerate(COLUMNS):
            if key != "sel":
                commands.append(
                    PaletteCommand(
                        f"cases: Sort by {label}",
                        _bind(self.action_sort_column, n),
                        "Again to reverse",
                    )
                )
        return commands


def _bind(fn: Any, arg: Any) -> Any:
    def call() -> None:
        fn(arg)

    return call
