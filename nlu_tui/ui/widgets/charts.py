"""The chart widget of the Results tab: redraws the core's charts to fit its width."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.widgets import Static

from nlu_tui.views.charts import distribution_chart, hits_misses_chart

if TYPE_CHECKING:
    from nlu_tui.scoring.rasa_charts import PairedHistogram


class Chart(Static):
    """A chart that redraws itself to fit its width."""

    DEFAULT_CSS = "Chart { height: auto; padding: 0 1; }"

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes)
        self._hm: tuple[str, Sequence[tuple[str, int, int]]] | None = None
        self._dist: tuple[str, Sequence[tuple[str, int]]] | None = None
        self._paired: tuple[str, PairedHistogram] | None = None

    def set_hits_misses(self, title: str, bins: Sequence[tuple[str, int, int]]) -> None:
        self._hm, self._dist, self._paired = (title, bins), None, None
        self._redraw()

    def set_distribution(self, title: str, bins: Sequence[tuple[str, int]]) -> None:
        self._hm, self._dist, self._paired = None, (title, bins), None
        self._redraw()

    def set_paired_histogram(self, chart: PairedHistogram | None, title: str) -> None:
        """Rasa's paired histogram (``None``: nothing to draw, as Rasa draws nothing)."""
        self._hm, self._dist, self._paired = None, None, None
        if chart is None:
            self._hm = (title, [])
        else:
            self._paired = (title, chart)
        self._redraw()

    def on_resize(self) -> None:
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
