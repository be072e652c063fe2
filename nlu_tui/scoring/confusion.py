"""A sparse confusion table: expected × matched intent with counts, drillable to the cases.

Rows are the ``y_true`` labels and columns the ``y_pred`` labels of
:func:`nlu_tui.scoring.intent_report.intent_labels`, so the table agrees cell for cell with
the per-intent report (and with ``sklearn.metrics.confusion_matrix`` on the same labels).
Only non-empty cells are kept: a run with hundreds of intents stays small.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from nlu_tui.model import CaseResult, Prediction, ResultType, TestCase
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions
from nlu_tui.scoring.intent_report import intent_labels


@dataclass
class ConfusionCell:
    expected: str
    matched: str
    case_ids: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.case_ids)

    @property
    def correct(self) -> bool:
        return self.expected == self.matched


@dataclass
class ConfusionTable:
    """Non-empty cells keyed by (expected, matched)."""

    cells: dict[tuple[str, str], ConfusionCell] = field(default_factory=dict)

    def add(self, expected: str, matched: str, case_id: str) -> None:
        cell = self.cells.get((expected, matched))
        if cell is None:
            cell = self.cells[(expected, matched)] = ConfusionCell(expected, matched)
        cell.case_ids.append(case_id)

    def count(self, expected: str, matched: str) -> int:
        cell = self.cells.get((expected, matched))
        return cell.count if cell else 0

    def cases(self, expected: str, matched: str) -> list[str]:
        """The ids of the cases in one cell (what the results view drills into)."""
        cell = self.cells.get((expected, matched))
        return list(cell.case_ids) if cell else []

    @property
    def labels(self) -> list[str]:
        """Every label seen as expected or matched, sorted (scikit-learn's ``unique_labels``)."""
        return sorted({k for pair in self.cells for k in pair})

    def errors(self) -> list[ConfusionCell]:
        """Off-diagonal cells, most frequent first (ties by expected, then matched label)."""
        cells = [c for c in self.cells.values() if not c.correct]
        return sorted(cells, key=lambda c: (-c.count, c.expected, c.matched))

    def row(self, expected: str) -> list[ConfusionCell]:
        """The cells of one expected label, most frequent first."""
        cells = [c for (e, _m), c in self.cells.items() if e == expected]
        return sorted(cells, key=lambda c: (-c.count, c.matched))

    def dense(self) -> tuple[list[str], list[list[int]]]:
        """(labels, matrix) with rows expected and columns matched, for small tables and tests."""
        labels = self.labels
        index = {label: i for i, label in enumerate(labels)}
        matrix = [[0] * len(labels) for _ in labels]
        for (e, m), cell in self.cells.items():
            matrix[index[e]][index[m]] = cell.count
        return labels, matrix


def confusion_table(
    rows: Sequence[tuple[TestCase, Prediction | None, CaseResult]],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    labels: tuple[Sequence[str], Sequence[str]] | None = None,
) -> ConfusionTable:
    """The confusion table of the scored (non-ERROR) rows.

    ``labels``: the rows' ``(y_true, y_pred)`` when already computed (``IntentReport`` has
    them), so the results view labels each case once, not twice.
    """
    table = ConfusionTable()
    if labels is None:
        for case, _prediction, result in rows:
            if result.result is ResultType.ERROR:
                continue
            expected, matched = intent_labels(case, result, options)
            table.add(expected, matched, case.id)
        return table
    scored = [case.id for case, _p, r in rows if r.result is not ResultType.ERROR]
    y_true, y_pred = labels
    cells = table.cells
    for case_id, expected, matched in zip(scored, y_true, y_pred, strict=True):
        cell = cells.get((expected, matched))
        if cell is None:
            cell = cells[(expected, matched)] = ConfusionCell(expected, matched)
        cell.case_ids.append(case_id)
    return table
