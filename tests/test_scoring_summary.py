"""Latency percentiles (nearest rank, against numpy's inverted_cdf) and the confidence histogram."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from nlu_tui.model import CaseResult, ResultType
from nlu_tui.scoring.histogram import BIN_COUNT, EDGES, bin_index, confidence_histogram
from nlu_tui.scoring.summary import nearest_rank, summarize


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=300),
    st.sampled_from([1, 25, 50, 90, 95, 99, 100]),
)
def test_nearest_rank_is_numpy_inverted_cdf(values: list[float], p: int) -> None:
    import numpy as np

    ours = nearest_rank(sorted(values), p)
    assert ours == float(np.percentile(values, p, method="inverted_cdf"))


def test_summary_latencies_skip_errors_and_missing() -> None:
    results = [
        CaseResult("a", ResultType.TP, "x", 0.9, latency_ms=5.0),
        CaseResult("b", ResultType.FN, None, None, latency_ms=None),
        CaseResult("c", ResultType.ERROR, None, None, latency_ms=9999.0, error="timeout"),
        CaseResult("d", ResultType.FP, "y", 0.4, latency_ms=1.0),
    ]
    s = summarize(results)
    assert (s.latency_p50, s.latency_p99, s.latency_max) == (1.0, 5.0, 5.0)
    assert math.isclose(s.latency_mean or 0, 3.0)


def test_histogram_bins_keep_low_confidences() -> None:
    assert len(EDGES) == BIN_COUNT + 1 and EDGES[0] == 0.0 and EDGES[-1] == 1.0
    assert [bin_index(x) for x in (0.0, 0.01, 0.049, 0.05, 0.15, 0.999, 1.0)] == [
        0,
        0,
        0,
        1,
        3,
        19,
        19,
    ]
    results = [
        CaseResult("1", ResultType.TP, "a", 0.01),  # below 0.05: Rasa drops it, we keep it
        CaseResult("2", ResultType.TN, None, 0.97),
        CaseResult("3", ResultType.FP, "b", 0.04),
        CaseResult("4", ResultType.FN, None, None),
        CaseResult("5", ResultType.TP, "a", 42.0),  # Kore FM points are unbounded
        CaseResult("6", ResultType.ERROR, None, 0.5, error="x"),
    ]
    h = confidence_histogram(results)
    assert h.hits[0] == 1 and h.hits[19] == 1 and sum(h.hits) == 2
    assert h.misses[0] == 1 and sum(h.misses) == 1
    assert (h.above_one_hits, h.no_confidence_misses, h.total) == (1, 1, 5)
    assert h.rows()[0] == (0.0, 0.05, 1, 1)
