"""The chart widget of the Results tab: redraws the core's charts to fit its width."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.widget import Widget
from textual.widgets import Static

from nlu_tui.views.charts import distribution_chart, hits_misses_chart

if TYPE_CHECKING:
    from nlu_tui.scoring.rasa_charts import PairedHistogram

CurveResults = tuple[dict[str, list[list[float | None]]], list[int]]


class Chart(Static):
    """A chart that redraws itself to fit its width."""

    DEFAULT_CSS = "Chart { height: auto; padding: 0 1; }"

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes)
        self._hm: tuple[str, Sequence[tuple[str, int, int]]] | None = None
        self._dist: tuple[str, Sequence[tuple[str, int]]] | None = None
        self._paired: tuple[str, PairedHistogram] | None = None
        self._curve: CurveResults | None = None

    def set_hits_misses(self, title: str, bins: Sequence[tuple[str, int, int]]) -> None:
        self._hm, self._dist, self._paired, self._curve = (title, bins), None, None, None
        self._redraw()

    def set_distribution(self, title: str, bins: Sequence[tuple[str, int]]) -> None:
        self._hm, self._dist, self._paired, self._curve = None, (title, bins), None, None
        self._redraw()

    def set_f1_curve(
        self, results: dict[str, list[list[float | None]]], examples: list[int]
    ) -> None:
        """The pipeline comparison's F1 curve (mean ± std over runs), sized to fit."""
        self._hm, self._dist, self._paired, self._curve = None, None, None, (results, examples)
        self._redraw()

    def set_paired_histogram(self, chart: PairedHistogram | None, title: str) -> None:
        """Rasa's paired histogram (``None``: nothing to draw, as Rasa draws nothing)."""
        self._hm, self._dist, self._paired, self._curve = None, None, None, None
        if chart is None:
            self._hm = (title, [])
        else:
            self._paired = (title, chart)
        self._redraw()

    def on_resize(self) -> None:
        self._redraw()

    def redraw(self) -> None:
        """Draw again for the current layout: a curve takes its container's height, which a
        hidden tab only gets once shown (the chart's own size may not change then)."""
        self._redraw()

    def _redraw(self) -> None:
        width = max(self.size.width - 2, 40) if self.size.width else 76
        if self._hm is not None:
            self.update(hits_misses_chart(self._hm[1], width, self._hm[0]))
        elif self._dist is not None:
            self.update(distribution_chart(self._dist[1], width, self._dist[0]))
        elif self._paired is not None:
            from nlu_tui.views.rasa_charts_text import paired_histogram_text

            self.update(paired_histogram_text(self._paired[1], width, self._paired[0]))
        elif self._curve is not None:
            from nlu_tui.views.curve_text import f1_curve_text

            room = self.parent.size.height if isinstance(self.parent, Widget) else 0
            height = max(12, room - 1) if room else 16
            self.update(f1_curve_text(self._curve[0], self._curve[1], width, height))
