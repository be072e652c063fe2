"""The pipeline comparison's F1 curve, as Rasa's ``nlu_model_comparison_graph.pdf`` draws it
(mean F1 over runs against the number of training examples, a ±1 std band), in SVG written by
hand. Also the per-percentage mean and std that the terminal shows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from xml.sax.saxutils import escape

from nlu_tui.evaluation.metrics import mean_std
from nlu_tui.fileio import atomic_write_text

W, H = 680, 420
LEFT, RIGHT, TOP, BOTTOM = 60, 170, 40, 50
PLOT_W, PLOT_H = W - LEFT - RIGHT, H - TOP - BOTTOM
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")

Results = Mapping[str, Sequence[Sequence[float | None]]]


def curve_points(
    runs: Sequence[Sequence[float | None]], count: int
) -> list[tuple[float, float] | None]:
    """(mean, std) at each percentage over the runs that have a number there (None: none)."""
    out: list[tuple[float, float] | None] = []
    for p in range(count):
        values = [run[p] for run in runs if p < len(run) and run[p] is not None]
        out.append(mean_std([float(v) for v in values if v is not None]) if values else None)
    return out


def curve_svg(results: Results, examples: Sequence[int]) -> str:
    """The chart: x = training examples, y = label-weighted F1 on the test set."""
    xs = list(examples)
    lo, hi = (min(xs), max(xs)) if xs else (0, 1)
    span = (hi - lo) or 1

    def x(v: float) -> float:
        return LEFT + PLOT_W * (v - lo) / span

    def y(v: float) -> float:
        return TOP + PLOT_H * (1.0 - min(max(v, 0.0), 1.0))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{LEFT + PLOT_W / 2:.0f}" y="22" text-anchor="middle" font-size="14">'
        "NLU pipeline comparison</text>",
    ]
    for k in range(11):
        v = k / 10
        out.append(
            f'<line x1="{LEFT}" y1="{y(v):.1f}" x2="{LEFT + PLOT_W}" y2="{y(v):.1f}" stroke="#eeeeee"/>'
        )
        out.append(f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
    for value in sorted(set(xs)):
        out.append(
            f'<text x="{x(value):.1f}" y="{TOP + PLOT_H + 16}" text-anchor="middle">{value}</text>'
        )
    out.append(
        f'<rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}" fill="none" stroke="black"/>'
    )
    out.append(
        f'<text x="{LEFT + PLOT_W / 2:.0f}" y="{H - 12}" text-anchor="middle">'
        "Number of intent examples present during training</text>"
    )
    out.append(
        f'<text x="16" y="{TOP + PLOT_H / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {TOP + PLOT_H / 2:.0f})">Label-weighted average F1 score on test set</text>'
    )
    for k, (name, runs) in enumerate(results.items()):
        color = COLORS[k % len(COLORS)]
        points = [(xs[i], p) for i, p in enumerate(curve_points(runs, len(xs))) if p is not None]
        if points:
            upper = " ".join(f"{x(px):.1f},{y(m + s):.1f}" for px, (m, s) in points)
            lower = " ".join(f"{x(px):.1f},{y(m - s):.1f}" for px, (m, s) in reversed(points))
            out.append(
                f'<polygon points="{upper} {lower}" fill="{color}" fill-opacity="0.2" stroke="none"/>'
            )
            line = " ".join(f"{x(px):.1f},{y(m):.1f}" for px, (m, _s) in points)
            out.append(f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"/>')
            for px, (m, s) in points:
                out.append(
                    f'<circle cx="{x(px):.1f}" cy="{y(m):.1f}" r="3" fill="{color}">'
                    f"<title>{escape(name)}: {px} examples, F1 {m:.3f} ± {s:.3f}</title></circle>"
                )
        ly = TOP + 10 + 20 * k
        out.append(
            f'<line x1="{LEFT + PLOT_W + 14}" y1="{ly}" x2="{LEFT + PLOT_W + 34}" y2="{ly}" '
            f'stroke="{color}" stroke-width="2"/>'
        )
        out.append(f'<text x="{LEFT + PLOT_W + 40}" y="{ly + 4}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_curve(path: Path, results: Results, examples: Sequence[int]) -> Path:
    atomic_write_text(path, curve_svg(results, examples))
    return path
