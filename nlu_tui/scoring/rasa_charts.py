"""What Rasa's plots show, as numbers: the confusion matrices and paired confidence histograms
``rasa test nlu`` draws (``rasa/nlu/test.py``, ``rasa/utils/plotting.py``, Rasa 3.6).

The PNG files (:mod:`nlu_tui.reports.rasa_plots`) and the terminal charts
(:mod:`nlu_tui.views.rasa_charts_text`) are drawn from these, so both show the same bins.

- Confusion matrix: ``sklearn.metrics.confusion_matrix(targets, predictions)`` over
  ``unique_labels(targets, predictions)`` (sorted); rows are targets, columns predictions.
  Entity matrices keep ``no_entity`` as Rasa's do.
- Paired histogram (``_extract_paired_histogram_specification``, 25 bins, no density): the
  bins run from the smallest to the largest confidence of both lists in 25 equal steps, plus
  one more step past the largest; each list is counted as ``np.histogram`` counts (bins closed
  on the left, the last one on both sides). Nothing to count: no chart (Rasa writes no file).
  Unlike Rasa, an example without a confidence is left out rather than stopping the chart.
- Which confidences go where: an intent or response example is *correct* when its target is
  its prediction; an entity token is correct when its label is not ``no_entity`` and equals
  the prediction, wrong when the prediction is an entity other than the target
  (``plot_entity_confidences``). Entity histograms exist only for CRFEntityExtractor and
  DIETClassifier (``EXTRACTORS_WITH_CONFIDENCES``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

NUM_BINS = 25
X_PAD_FRACTION = 0.05
Y_PAD_FRACTION = 0.10


@dataclass(frozen=True)
class ConfusionChart:
    """A confusion matrix as Rasa plots it."""

    title: str
    labels: list[str]
    matrix: list[list[int]]

    @property
    def peak(self) -> int:
        """``zmax``: the largest cell (1 for an empty matrix), the top of the colour scale."""
        return max((max(row) for row in self.matrix if row), default=1)


@dataclass(frozen=True)
class PairedHistogram:
    """``_extract_paired_histogram_specification``'s result, with the plot's title."""

    title: str
    bins: list[float]
    """The bin edges (``NUM_BINS + 2`` of them: ``NUM_BINS + 1`` bins)."""
    tallies: tuple[list[int], list[int]]
    """Counts per bin of the correct and the wrong confidences."""
    x_ranges: tuple[float, float]
    y_range: tuple[float, float]

    @property
    def yticks(self) -> list[float]:
        return [float(f"{x:.2f}") for x in self.bins]


def confusion_chart(pairs: Mapping[tuple[str, str], int], title: str) -> ConfusionChart:
    """The matrix of (target, prediction) counts over the sorted labels seen on either side."""
    labels = sorted({label for pair, count in pairs.items() if count for label in pair})
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for (target, predicted), count in pairs.items():
        if count:
            matrix[index[target]][index[predicted]] += count
    return ConfusionChart(title, labels, matrix)


def _counts(values: Sequence[float], edges: Sequence[float]) -> list[int]:
    """``np.histogram(values, bins=edges)[0]`` (numpy's ``_search_sorted_inclusive``)."""
    ordered = sorted(values)
    cum = [bisect_left(ordered, e) for e in edges[:-1]] + [bisect_right(ordered, edges[-1])]
    return [b - a for a, b in pairwise(cum)]


def paired_histogram(
    correct: Iterable[float | None],
    wrong: Iterable[float | None],
    title: str,
    num_bins: int = NUM_BINS,
) -> PairedHistogram | None:
    """Rasa's paired histogram of two lists of confidences, or ``None`` when both are empty."""
    sides = (
        [float(c) for c in correct if c is not None],
        [float(c) for c in wrong if c is not None],
    )
    every = sides[0] + sides[1]
    if not every:
        return None
    low, high = min(every), max(every)
    width = (high - low) / num_bins
    edges = [low + i * width for i in range(num_bins + 2)]
    tallies = (_counts(sides[0], edges), _counts(sides[1], edges))
    y_padding = 0.5 * width + Y_PAD_FRACTION * width
    x_ranges = ((1.0 + X_PAD_FRACTION) * max(tallies[0]), (1.0 + X_PAD_FRACTION) * max(tallies[1]))
    # Rasa: the first bin that is non-empty on both sides' lists, or 0 when a side is empty
    # (list.index raises there, and Rasa falls back to 0).
    firsts = [next((i for i, n in enumerate(t) if n), None) for t in tallies]
    first = 0 if None in firsts else min(i for i in firsts if i is not None)
    y_range = (edges[first] - y_padding, edges[-2] + y_padding)
    return PairedHistogram(title, edges, tallies, x_ranges, y_range)


def split_confidences(
    examples: Iterable[tuple[str, str, str, float | None]],
) -> tuple[list[float | None], list[float | None]]:
    """Confidences of the (text, target, prediction, confidence) examples predicted right, and
    of those predicted wrong (``plot_attribute_confidences``)."""
    right: list[float | None] = []
    wrong: list[float | None] = []
    for _text, target, predicted, confidence in examples:
        (right if target == predicted else wrong).append(confidence)
    return right, wrong
