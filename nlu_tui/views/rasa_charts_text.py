"""Rasa's plots drawn in the terminal: the same confusion matrices and paired histograms as the
PNG files of a Rasa export (:mod:`nlu_tui.scoring.rasa_charts` gives both their numbers).

- Histogram: one row per bin, from the highest bin down to the first bin Rasa's y axis shows,
  labelled with the bin's lower edge (where Rasa centres the bar and writes the tick), "Correct"
  mirrored on the left and "Wrong" on the right.
- Confusion matrix: rows are true labels, columns predicted labels (numbered as the rows), the
  diagonal in green, other counts in red, zero cells as ``·`` (Rasa leaves them uncoloured). A
  matrix wider than the terminal lists its largest off-diagonal cells instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from nlu_tui.scoring.intent_report import NO_INTENT_LABEL
from nlu_tui.textsafe import inert
from nlu_tui.views.charts import hits_misses_chart

if TYPE_CHECKING:
    from nlu_tui.scoring.rasa_charts import ConfusionChart, PairedHistogram

MAX_LABEL = 32
"""Longest label kept whole in a matrix row."""
MAX_CONFUSIONS = 15
"""Off-diagonal cells listed when the matrix is too wide."""


def paired_histogram_text(chart: PairedHistogram, width: int = 80, title: str = "") -> Text:
    """The histogram as mirrored bars, highest confidence on top (``title`` replaces the
    chart's own)."""
    low = chart.y_range[0]
    rows = [
        (f"{edge:.2f}", right, wrong)
        for edge, right, wrong in zip(chart.bins[:-1], *chart.tallies, strict=True)
        if edge >= low
    ]
    return hits_misses_chart(rows[::-1], width, title or chart.title, sides=("Correct", "Wrong"))


NO_INTENT = NO_INTENT_LABEL
"""The empty label (nothing predicted), named as the per-intent reports name it."""


def _label(label: str) -> str:
    text = inert(label, newlines=False) if label else NO_INTENT
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


def confusion_text(chart: ConfusionChart, width: int = 80) -> Text:
    """The matrix as a grid of counts, or its largest confusions when it does not fit."""
    text = Text()
    text.append(chart.title + " (rows: true label, columns: predicted)\n", style="bold")
    n = len(chart.labels)
    if not n:
        text.append("(no data)\n")
        return text
    labels = [_label(label) for label in chart.labels]
    number_w = len(str(n))
    label_w = max(len(label) for label in labels)
    cell_w = max(len(str(chart.peak)), number_w) + 1
    head_w = number_w + 1 + label_w
    if head_w + n * cell_w > width:
        return _largest_confusions(text, chart, labels, width)
    text.append(" " * head_w + "".join(f"{j + 1:>{cell_w}}" for j in range(n)) + "\n", style="dim")
    for i, (label, row) in enumerate(zip(labels, chart.matrix, strict=True)):
        text.append(f"{i + 1:>{number_w}} ", style="dim")
        text.append(f"{label:<{label_w}}", style="bold")
        for j, count in enumerate(row):
            if not count:
                text.append(f"{'·':>{cell_w}}", style="dim")
            else:
                text.append(f"{count:>{cell_w}}", style="green" if i == j else "red")
        text.append("\n")
    return text


def _largest_confusions(text: Text, chart: ConfusionChart, labels: list[str], width: int) -> Text:
    cells = sorted(
        (
            (-count, i, j)
            for i, row in enumerate(chart.matrix)
            for j, count in enumerate(row)
            if count and i != j
        ),
    )
    right = sum(chart.matrix[i][i] for i in range(len(labels)))
    total = sum(sum(row) for row in chart.matrix)
    text.append(
        f"{len(labels)} labels, too many for {width} columns: {right} of {total} on the "
        "diagonal; the largest confusions:\n",
        style="dim",
    )
    if not cells:
        text.append("(none)\n")
    for negative, i, j in cells[:MAX_CONFUSIONS]:
        text.append(f"{-negative:>6} ", style="red")
        text.append(f"{labels[i]} → {labels[j]}\n")
    if len(cells) > MAX_CONFUSIONS:
        text.append(f"… {len(cells) - MAX_CONFUSIONS} more cells\n", style="dim")
    return text
