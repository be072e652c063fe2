"""The suites panel: the workspace's suites with counts and the last run, and suite actions.

File work (listing, create, rename, duplicate, delete, import, export) runs in thread workers
through :mod:`nlu_tui.workspace`; this widget only shows results and asks the questions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Group
from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from nlu_tui.model import RunStatus, Suite
from nlu_tui.textsafe import inert
from nlu_tui.ui.commands import PaletteCommand
from nlu_tui.ui.messages import SuiteHighlighted, WorkspaceChanged
from nlu_tui.ui.state import workbench
from nlu_tui.ui.widgets.store_watch import runs_changed
from nlu_tui.ui.workers import ReportsFailedWorkers
from nlu_tui.views.counts import counted
from nlu_tui.views.summary_text import STATUS_ICON
from nlu_tui.views.trend_text import sparkline
from nlu_tui.workspace import DEVELOPER_SUITE_PREFIX, LastRuns, SuiteInfo, Workspace

CONVERSATION_MARK = "⇄"
"""Before a conversation suite's name (E2E test cases, run in the conversation tests screen)."""


def shown_name(info: SuiteInfo) -> str:
    """The name the panel shows: a training file's suite of developer defined utterances
    leads with its file's name, which a narrow panel would otherwise cut off (every such
    suite then read "Developer defined utter…")."""
    prefix = f"{DEVELOPER_SUITE_PREFIX} ("
    if info.read_only and info.name.startswith(prefix) and info.name.endswith(")"):
        return f"{info.name[len(prefix) : -1]}: developer defined utterances"
    return info.name


def suite_prompt(info: SuiteInfo, spark: list[float] | None = None) -> Group:
    """The two lines shown for a suite; built from Text pieces so names show literally.

    ``spark``: the F1 of its last runs, oldest first (:func:`nlu_tui.trends.f1_by_suite`),
    drawn after the last run's F1 as a sparkline of 2 or more runs.

    Each line is its own ``Text`` with ``no_wrap``/ellipsis inside a Rich ``Group``: Rich then
    cuts a long name with "…" at the panel's width instead of wrapping it onto a third line.
    """
    name = Text(no_wrap=True, overflow="ellipsis")
    if info.unsaved:  # first, so that a narrow panel never cuts it off
        name.append("● ", style="bold dark_orange")
    if info.kind == "e2e":  # a conversation suite's mark, before its name
        name.append(f"{CONVERSATION_MARK} ", style="bold cyan")
    name.append(inert(shown_name(info), newlines=False), style="bold")
    if info.unsaved:
        name.append(" (not saved)", style="bold dark_orange")
    if info.read_only:
        name.append(" (read-only)", style="italic")
    detail = Text(no_wrap=True, overflow="ellipsis")
    if info.error:
        detail.append("  ⚠ cannot read", style="red")
        return Group(name, detail)
    detail.append("  ")
    if info.kind == "e2e":  # a conversation suite: Enter opens the conversation tests
        return Group(name, _conversation_detail(info, detail))
    if info.last_status:
        # the last run first: in a narrow panel the intents count is what gets cut
        detail.append_text(last_run_text(info))
        if spark is not None and len(spark) >= 2:
            detail.append(" " + sparkline(spark, low=0.0, high=1.0), style="cyan")
        detail.append(" · ", style="dim")
    intents = "intents when opened" if info.partial else counted(len(info.intents), "intent")
    detail.append(f"{counted(info.case_count, 'case')} · {intents}", style="dim")
    return Group(name, detail)


def _conversation_detail(info: SuiteInfo, detail: Text) -> Text:
    """A conversation suite's line: its latest run ("✔ 3/7 passed", or "partial 2/7"), else
    its test cases counted; then "e2e"."""
    if info.last_status:
        detail.append_text(last_run_text(info))
        if info.last_partial is None and info.last_passed is not None:
            passed, total = info.last_passed
            detail.append(f" {passed}/{total} passed", style="green" if passed == total else "red")
        detail.append(" · e2e", style="dim")
        return detail
    detail.append(f"{info.case_count} test cases · e2e", style="dim")
    return detail


