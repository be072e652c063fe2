"""A stored run with everything the results view shows, computed once by the scoring core.

No Textual here: the results pane loads this in a thread worker, then only displays it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from nlu_tui.model import CaseResult, Prediction, TestCase
from nlu_tui.scoring import summarize
from nlu_tui.scoring.intent_report import build_intent_report
from nlu_tui.scoring.rasa_examples import rasa_intent_histogram

if TYPE_CHECKING:
    from nlu_tui.scoring.confusion import ConfusionTable
    from nlu_tui.scoring.histogram import Histogram
    from nlu_tui.scoring.intent_report import IntentReport
    from nlu_tui.scoring.rasa_charts import PairedHistogram
    from nlu_tui.scoring.robustness import Robustness
    from nlu_tui.scoring.slices import Slice
    from nlu_tui.scoring.stability import StabilityReport
    from nlu_tui.scoring.summary import Summary
    from nlu_tui.store.records import RunRecord
    from nlu_tui.store.runstore import RunStore

Row = tuple[TestCase, Prediction, CaseResult]


@dataclass
class RunData:
    """One run's record, rows (case, prediction, result) and their summary and report."""

    record: RunRecord
    rows: list[Row]
    summary: Summary
    report: IntentReport
    confusion: ConfusionTable
    histogram: Histogram
    by_id: dict[str, Row] = field(default_factory=dict)
    stability: StabilityReport | None = None
    """A repeated run's stability (``run --repeat N``), from its stored attempts."""
    rasa_histogram: PairedHistogram | None = None
    """Rasa's ``intent_histogram.png`` in numbers (its bins, fallback undone)."""
    robustness: Robustness | None = None
    """The comparison of a perturbed suite's run with its original's, when the run is one of
    such a pair (set by the face that loads it: :func:`nlu_tui.robustness.run_robustness`)."""
    _type_slices: list[Slice] | None = field(default=None, repr=False, compare=False)

    def knows_intent_kinds(self) -> bool:
        """Whether any case's intent type is known, from the suite or the engine's answers
        (else the per-type table would only say "dialog" for every case)."""
        from nlu_tui.scoring.slices import engine_kinds

        return any(i.kind for c, _, _ in self.rows for i in c.intents) or bool(
            engine_kinds(self.rows)
        )

    def intent_type_slices(self) -> list[Slice]:
        """The run's results per intent type (dialog, faq, small_talk, trait; ``None`` for the
        cases no kind is known of), as Kore.ai shows them, computed once, by the same rule as
        the coverage report (:func:`~nlu_tui.scoring.slices.intent_type_slices`)."""
        if self._type_slices is None:
            from nlu_tui.scoring.slices import intent_type_slices

            self._type_slices = intent_type_slices(self.rows)
        return list(self._type_slices)

    @classmethod
    def from_rows(cls, record: RunRecord, rows: Sequence[Row]) -> RunData:
        from nlu_tui.scoring.confusion import confusion_table
        from nlu_tui.scoring.histogram import confidence_histogram

        rows = list(rows)
        return cls(
            record=record,
            rows=rows,
            summary=summarize(r for _, _, r in rows),
            report=build_intent_report(rows),
            confusion=confusion_table(rows),
            histogram=confidence_histogram(r for _, _, r in rows),
            by_id={r.case_id: (c, p, r) for c, p, r in rows},
            rasa_histogram=rasa_intent_histogram(rows),
        )

    @classmethod
    def load(cls, store: RunStore, run_id: str) -> RunData:
        from nlu_tui.repeats import run_stability

        record = store.get_run(run_id)
        data = cls.from_rows(record, store.load_results(record.id))
        data.stability = run_stability(store, record, data.rows)
        return data

    @property
    def cases(self) -> dict[str, TestCase]:
        return {c.id: c for c, _, _ in self.rows}

    def intent_f1(self) -> dict[str, float]:
        """Per-label F1 from the scoring core's report (labels only; averages left out)."""
        return {
            label: float(self.report.report[label]["f1-score"])
            for label in self.report.labels
            if label in self.report.report
        }

    def cell_case_ids(self, true_label: str, predicted: str) -> list[str]:
        """Cases of one confusion cell (expected, matched), in run order."""
        return self.confusion.cases(true_label, predicted)
