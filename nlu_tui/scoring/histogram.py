"""Confidence histogram of hits and misses with fixed bins.

Bins are 0.05 wide from 0.0 to 1.0: ``[0.00, 0.05)``, ``[0.05, 0.10)``, ..., ``[0.95, 1.00]``
(the last one closed). Unlike Rasa's plot, whose bins start at 0.05 and silently drop lower
confidences (metric-semantics.md §2.4), the first bin keeps them. Values below 0 go to the first
bin, values above 1 (Kore.ai's FM scores are unbounded points) are counted in ``above_one``,
and cases without a (numeric) confidence in ``no_confidence``. A hit is a TP or TN case, a miss an FP
or FN case; ERROR cases are left out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from nlu_tui.model import CaseResult, ResultType

BIN_WIDTH = 0.05
BIN_COUNT = 20
EDGES: tuple[float, ...] = tuple(round(i * BIN_WIDTH, 2) for i in range(BIN_COUNT + 1))


def bin_index(confidence: float) -> int:
    """The bin of a confidence in 0..1 (values outside are clamped by the caller)."""
    # round() first so that 0.15 (stored as 0.1499999...) lands in [0.15, 0.20).
    i = int(round(confidence / BIN_WIDTH, 9))
    return min(max(i, 0), BIN_COUNT - 1)


@dataclass
class Histogram:
    """Counts per bin for hits and misses (``EDGES[i]`` to ``EDGES[i+1]``)."""

    hits: list[int] = field(default_factory=lambda: [0] * BIN_COUNT)
    misses: list[int] = field(default_factory=lambda: [0] * BIN_COUNT)
    above_one_hits: int = 0
    above_one_misses: int = 0
    no_confidence_hits: int = 0
    no_confidence_misses: int = 0

    def add(self, confidence: float | None, hit: bool) -> None:
        if confidence is None or math.isnan(confidence):
            if hit:
                self.no_confidence_hits += 1
            else:
                self.no_confidence_misses += 1
            return
        if confidence > 1.0:
            if hit:
                self.above_one_hits += 1
            else:
                self.above_one_misses += 1
            return
        bins = self.hits if hit else self.misses
        bins[bin_index(max(confidence, 0.0))] += 1

    def rows(self) -> list[tuple[float, float, int, int]]:
        """(low, high, hits, misses) per bin, lowest first."""
        return [(EDGES[i], EDGES[i + 1], self.hits[i], self.misses[i]) for i in range(BIN_COUNT)]

    @property
    def total(self) -> int:
        return (
            sum(self.hits)
            + sum(self.misses)
            + self.above_one_hits
            + self.above_one_misses
            + self.no_confidence_hits
            + self.no_confidence_misses
        )


def confidence_histogram(results: Iterable[CaseResult]) -> Histogram:
    """The histogram of the scored results' confidences (hit = TP or TN)."""
    h = Histogram()
    hits, misses = h.hits, h.misses
    tp, tn, error = ResultType.TP, ResultType.TN, ResultType.ERROR
    last = BIN_COUNT - 1
    for r in results:
        kind = r.result
        if kind is error:
            continue
        c = r.confidence
        hit = kind is tp or kind is tn
        if type(c) is float and 0.0 <= c <= 1.0:
            # Histogram.add inlined for the usual confidence: a float within 0..1.
            i = int(round(c / BIN_WIDTH, 9))
            (hits if hit else misses)[i if i < last else last] += 1
        else:
            h.add(c, hit)
    return h