def last_run_text(info: SuiteInfo) -> Text:
    """The latest run's icon (the README's legend, as in the run history), "partial 40/54" when
    it did not complete, then the F1 of the last complete run: a partial run never stands in
    for the suite's score."""
    try:
        icon, style = STATUS_ICON[RunStatus(info.last_status or "")]
    except ValueError:
        icon, style = "?", ""
    text = Text(icon, style=style)
    if info.last_partial is not None:
        done, total = info.last_partial
        text.append(f" partial {done}/{total}", style=style)
    if info.last_f1 is not None:
        text.append(f" F1 {info.last_f1:.2f}")
    return text


class SuitesPanel(ReportsFailedWorkers, Vertical):
    BINDINGS = [
        Binding("n,insert", "new", "New", id="suites.new", tooltip="Create an empty suite."),
        Binding(
            "e",
            "rename",
            "Rename",
            show=False,
            id="suites.rename",
            tooltip="Rename the selected suite.",
        ),
        Binding(
            "c",
            "duplicate",
            "Copy",
            show=False,
            id="suites.duplicate",
            tooltip="Duplicate the selected suite.",
        ),
        Binding(
            "delete,d",
            "delete",
            "Delete",
            id="suites.delete",
            tooltip="Move the selected suite to the workspace trash (undo with u).",
        ),
        Binding(
            "u",
            "undo_delete",
            "Undo delete",
            show=False,
            id="suites.undo-delete",
            tooltip="Bring back the suite deleted last.",
        ),
        Binding(
            "i",
            "import",
            "Import",
            id="suites.import",
            tooltip="Import a file of any supported format as a new suite.",
        ),
        Binding(
            "x",
            "export",
            "Export",
            show=False,
            id="suites.export",
            tooltip="Export the selected suite to another format.",
        ),
    ]

    class CasesWanted(Message):
        """Enter on a suite: the user wants its cases (the main screen focuses the table)."""

    def __init__(self) -> None:
        super().__init__(id="suites")
        self.infos: dict[str, SuiteInfo] = {}
        self.trashed: list[Path] = []
        self.sparks: dict[str, list[float]] = {}
        """Per suite file, the F1 of its last runs (the sparklines), oldest first."""
        self._watching = False
        self._runs_loading = False
        self._runs_again = False
        self._first_listing = True
        """The first listing shows the suites without what the first screen can do without
        (:meth:`_list_suites`); the rest follows :meth:`first_screen_shown`."""
        self._rest_left: list[Path] = []
        """Training files the first listing left out, listed once the first screen is up."""
        self._first_screen_up = False

    @property
    def listed(self) -> bool:
        """Whether the workspace's suites have been listed once."""
        return self._watching

    @property
    def workspace(self) -> Workspace:
        return workbench(self).workspace

    def compose(self) -> ComposeResult:
        yield OptionList(id="suite-list", markup=False)

    def on_mount(self) -> None:
        self.border_title = "Suites"

    def focus_list(self) -> None:
        self.query_one(OptionList).focus()

    @property
    def selected_path(self) -> Path | None:
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is None:
            return None
        option_id = options.get_option_at_index(index).id
        return Path(option_id) if option_id else None

    # --- listing ------------------------------------------------------------------------------

    def reload(self, select: Path | None = None) -> None:
        self._list_suites(select)

    @work(
        thread=True,
        exclusive=True,
        group="suites-list",
        exit_on_error=False,
        name="suites-list",
        description="Listing the suites of the workspace",
    )
    def _list_suites(self, select: Path | None) -> None:
        workspace = self.workspace
        if self._first_listing:
            # the workbench's first screen: the suites (each read: its name and counts) come
            # first, the open suite's first cases right behind them; the developer utterances
            # of the training files (each a parse of its training data) and the last runs (the
            # run store) wait until that screen is up. Unless a training file is what opens.
            self._first_listing = False
            first = [*workspace.suite_paths(), *workspace.conversation_paths()]
            training = workspace.training_paths()
            if first and (select is None or select not in training):
                infos = [workspace.info(path) for path in first]
                self._rest_left = training
                self.app.call_from_thread(self._show, infos, select)
                return
        infos = workspace.list_suites()
        self.app.call_from_thread(self._show, infos, select)

    def first_screen_shown(self) -> None:
        """The first full screen is up (or a second has passed): list the training files the
        first listing left out, then read the suites' last runs."""
        if self._first_screen_up:
            return
        self._first_screen_up = True
        if self._watching:  # else when the first listing is shown
            self._after_first_screen()

    def _after_first_screen(self) -> None:
        rest, self._rest_left = self._rest_left, []
        if rest:
            self._list_rest(rest)  # then the runs
        else:
            self._load_runs()

    @work(
        thread=True,
        group="suites-rest",
        exit_on_error=False,
        name="suites-rest",
        description="Listing the training files of the workspace",
    )
    def _list_rest(self, paths: list[Path]) -> None:
        infos = [self.workspace.info(path) for path in paths]
        self.app.call_from_thread(self._add_rest, infos)

    def _add_rest(self, infos: list[SuiteInfo]) -> None:
        """Add the entries the first listing left out, after the others (as a full listing
        orders them), unless a listing since has them; then the last runs of every entry."""
        options = self.query_one(OptionList)
        added = [info for info in infos if str(info.path) not in self.infos]
        for info in added:
            self.infos[str(info.path)] = info
        options.add_options([Option(self._prompt(i), id=str(i.path)) for i in added])
        self.border_title = f"Suites ({len(self.infos)})"
        self._load_runs()

    def _show(self, infos: list[SuiteInfo], select: Path | None) -> None:
        options = self.query_one(OptionList)
        previous = select or self.selected_path
        self.infos = {str(i.path): i for i in infos}
        options.clear_options()
        options.add_options([Option(self._prompt(i), id=str(i.path)) for i in infos])
        if not self._watching:  # after the first paint: it needs no store
            self._watching = True
            runs_changed(self).subscribe(self, self._runs_changed)
        if self._first_screen_up:  # else once the first screen is up (first_screen_shown)
            self._after_first_screen()  # the last runs and sparklines (after a run too)
        self.border_title = f"Suites ({len(infos)})"
        if not infos:
            return
        index = 0
        if previous is not None:
            for n, info in enumerate(infos):
                if info.path == previous:
                    index = n
        if options.highlighted == index:
            self.post_message(SuiteHighlighted(infos[index].path))
        options.highlighted = index

    def refresh_suite(self, suite: Suite) -> None:
        """Update one entry's counts after an edit, without listing the folder again."""
        if suite.path is None or str(suite.path) not in self.infos:
            return
        info = self.infos[str(suite.path)]
        info.name = suite.name
        info.case_count = len(suite.cases)
        info.intents = suite.intents_covered()
        info.partial = False
        info.unsaved = self.workspace.is_unsaved(suite.path)
        options = self.query_one(OptionList)
        options.replace_option_prompt(str(suite.path), self._prompt(info))

    def refresh_unsaved(self) -> None:
        """Mark the suites whose edits could not be saved (and unmark those saved since)."""
        options = self.query_one(OptionList)
        for key, info in self.infos.items():
            unsaved = self.workspace.is_unsaved(Path(key))
            if unsaved != info.unsaved:
                info.unsaved = unsaved
                options.replace_option_prompt(key, self._prompt(info))

    def _prompt(self, info: SuiteInfo) -> Group:
        return suite_prompt(info, self.sparks.get(str(info.path)))

    # --- runs of other writers ----------------------------------------------------------------

    def _runs_changed(self, _counter: int) -> None:
        """Another writer added, ended or removed a run: the suites' lines."""
        self._load_runs()

    def _load_runs(self) -> None:
        """Read the suites' last runs and sparklines again: one read at a time, and one more
        after it when asked meanwhile (never a canceled worker: a newer read waits)."""
        if self._runs_loading:
            self._runs_again = True
            return
        self._runs_loading = True
        self._read_runs()

    @work(
        thread=True,
        group="suites-runs",
        exit_on_error=False,
        name="suites-runs",
        description="Reading the suites' last runs",
    )
    def _read_runs(self) -> None:
        try:
            from nlu_tui.store_location import configured

            where = configured()
            if where.path is not None and not where.path.exists():
                return  # no store yet: no runs, and none is created for asking
            from nlu_tui.errors import NluTuiError
            from nlu_tui.runsessions import store_for
            from nlu_tui.trends import f1_by_suite
            from nlu_tui.workspace import last_runs_by_suite

            try:
                sparks = f1_by_suite(store_for(self.app))
            except NluTuiError:  # a damaged store: the panel shows no runs; a run says why
                return
            self.app.call_from_thread(self._apply_runs, last_runs_by_suite(), sparks)
        finally:
            self.app.call_from_thread(self._runs_read)

    def _runs_read(self) -> None:
        self._runs_loading = False
        if self._runs_again:
            self._runs_again = False
            self._load_runs()

    def _apply_runs(self, runs: dict[str, LastRuns], sparks: dict[str, list[float]]) -> None:
        """Redraw the lines whose last run or sparkline changed (the list stays as it is: the
        open suite is not opened again)."""
        options = self.query_one(OptionList)
        old_sparks, self.sparks = self.sparks, sparks
        for key, info in self.infos.items():
            last = runs.get(key, LastRuns())
            fields = (last.status, last.f1, last.partial, last.passed)
            before = (info.last_status, info.last_f1, info.last_partial, info.last_passed)
            if fields == before and old_sparks.get(key) == sparks.get(key):
                continue
            if info.error:
                continue
            if info.kind == "e2e":
                info.last_status, info.last_partial = last.status, last.partial
                info.last_passed = last.passed
            else:
                info.last_status, info.last_f1, info.last_partial = (
                    last.status,
                    last.f1,
                    last.partial,
                )
            options.replace_option_prompt(key, self._prompt(info))

    @on(OptionList.OptionHighlighted, "#suite-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self.post_message(SuiteHighlighted(Path(event.option.id)))

    @on(OptionList.OptionSelected, "#suite-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        info = self.infos.get(event.option.id or "")
        if info is not None and info.kind == "e2e":
            self.open_conversation(info.path)
            return
        self.post_message(self.CasesWanted())

    def open_conversation(self, path: Path, *, ask_engine: bool = False) -> None:
        """A conversation suite opens in the conversation tests screen (``ask_engine``: on its
        engine field, Enter runs); back here, its entry shows the latest run."""
        from nlu_tui.ui.screens.conversation_tests import ConversationScreen

        def back(_: None) -> None:
            self.reload(select=path)

        self.app.push_screen(ConversationScreen([path], ask_engine=ask_engine), back)

    # --- actions --------------------------------------------------------------------------------

    def _need_selection(self) -> Path | None:
        path = self.selected_path
        if path is None:
            self.notify("Select a suite first.", severity="warning")
        return path

    def action_new(self) -> None:
        from nlu_tui.ui.screens.dialogs import SuiteFormScreen

        def created(result: tuple[str, str] | None) -> None:
            if result:
                self._run_file_op("create", result[0], result[1])

        self.app.push_screen(SuiteFormScreen("New suite"), created)

    def action_rename(self) -> None:
        from nlu_tui.ui.screens.dialogs import SuiteFormScreen

        path = self._need_selection()
        if path is None:
            return
        info = self.infos.get(str(path))

        def renamed(result: tuple[str, str] | None) -> None:
            if result:
                self._run_file_op("rename", path, result[0])

        self.app.push_screen(
            SuiteFormScreen("Rename suite", name=info.name if info else "", with_description=False),
            renamed,
        )

    def action_duplicate(self) -> None:
        path = self._need_selection()
        if path is not None:
            self._run_file_op("duplicate", path)

    def action_delete(self) -> None:
        from nlu_tui.ui.screens.dialogs import ConfirmDialog

        path = self._need_selection()
        if path is None:
            return
        info = self.infos.get(str(path))
        name = info.name if info else path.name

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._run_file_op("delete", path)

        self.app.push_screen(
            ConfirmDialog(f"Delete suite {name!r}? It goes to the workspace trash."), confirmed
        )

    def action_undo_delete(self) -> None:
        if not self.trashed:
            self.notify("Nothing to undo.", severity="warning")
            return
        self._run_file_op("restore", self.trashed.pop())

    def action_import(self) -> None:
        from nlu_tui.ui.screens.import_dialog import ImportScreen

        def imported(path: Path | None) -> None:
            if path is not None:
                self.notify(escape(f"Imported as {path.name}"))
                self.post_message(WorkspaceChanged(select=path))
                self._plan_first_runs(path)

        self.app.push_screen(ImportScreen(), imported)

    @work(
        thread=True,
        group="first-runs",
        exit_on_error=False,
        name="first-runs",
        description="Planning the first runs",
    )
    def _plan_first_runs(self, path: Path) -> None:
        """A new suite runs at once against both versions of the engine configured for it
        (``nlu_tui.first_runs``), as Kore.ai starts a new test suite's runs."""
        from nlu_tui.first_runs import plan_first_runs

        plan = plan_first_runs(path, self.workspace.root)
        if not plan:
            if "no engine profile" not in plan.reason:  # nothing configured: nothing to say
                self.app.call_from_thread(self.notify, escape(plan.reason), severity="warning")
            return
        try:
            suite = self.workspace.load(path)
        except Exception as exc:
            self.app.call_from_thread(self.notify, escape(str(exc)), severity="error")
            return
        if suite.cases:
            self.app.call_from_thread(self._start_first_runs, suite, plan)

    def _start_first_runs(self, suite: Suite, plan: Any) -> None:
        from nlu_tui.first_runs import NOTE
        from nlu_tui.ui.widgets.runs_pane import RunsPane

        ensure = getattr(self.screen, "ensure_extra_panes", None)
        if ensure is not None:
            ensure()
        panes = self.screen.query(RunsPane)
        if not panes:
            self.notify("The Runs pane is not there: no first runs.", severity="warning")
            return
        self.notify(escape(f"First runs of {suite.name}: {plan.reason}"), timeout=6)
        runs = [(engine, stage, NOTE) for engine in plan.engines for stage in plan.stages]
        panes.first().start_runs_in_order(suite, runs)

    def action_coverage(self) -> None:
        """Open the coverage and health view of the selected suite."""
        if self.selected_path is None:
            return
        from nlu_tui.ui.screens.coverage import CoverageScreen

        self.app.push_screen(CoverageScreen(Path(self.selected_path)))

    def action_export(self) -> None:
        from nlu_tui.ui.screens.dialogs import ExportScreen

        path = self._need_selection()
        if path is None:
            return

        def chosen(result: tuple[Path, str] | None) -> None:
            if result:
                self._run_file_op("export", path, result[0], result[1])

        self.app.push_screen(ExportScreen(path), chosen)

    @work(
        thread=True,
        group="suite-ops",
        exit_on_error=False,
        name="suite-ops",
        description="Changing a suite file",
    )
    def _run_file_op(self, op: str, *args: object) -> None:
        ws = self.workspace
        try:
            if op == "create":
                target = ws.create(str(args[0]), str(args[1]))
                message = f"Created {target.name}"
            elif op == "rename":
                target = ws.rename(Path(str(args[0])), str(args[1]))
                message = f"Renamed to {target.name}"
            elif op == "duplicate":
                target = ws.duplicate(Path(str(args[0])))
                message = f"Duplicated as {target.name}"
            elif op == "delete":
                trashed = ws.delete(Path(str(args[0])))
                self.trashed.append(trashed)
                target = None
                message = f"Deleted {Path(str(args[0])).name}. Press u to undo."
            elif op == "restore":
                target = ws.restore(Path(str(args[0])))
                message = f"Restored {target.name}"
            elif op == "export":
                warnings = ws.export(Path(str(args[0])), Path(str(args[1])), str(args[2]))
                message = f"Exported to {args[1]}" + "".join(f"\n⚠ {w}" for w in warnings)
                self.app.call_from_thread(self.notify, escape(message))
                return
            else:  # pragma: no cover - programming error
                raise ValueError(op)
        except Exception as exc:
            self.app.call_from_thread(
                self.notify, escape(str(exc)), title=f"Cannot {op}", severity="error"
            )
            return
        self.app.call_from_thread(self.notify, escape(message))
        self.app.call_from_thread(self.post_message, WorkspaceChanged(select=target))

    def palette_commands(self) -> list[PaletteCommand]:
        commands = [
            PaletteCommand("suite: New", self.action_new, "Create an empty suite"),
            PaletteCommand("suite: Import", self.action_import, "Import a file as a new suite"),
        ]
        if self.selected_path is not None:
            commands += [
                PaletteCommand("suite: Rename", self.action_rename, "Rename the selected suite"),
                PaletteCommand(
                    "suite: Duplicate", self.action_duplicate, "Copy the selected suite"
                ),
                PaletteCommand("suite: Delete", self.action_delete, "Move it to the trash"),
                PaletteCommand("suite: Export", self.action_export, "Write it in another format"),
                PaletteCommand(
                    "suite: Coverage and health",
                    self.action_coverage,
                    "Intents never or rarely tested, leakage, training recommendations",
                ),
            ]
        if self.trashed:
            commands.append(
                PaletteCommand("suite: Undo delete", self.action_undo_delete, "Restore it")
            )
        return commands
