"""The edit half of the cases view: add, edit, generate, tag, delete, move, undo, and saving.

Every edit replaces the open suite's list of cases (the old list goes on the undo stack) and
saves the file in a worker. A save that fails keeps the edit in memory, marked unsaved; a file
changed on disk meanwhile asks what to do (:class:`~nlu_tui.ui.screens.dialogs.ConflictScreen`).
:class:`CaseEdits` is the base of :class:`~nlu_tui.ui.widgets.cases_view.CasesView`, which
holds the keys (its ``BINDINGS``), the table and the selection these act on.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import work
from textual.containers import Vertical

from nlu_tui.case_form import known_tags, split_list
from nlu_tui.errors import ConflictError
from nlu_tui.model import Suite, TestCase
from nlu_tui.ui.messages import SuiteChanged
from nlu_tui.ui.state import workbench
from nlu_tui.ui.workers import ReportsFailedWorkers, describe
from nlu_tui.views.counts import counted

if TYPE_CHECKING:
    from nlu_tui.workspace import Workspace

UNDO_DEPTH = 20


class CaseEdits(ReportsFailedWorkers, Vertical):
    """Edits of the open suite's cases; the subclass says which cases (cursor, marks)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.suite: Suite | None = None
        self.selected: set[str] = set()
        self.undo_stack: list[tuple[str, list[TestCase]]] = []
        self.loading_path: Path | None = None
        """The suite being read progressively: its first cases may be shown, but nothing can be
        edited, sorted or filtered until the complete suite is in (``app.suite``)."""
        self._save_lock = threading.Lock()

    @property
    def workspace(self) -> Workspace:
        return workbench(self).workspace

    # --- what the view provides -----------------------------------------------------------

    def cursor_case_id(self) -> str | None:
        raise NotImplementedError

    def target_ids(self) -> list[str]:
        raise NotImplementedError

    def case_by_id(self, case_id: str) -> TestCase | None:
        if self.suite is None:
            return None
        return next((c for c in self.suite.cases if c.id == case_id), None)

    def cases_changed(self, cursor: str | None = None) -> None:
        """The suite's cases were replaced: show them again (and check them)."""
        raise NotImplementedError

    def refresh_status(self) -> None:
        raise NotImplementedError

    # --- edits ----------------------------------------------------------------------------

    def _editable(self) -> Suite | None:
        if self.loading_path is not None:
            self.notify("The suite is still loading; edit it once it is in.", severity="warning")
            return None
        suite = self.suite
        if suite is None:
            self.notify("Open a suite first.", severity="warning")
            return None
        if suite.read_only:
            self.notify("This suite is read-only; duplicate it to edit.", severity="warning")
            return None
        return suite

    def action_add(self) -> None:
        self._open_editor(None)

    def action_edit(self) -> None:
        case_id = self.cursor_case_id()
        if case_id is not None:
            self._open_editor(case_id)

    def edit_case(self, case_id: str) -> None:
        """Open the editor on a case (used by results views: "edit this case")."""
        self._open_editor(case_id)

    def _open_editor(self, case_id: str | None) -> None:
        from nlu_tui.ui.reuse import keep, spare
        from nlu_tui.ui.screens.case_editor import CaseEditorScreen

        suite = self._editable()
        if suite is None:
            return
        case = self.case_by_id(case_id) if case_id else None

        def done(result: list[TestCase] | None) -> None:
            if not result:
                return
            cases = list(suite.cases)
            if case is None:
                cases.extend(result)
                what = f"Added {counted(len(result), 'case')}"
            else:
                index = next(i for i, c in enumerate(cases) if c.id == case.id)
                cases[index : index + 1] = result
                what = "Edited a case"
            self.apply_change(what, cases, cursor=result[0].id)

        engine = workbench(self).engine_intents
        editor = spare(self.app, CaseEditorScreen)
        if editor is None:
            editor = CaseEditorScreen(suite, case, self._training_intents(), engine)
            keep(self.app, editor)
        else:
            editor.refill(suite, case, self._training_intents(), engine)
        self.app.push_screen(editor, done)

    def action_generate(self) -> None:
        """The "Generate…" dialog; the accepted cases are appended and saved like an add."""
        from nlu_tui.ui.reuse import keep, spare
        from nlu_tui.ui.screens.generate_dialog import GenerateScreen

        suite = self._editable()
        if suite is None:
            return
        intents = list(dict.fromkeys([*self._training_intents(), *suite.intents_covered()]))
        current = self.case_by_id(self.cursor_case_id() or "") if self.cursor_case_id() else None
        intent = current.intents[0].name if current is not None and current.intents else None

        def done(result: list[TestCase] | None) -> None:
            if result:
                what = f"Added {counted(len(result), 'generated case')}"
                self.apply_change(what, [*suite.cases, *result], cursor=result[0].id)

        dialog = spare(self.app, GenerateScreen)
        if dialog is None:
            dialog = GenerateScreen(suite, intents, intent)
            keep(self.app, dialog)
        else:
            dialog.refill(suite, intents, intent)
        self.app.push_screen(dialog, done)

    def _training_intents(self) -> list[str]:
        return workbench(self).training_intents

    def action_tag(self) -> None:
        from nlu_tui.ui.screens.dialogs import PromptScreen

        suite = self._editable()
        ids = self.target_ids()
        if suite is None or not ids:
            return

        def tagged(text: str | None) -> None:
            tags = split_list(text or "")
            if not tags:
                return
            wanted = set(ids)
            cases = [
                replace(c, tags=c.tags + [t for t in tags if t not in c.tags])
                if c.id in wanted
                else c
                for c in suite.cases
            ]
            self.apply_change(f"Tagged {counted(len(ids), 'case')}", cases)

        self.app.push_screen(
            PromptScreen(
                f"Add tags to {len(ids)} case(s)",
                "tags, separated by commas",
                suggestions=known_tags(suite),
            ),
            tagged,
        )

    def action_delete(self) -> None:
        from nlu_tui.ui.screens.dialogs import ConfirmDialog

        suite = self._editable()
        ids = self.target_ids()
        if suite is None or not ids:
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                gone = set(ids)
                self.selected -= gone
                cases = [c for c in suite.cases if c.id not in gone]
                self.apply_change(f"Deleted {counted(len(gone), 'case')}", cases)

        self.app.push_screen(
            ConfirmDialog(f"Delete {len(ids)} case(s)? Undo with z or Ctrl+Z."), confirmed
        )

    def action_move(self) -> None:
        from nlu_tui.ui.screens.dialogs import PickSuiteScreen

        suite = self._editable()
        ids = self.target_ids()
        if suite is None or not ids:
            return
        others = [p for p in self.workspace.suite_paths() if p != suite.path]
        if not others:
            self.notify("There is no other suite to move to.", severity="warning")
            return

        def picked(target: Path | None) -> None:
            if target is not None:
                self._move_to(suite, ids, target)

        self.app.push_screen(PickSuiteScreen(f"Move {len(ids)} case(s) to…", others), picked)

    @work(
        thread=True,
        group="cases-save",
        exit_on_error=False,
        name="cases-move",
        description="Moving cases",
    )
    def _move_to(self, suite: Suite, ids: list[str], target: Path) -> None:
        wanted = set(ids)
        moving = [c for c in suite.cases if c.id in wanted]
        try:
            self.workspace.append_cases(target, moving)
        except Exception as exc:
            self.app.call_from_thread(
                self.notify, escape(str(exc)), title="Cannot move", severity="error"
            )
            return
        remaining = [c for c in suite.cases if c.id not in wanted]

        def finish() -> None:
            self.selected -= wanted
            self.apply_change(f"Moved {counted(len(moving), 'case')} to {target.name}", remaining)

        self.app.call_from_thread(finish)

    def action_undo(self) -> None:
        suite = self._editable()
        if suite is None:
            return
        if not self.undo_stack:
            self.notify("Nothing to undo.", severity="warning")
            return
        what, cases = self.undo_stack.pop()
        self._set_cases(suite, cases)
        self._save(suite, f"Undone: {what}")

    def apply_change(self, what: str, cases: list[TestCase], cursor: str | None = None) -> None:
        """Replace the suite's cases (keeping the old list for undo) and save the file."""
        suite = self.suite
        if suite is None:
            return
        self.undo_stack.append((what, suite.cases))
        del self.undo_stack[:-UNDO_DEPTH]
        self._set_cases(suite, cases, cursor)
        self._save(suite, what)

    def _set_cases(self, suite: Suite, cases: list[TestCase], cursor: str | None = None) -> None:
        suite.cases = cases
        self.cases_changed(cursor)

    @work(
        thread=True,
        group="cases-save",
        exit_on_error=False,
        name="cases-save",
        description="Saving the suite",
    )
    def _save(self, suite: Suite, what: str) -> None:
        describe(f"Saving {suite_label(suite)}")
        notes: list[str] = []
        with self._save_lock:
            try:
                self.workspace.save(suite, notes=notes)
            except ConflictError as exc:
                self.app.call_from_thread(self._conflict, suite, str(exc))
                return
            except Exception as exc:
                self.app.call_from_thread(self._save_failed, suite, exc)
                return
            if self.workspace.unsaved():  # the disk has room again: retry the others too
                self.workspace.save_unsaved()
        self.app.call_from_thread(self._saved, suite, what, notes)

    def _saved(self, suite: Suite, what: str, notes: list[str] | None = None) -> None:
        from nlu_tui.textsafe import inert_markup

        text = f"{what}. Saved {suite.path.name if suite.path else ''}"
        text += "".join(f"\n⚠ {note}" for note in notes or [])
        self.notify(inert_markup(text), timeout=6 if notes else 3)
        self.post_message(SuiteChanged(suite))
        workbench(self).refresh_unsaved()

    def _save_failed(self, suite: Suite, exc: Exception) -> None:
        """The edit stays on screen and in memory, marked unsaved; say how it gets saved."""
        from nlu_tui.textsafe import inert_markup

        pending = self.workspace.unsaved_suite(suite.path) if suite.path else None
        reason = next((p.error for p in self.workspace.unsaved() if p.suite is suite), str(exc))
        kept = (
            "\nYour edit is kept but NOT saved: it is saved with your next edit or Ctrl+S "
            "(palette: Save again), and quitting asks first."
            if pending is suite
            else ""
        )
        self.notify(inert_markup(reason + kept), title="Cannot save", severity="error", timeout=10)
        self.post_message(SuiteChanged(suite))
        workbench(self).refresh_unsaved()

    def _conflict(self, suite: Suite, reason: str) -> None:
        from nlu_tui.ui.screens.dialogs import ConflictScreen

        def decided(choice: tuple[str, str] | None) -> None:
            if choice is None or choice[0] == "reload":
                if suite.path is not None:  # the user chose the file's version over the edit
                    self.workspace.discard_unsaved(suite.path)
                    workbench(self).refresh_unsaved()
                self._reload(suite)
            elif choice[0] == "save-as":
                self._save_as(suite, choice[1])

        self.app.push_screen(ConflictScreen(suite, reason), decided)

    def _reload(self, suite: Suite) -> None:
        if suite.path is not None:
            from nlu_tui.ui.messages import SuiteHighlighted

            self.undo_stack.clear()
            self.suite = None
            self.post_message(SuiteHighlighted(suite.path))

    @work(
        thread=True,
        group="cases-save",
        exit_on_error=False,
        name="cases-save-as",
        description="Saving the suite under a new name",
    )
    def _save_as(self, suite: Suite, name: str) -> None:
        from nlu_tui.ui.messages import WorkspaceChanged

        try:
            path = self.workspace.create(name, suite.description, suite.cases)
        except Exception as exc:
            self.app.call_from_thread(
                self.notify, escape(str(exc)), title="Cannot save", severity="error"
            )
            return
        if suite.path is not None:  # the edit is safe in the new suite
            self.workspace.discard_unsaved(suite.path)
        self.app.call_from_thread(self.notify, escape(f"Saved as {path.name}"))
        self.app.call_from_thread(self.post_message, WorkspaceChanged(select=path))


def suite_label(suite: Suite) -> str:
    """How a worker's notice names the suite: its file, else its title."""
    return suite.path.name if suite.path is not None else suite.name
