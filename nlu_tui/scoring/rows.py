"""A scored run as rows: (case, prediction, result) triples, and the one rule for a number that
may be missing, NaN or infinite. Shared by the scoring core, the reports and the views."""

from __future__ import annotations

import math

from nlu_tui.model import CaseResult, Prediction, TestCase

ResultRow = tuple[TestCase, Prediction | None, CaseResult]
"""One scored case: the case as run, the engine's answer (None if not kept) and its result."""


def finite(value: float | None) -> float | None:
    """``value``, or ``None`` when it is missing, NaN or infinite (not representable in JSON)."""
    if value is None or not math.isfinite(value):
        return None
    return value
