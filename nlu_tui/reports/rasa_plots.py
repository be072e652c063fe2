"""The PNG plots ``rasa test nlu`` writes beside its reports, drawn with matplotlib as Rasa 3.6's
``rasa/utils/plotting.py`` draws them.

- ``plot_confusion_matrix``: the matrix on a ``Blues`` log scale from 1 (zero cells stay
  blank) to the largest cell, a colour bar, the labels on both axes (x rotated 90°), each cell's
  count written in it (white above half the largest cell), "True label" / "Predicted label",
  20 × 20 inches.
- ``plot_paired_histogram``: two horizontal bar panels sharing the confidence axis, "Correct"
  (dark cyan, mirrored) and "Wrong" (dark red), the bin edges as ticks with two decimals, the
  title bold above, "Number of Samples" / "Confidence", 10 × 10 inches.

The numbers come from :mod:`nlu_tui.scoring.rasa_charts`. matplotlib is imported only here, and
only its object API is used (no pyplot state), so plots can be drawn from any thread. Each file
is written atomically.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING

from nlu_tui.extras import need
from nlu_tui.fileio import atomic_write_bytes
from nlu_tui.scoring.rasa_charts import ConfusionChart, PairedHistogram

if TYPE_CHECKING:
    from matplotlib.figure import Figure

HIST_COLORS = ("#009292", "#920000")
"""Rasa's (dark cyan, dark red)."""


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: Path) -> Path:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    atomic_write_bytes(path, buffer.getvalue())
    return path


def confusion_figure(chart: ConfusionChart) -> Figure:
    """``plot_confusion_matrix(matrix, classes=labels, title=...)`` (not normalised)."""
    from matplotlib import colormaps
    from matplotlib.colors import LogNorm

    fig = _figure(20, 20)
    ax = fig.add_subplot()
    zmax = chart.peak
    image = ax.imshow(
        chart.matrix or [[0]],
        interpolation="nearest",
        cmap=colormaps["Blues"],
        aspect="auto",
        norm=LogNorm(vmin=1, vmax=max(zmax, 1)),
    )
    ax.set_title(chart.title)
    fig.colorbar(image, ax=ax)
    ticks = list(range(len(chart.labels)))
    ax.set_xticks(ticks, chart.labels, rotation=90)
    ax.set_yticks(ticks, chart.labels)
    thresh = zmax / 2.0
    for i, row in enumerate(chart.matrix):
        for j, count in enumerate(row):
            ax.text(
                j,
                i,
                str(count),
                horizontalalignment="center",
                color="white" if count > thresh else "black",
            )
    ax.set_ylabel("True label")
    ax.set_xlabel("Predicted label")
    return fig


def histogram_figure(chart: PairedHistogram) -> Figure:
    """``plot_paired_histogram([correct, wrong], title)`` with Rasa's defaults."""
    from matplotlib.ticker import FormatStrFormatter

    fig = _figure(10, 10)
    axes = fig.subplots(ncols=2, sharey=True)
    heights = [b - a for a, b in pairwise(chart.bins)]
    for side, label in enumerate(("Correct", "Wrong")):
        axes[side].barh(
            chart.bins[:-1],
            chart.tallies[side],
            height=heights,
            align="center",
            color=HIST_COLORS[side],
            linewidth=1,
            edgecolor="white",
        )
        axes[side].set(title=label)
        axes[side].set(yticks=chart.yticks, xlim=(0, chart.x_ranges[side]), ylim=chart.y_range)
    axes[0].yaxis.set_major_formatter(FormatStrFormatter("%.2f"))
    axes[0].yaxis.set_minor_formatter(FormatStrFormatter("%.2f"))
    axes[0].invert_xaxis()
    axes[0].yaxis.tick_right()
    fig.suptitle(chart.title, fontsize="x-large", fontweight="bold")
    frame = fig.add_subplot(111, frameon=False)
    frame.tick_params(labelcolor="none", top=False, bottom=False, left=False, right=False)
    frame.set_xlabel("Number of Samples")
    frame.set_ylabel("Confidence")
    fig.tight_layout(w_pad=0)
    return fig


def write_plots(
    directory: Path, plots: Sequence[tuple[str, ConfusionChart | PairedHistogram]]
) -> list[Path]:
    """Draw each (file name, chart) into ``directory``; returns the files written."""
    import warnings

    if plots:
        need("matplotlib", "the PNG plots (--no-plot skips them)")

    written = []
    for name, chart in plots:
        with warnings.catch_warnings():
            # A side without data gives an empty x range, as in Rasa (a warning, same picture).
            warnings.simplefilter("ignore", UserWarning)
            if isinstance(chart, ConfusionChart):
                fig = confusion_figure(chart)
            else:
                fig = histogram_figure(chart)
            written.append(_save(fig, directory / name))
    return written
