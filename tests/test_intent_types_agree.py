"""Issue 23: the Results tab's per-intent-type table and the coverage report compute results
per intent type by one core rule, so they agree for the same run (they said "(none) 42"
and "dialog 36" for the sample run)."""

from __future__ import annotations

from ui_runs_support import predictions_v1, small_suite

from nlu_tui.coverage import _results_by_type
from nlu_tui.reports.run_data import RunData
from nlu_tui.scoring import score_case
from nlu_tui.scoring.case import DEFAULT_OPTIONS
from nlu_tui.scoring.intent_report import NO_INTENT_LABEL


def test_results_tab_and_coverage_agree_per_intent_type() -> None:
    from test_ui_runs_snapshots import record

    suite = small_suite()
    rows = [(c, p, score_case(c, p)) for c, p in zip(suite.cases, predictions_v1(), strict=True)]
    rec, _ = record("run000000001", predictions_v1())
    data = RunData.from_rows(rec, rows)
    tab = [s.as_dict() for s in data.intent_type_slices() if s.name is not None]
    coverage = _results_by_type(rows, {}, DEFAULT_OPTIONS)
    assert tab == coverage
    # every case expecting an intent is typed (dialog by default): only the one expecting
    # none is left without a type
    assert [s.summary.cases for s in data.intent_type_slices() if s.name is None] == [1]
    assert NO_INTENT_LABEL == "(no intent)"
