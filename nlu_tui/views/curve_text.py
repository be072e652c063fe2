"""The pipeline comparison's F1 curve drawn with characters, as Rasa's
``nlu_model_comparison_graph.pdf`` shows it: mean label-weighted F1 over the runs against the
number of training examples, one line per configuration, its ±1 std as a vertical bar.

The points are :func:`nlu_tui.evaluation.curve_svg.curve_points` (the same as the SVG file and
the CLI's table); this module only places them on a grid of the size it is given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import pairwise

from rich.text import Text

from nlu_tui.evaluation.curve_svg import curve_points
from nlu_tui.textsafe import inert

MARKERS = "●■▲◆✚✖"
STYLES = ("cyan", "magenta", "yellow", "green", "red", "blue")
Y_LABEL_W = 5
"""``0.95 `` left of the axis."""


def _y_range(values: Sequence[float]) -> tuple[float, float]:
    """A range in tenths that holds every value (0..1 at most, at least 0.1 wide)."""
    lo = max(0.0, math.floor(min(values) * 10 + 1e-9) / 10)
    hi = min(1.0, math.ceil(max(values) * 10 - 1e-9) / 10)
    if hi - lo < 0.1:
        hi = min(1.0, lo + 0.1)
        lo = hi - 0.1
    return lo, hi


def f1_curve_text(
    results: Mapping[str, Sequence[Sequence[float | None]]],
    examples: Sequence[int],
    width: int = 76,
    height: int = 16,
) -> Text:
    """The curve in ``width`` x ``height`` cells (legend and axis included)."""
    text = Text()
    text.append("Weighted F1 on the test set by training examples: mean, │ ±1 std\n", style="bold")
    curves = {name: curve_points(runs, len(examples)) for name, runs in results.items()}
    points = {
        name: [(examples[i], p) for i, p in enumerate(curve) if p is not None]
        for name, curve in curves.items()
    }
    values = [v for pts in points.values() for _x, (m, s) in pts for v in (m - s, m + s)]
    if not examples or not values:
        text.append("(no F1 figures: every model failed or none was trained)\n")
        return text
    lo, hi = _y_range(values)
    legend_rows = len(results)
    rows = max(5, height - 3 - legend_rows)
    cols = max(20, width - Y_LABEL_W - 2)
    x_lo, x_hi = min(examples), max(examples)
    # a tick step that gives at most one label every other row; the range widened to it
    span = round((hi - lo) * 100)
    step_k = next(
        (k for k in (1, 2, 5, 10, 20, 25, 50) if -(-span // k) <= max(1, (rows - 1) // 2)), 100
    )
    lo = math.floor(round(lo * 100) / step_k) * step_k / 100
    hi = min(1.0, math.ceil(round(hi * 100) / step_k) * step_k / 100)
    ticks_y = [lo + step_k / 100 * i for i in range(round((hi - lo) * 100 / step_k) + 1)]
    pad = 2  # keep the end markers off the axis and the right edge
    shift = min(len(results), 4) - 1  # each configuration one column right of the one before

    def col(x: float, k: int = 0) -> int:
        """The column of ``x`` examples for the ``k``-th configuration (bars side by side)."""
        offset = min(k, shift)
        if x_hi == x_lo:
            return cols // 2 + offset
        return pad + offset + round((x - x_lo) / (x_hi - x_lo) * (cols - 1 - 2 * pad - shift))

    def row(v: float) -> int:
        v = min(max(v, lo), hi)
        return round((hi - v) / (hi - lo) * (rows - 1))

    grid: list[list[tuple[str, str]]] = [[(" ", "")] * cols for _ in range(rows)]

    def put(r: int, c: int, char: str, style: str, over: str = " ·") -> None:
        if 0 <= r < rows and 0 <= c < cols and grid[r][c][0] in over:
            grid[r][c] = (char, style)

    for k, pts in enumerate(points.values()):
        style = STYLES[k % len(STYLES)]
        ordered = sorted(pts, key=lambda p: p[0])
        for (x0, (m0, _s0)), (x1, (m1, _s1)) in pairwise(ordered):
            c0, c1 = col(x0, k), col(x1, k)
            for c in range(c0 + 1, c1):
                put(row(m0 + (m1 - m0) * (c - c0) / (c1 - c0)), c, "·", style, over=" ")
        for x, (m, s) in ordered:
            c = col(x, k)
            top, bottom = row(m + s), row(m - s)
            for r in range(top, bottom + 1):
                put(r, c, "│", style)
            if bottom > top:
                put(top, c, "┬", style, over=" ·│")
                put(bottom, c, "┴", style, over=" ·│")
    for k, pts in enumerate(points.values()):  # markers last: always visible
        style = STYLES[k % len(STYLES)]
        for x, (m, _s) in pts:
            grid[row(m)][col(x, k)] = (MARKERS[k % len(MARKERS)], f"bold {style}")

    labelled = {row(v): v for v in ticks_y}
    for r in range(rows):
        label = f"{labelled[r]:.2f}" if r in labelled else ""
        text.append(f"{label:>{Y_LABEL_W - 1}} ", style="dim")
        text.append("┤" if r in labelled else "│", style="dim")
        for char, style in grid[r]:
            text.append(char, style=style or None)
        text.append("\n")
    text.append(" " * (Y_LABEL_W - 1) + " └" + "─" * cols + "\n", style="dim")
    ticks = [" "] * (cols + Y_LABEL_W + 1)
    for x in sorted(set(examples)):
        label = str(x)
        start = Y_LABEL_W + 1 + col(x) - len(label) // 2
        start = max(0, min(start, len(ticks) - len(label)))
        if all(ch == " " for ch in ticks[max(0, start - 1) : start + len(label) + 1]):
            ticks[start : start + len(label)] = list(label)
    text.append("".join(ticks).rstrip() + "\n", style="dim")
    for k, name in enumerate(results):
        style = STYLES[k % len(STYLES)]
        text.append(f"  {MARKERS[k % len(MARKERS)]} ", style=f"bold {style}")
        text.append(inert(name, newlines=False), style=style)
        text.append("" if points[name] else "  (failed: no figures)", style="dim")
        text.append("\n")
    return text
