"""The Results pane's "Per intent" tab: precision, recall and F1 per intent (sortable by a
click on a header), and the results per intent type under it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import DataTable, TabPane

from nlu_tui.reports.run_data import RunData
from nlu_tui.scoring.intent_report import NO_INTENT_LABEL, shown_label
from nlu_tui.textsafe import inert
from nlu_tui.views.result_columns import sorted_label
from nlu_tui.views.summary_text import num, pct

INTENT_COLUMNS = [
    ("intent", "Intent"),
    ("precision", "Precision"),
    ("recall", "Recall"),
    ("f1", "F1"),
    ("support", "Support"),
    ("tp", "TP"),
    ("fp", "FP"),
    ("fn", "FN"),
    ("confused", "Confused with"),
]
TYPE_COLUMNS = [
    ("type", "Intent type"),
    ("cases", "Cases"),
    ("precision", "Precision"),
    ("recall", "Recall"),
    ("f1", "F1"),
    ("tp", "TP"),
    ("tn", "TN"),
    ("fp", "FP"),
    ("fn", "FN"),
    ("errors", "Errors"),
]
"""The results per intent type under the per-intent table (Kore.ai's Dialog / FAQ / Small Talk
/ Trait figures)."""
ROBUSTNESS_COLUMNS = [
    ("intent", "Intent"),
    ("support", "Support"),
    ("clean_f1", "Clean F1"),
    ("perturbed_f1", "Perturbed F1"),
    ("delta", "Δ F1"),
    ("broke", "Broke"),
    ("fixed", "Fixed"),
]
"""The robustness table (a run of a perturbed suite, or of its original): per intent, worst
first; its first row is the whole run (summary F1)."""
STABILITY_INTENT_COLUMN = ("stability", "Stable")
"""A repeated run's per-intent stability (share of its cases not flaky), before Confused with."""


class IntentsTab(TabPane):
    """The per-intent table (id ``results-intents``) and the per-type one (``results-types``)."""

    def __init__(self) -> None:
        super().__init__("Per intent", id="tab-res-intents")
        self.data: RunData | None = None
        self._intent_sort: tuple[str, bool] = ("f1", False)

    def compose(self) -> ComposeResult:
        yield DataTable(id="results-intents", cursor_type="row", zebra_stripes=True)
        yield DataTable(id="results-types", cursor_type="row", zebra_stripes=True)
        yield DataTable(id="results-robustness", cursor_type="row", zebra_stripes=True)

    def show(self, data: RunData | None) -> None:
        self.data = data
        self._fill_intents()
        self._fill_types()
        self._fill_robustness()

    def _fill_robustness(self) -> None:
        """F1 clean vs perturbed per intent and the cases that flipped; hidden for a run that
        is not one of such a pair."""
        table = self.query_one("#results-robustness", DataTable)
        table.clear(columns=True)
        report = self.data.robustness if self.data is not None else None
        table.display = report is not None
        if report is None:
            return
        for col, label in ROBUSTNESS_COLUMNS:
            table.add_column(label, key=col)
        table.add_row(
            Text(f"(run {report.perturbed_run} vs {report.clean_run})"),
            str(report.pairs),
            num(report.clean_f1),
            num(report.perturbed_f1),
            f"{report.delta:+.4f}",
            str(len(report.broke)),
            str(len(report.fixed)),
            key="(run)",
        )
        for d in report.intents:
            table.add_row(
                Text(inert(d.intent, newlines=False)),
                str(d.support),
                num(d.clean_f1),
                num(d.perturbed_f1),
                f"{d.delta:+.4f}",
                str(d.broke),
                str(d.fixed),
                key=d.intent,
            )

    def _intent_rows(self) -> list[dict[str, Any]]:
        assert self.data is not None
        report = self.data.report
        groups = {}
        if self.data.stability is not None:
            from nlu_tui.scoring.intent_report import none_label
            from nlu_tui.scoring.stability import NO_INTENT

            groups = {g.name: g for g in self.data.stability.intents}
            if NO_INTENT in groups:
                groups[none_label()] = groups[NO_INTENT]
        rows = []
        for label in report.labels:
            group = groups.get(label)
            metrics = report.report.get(label, {})
            stats = report.stats[label]
            rows.append(
                {
                    "intent": label,
                    "precision": metrics.get("precision", 0.0),
                    "recall": metrics.get("recall", 0.0),
                    "f1": metrics.get("f1-score", 0.0),
                    "support": stats.support,
                    "tp": stats.tp,
                    "fp": stats.fp,
                    "fn": stats.fn,
                    "confused": ", ".join(
                        f"{shown_label(n)} ({c})" for n, c in stats.confused_with[:3]
                    ),
                    "stability": group.stability if group is not None else None,
                }
            )
        return rows

    def _fill_intents(self) -> None:
        table = self.query_one("#results-intents", DataTable)
        table.clear(columns=True)
        if self.data is None:
            return
        key, descending = self._intent_sort
        repeated = self.data.stability is not None
        if key == STABILITY_INTENT_COLUMN[0] and not repeated:
            key, descending = self._intent_sort = ("f1", False)

        def order(r: dict[str, Any]) -> tuple[Any, str]:
            value = r[key]
            return (-1.0 if value is None else value), r["intent"]  # no figure sorts lowest

        rows = sorted(self._intent_rows(), key=order, reverse=descending)
        columns = list(INTENT_COLUMNS)
        if repeated:
            columns.insert(len(columns) - 1, STABILITY_INTENT_COLUMN)
        for col, label in columns:
            table.add_column(sorted_label(label, col, (key, descending)), key=col)
        for r in rows:
            cells: list[Any] = [
                Text(inert(shown_label(r["intent"]), newlines=False)),
                num(r["precision"]),
                num(r["recall"]),
                num(r["f1"]),
                str(r["support"]),
                str(r["tp"]),
                str(r["fp"]),
                str(r["fn"]),
            ]
            if repeated:
                cells.append(pct(r["stability"]))
            cells.append(Text(inert(r["confused"], newlines=False)))
            table.add_row(*cells, key=r["intent"])

    def _fill_types(self) -> None:
        """Results per intent type (dialog, FAQ, small talk, trait), as Kore.ai shows them;
        hidden when no case's kind is known."""
        table = self.query_one("#results-types", DataTable)
        table.clear(columns=True)
        found = self.data.intent_type_slices() if self.data is not None else []
        table.display = self.data is not None and self.data.knows_intent_kinds()
        if not table.display:
            return
        for col, label in TYPE_COLUMNS:
            table.add_column(label, key=col)
        for item in found:
            s = item.summary
            name = (item.name or NO_INTENT_LABEL).replace("_", " ")
            table.add_row(
                Text(inert(name, newlines=False)),
                str(s.cases),
                num(s.precision),
                num(s.recall),
                num(s.f1),
                str(s.tp),
                str(s.tn),
                str(s.fp),
                str(s.fn),
                str(s.errors),
                key=item.name or "",
            )

    @on(DataTable.HeaderSelected, "#results-intents")
    def _intent_header(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        key = str(event.column_key.value)
        descending = self._intent_sort == (key, False)
        self.sort_intents(key, descending)

    def sort_intents(self, key: str, descending: bool = False) -> None:
        self._intent_sort = (key, descending)
        self._fill_intents()
