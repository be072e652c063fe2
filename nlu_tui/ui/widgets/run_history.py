"""The runs history table: one row per stored run of the open suite, sortable, with marks.

:class:`RunHistory` fills the table (id ``runs-table``) with what the Runs pane gives it; the
pane loads the runs, keeps the marks and the sort, and hears the table's own ``DataTable``
messages (a highlighted row, a clicked header, Enter on a row).
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from nlu_tui.model import RunStatus
from nlu_tui.textsafe import inert
from nlu_tui.ui.widgets.run_progress import short_engine
from nlu_tui.views.summary_text import STATUS_LABEL, duration, num, pct, status_text

HISTORY_COLUMNS = [
    ("mark", " "),
    ("started", "Started"),
    ("status", "Status"),
    ("f1", "F1"),
    ("engine", "Engine"),
    ("stage", "Version"),
    ("user", "User"),
    ("host", "Host"),
    ("precision", "Precision"),
    ("recall", "Recall"),
    ("intent", "Intent %"),
    ("entity", "Entity %"),
    ("tp", "TP"),
    ("tn", "TN"),
    ("fp", "FP"),
    ("fn", "FN"),
    ("errors", "Err"),
    ("duration", "Duration"),
    ("note", "Note"),
]


@dataclass
class HistoryRow:
    """One run in the history table, with raw values for sorting."""

    record: Any
    f1: float | None
    precision: float | None
    recall: float | None
    intent: float | None
    """None when the run measured nothing (it failed, or scored no case): shown as ``-``."""
    entity: float | None

    def value(self, key: str) -> Any:
        r = self.record
        simple = {
            "started": r.started_at,
            "engine": r.engine_name,
            "stage": r.stage,
            "user": r.started_by or "",
            "host": r.started_on or "",
            "status": STATUS_LABEL[RunStatus(r.status)],
            "f1": -1.0 if self.f1 is None else self.f1,
            "precision": -1.0 if self.precision is None else self.precision,
            "recall": -1.0 if self.recall is None else self.recall,
            "intent": -1.0 if self.intent is None else self.intent,
            "entity": -1.0 if self.entity is None else self.entity,
            "tp": r.tp,
            "tn": r.tn,
            "fp": r.fp,
            "fn": r.fn,
            "errors": r.errors,
            "duration": r.duration_s or 0.0,
            "note": r.note,
        }
        return simple.get(key, "")


def history_row(record: Any, entity: float | None = None) -> HistoryRow:
    """Figures of a stored run from its exact counters, by the scoring core's definitions."""
    if record.scored_f1 is None:  # a failed run is listed with "-", never an F1 of 0.000
        return HistoryRow(record, None, None, None, None, entity)
    counts = record.counts()
    return HistoryRow(
        record, counts.f1, counts.precision, counts.recall, counts.intent_success, entity
    )


class RunHistory:
    """Fills the Runs pane's history table (a plain ``DataTable``, id ``runs-table``).

    Not a ``DataTable`` subclass on purpose: a subclass registers Textual's DataTable styles at a
    lower priority, and then textual-fastdatatable's same-named ones win on every other
    DataTable of the app (the Evaluate screen's headers changed colour)."""

    def __init__(self, table: DataTable[Any]) -> None:
        self.table = table

    def add_columns(self) -> None:
        for key, label in HISTORY_COLUMNS:
            self.table.add_column(label, key=key)

    def show(
        self,
        history: Sequence[HistoryRow],
        sort_key: tuple[str, bool],
        marked: Collection[str],
        entity_known: Collection[str],
    ) -> None:
        """Refill the table, keeping the selected run selected; ``entity_known``: the runs
        whose entity rate is computed (the others show "…")."""
        table = self.table
        selected = self.selected_run_id()
        key, descending = sort_key
        rows = sorted(
            history, key=lambda r: (r.value(key), r.record.started_at), reverse=descending
        )
        table.clear()
        for row in rows:
            r = row.record
            started = datetime.fromtimestamp(r.started_at).strftime("%Y-%m-%d %H:%M:%S")
            note = r.note.splitlines()[0] if r.note else ""
            cells: dict[str, Any] = {
                "mark": "✓" if r.id in marked else " ",
                "started": started,
                "engine": Text(inert(short_engine(r.engine_name), newlines=False)),
                "stage": r.stage,
                "user": Text(inert(r.started_by or "-", newlines=False)),
                "host": Text(inert(r.started_on or "-", newlines=False)),
                "status": status_text(r.status),
                "f1": num(row.f1),
                "precision": num(row.precision),
                "recall": num(row.recall),
                "intent": pct(row.intent),
                "entity": pct(row.entity) if r.id in entity_known else "…",
                "tp": str(r.tp),
                "tn": str(r.tn),
                "fp": str(r.fp),
                "fn": str(r.fn),
                "errors": str(r.errors),
                "duration": duration(r.duration_s),
                "note": Text(inert(note[:60], newlines=False)),
            }
            # in HISTORY_COLUMNS order (what a tester needs first: started, status, F1)
            table.add_row(*[cells[k] for k, _ in HISTORY_COLUMNS], key=r.id)
        if selected is not None:
            with contextlib.suppress(Exception):
                table.move_cursor(row=table.get_row_index(selected))

    def selected_run_id(self) -> str | None:
        table = self.table
        if table.row_count == 0:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:
            return None
        return str(key.value) if key.value is not None else None


def reason_text(record: Any) -> Text:
    """Under the table: a run's status reason (the "hover" of Kore.ai's icon) and note."""
    text = Text()
    if record is None:
        return text
    text.append_text(status_text(record.status))
    text.append(f"  run {record.id}")
    from nlu_tui.evaluation.text import stored_title

    evaluation = stored_title(record)
    if evaluation is not None:  # which `test nlu` made it: folds, split, comparison
        text.append(" · " + inert(evaluation, newlines=False))
    if record.reason:
        style = "red" if record.status is RunStatus.FAILED else "dark_orange"
        text.append(" · reason: ", style="bold")
        text.append(inert(record.reason), style=style)
    if record.note:
        text.append("\nNote: ", style="bold")
        text.append(inert(record.note))
    return text
