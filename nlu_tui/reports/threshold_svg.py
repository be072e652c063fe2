"""The threshold analysis as two SVG charts, written by hand (no plotting library needed).

``thresholds.svg``: precision, recall, F1 and the fallback share against the threshold (the
points at every distinct confidence within 0..1 and the 0.05 grid). ``reliability.svg``: the
accuracy of each confidence bin against the diagonal of perfect calibration. The only text from
outside is the run id, XML-escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape

from nlu_tui.fileio import atomic_write_text
from nlu_tui.scoring.thresholds import Point, ThresholdAnalysis

W, H = 640, 420
LEFT, RIGHT, TOP, BOTTOM = 60, 150, 40, 50
PLOT_W, PLOT_H = W - LEFT - RIGHT, H - TOP - BOTTOM
SERIES = (
    ("precision", "#1f77b4"),
    ("recall", "#ff7f0e"),
    ("F1", "#2ca02c"),
    ("fallback share", "#7f7f7f"),
)


def _x(v: float) -> float:
    return LEFT + PLOT_W * min(max(v, 0.0), 1.0)


def _y(v: float) -> float:
    return TOP + PLOT_H * (1.0 - min(max(v, 0.0), 1.0))


def _frame(title: str, xlabel: str, ylabel: str) -> list[str]:
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{W / 2 - RIGHT / 2:.0f}" y="22" text-anchor="middle" font-size="14">'
        f"{escape(title)}</text>",
    ]
    for k in range(11):
        v = k / 10
        out.append(
            f'<line x1="{_x(v):.1f}" y1="{TOP}" x2="{_x(v):.1f}" y2="{TOP + PLOT_H}" '
            'stroke="#eeeeee"/>'
        )
        out.append(
            f'<line x1="{LEFT}" y1="{_y(v):.1f}" x2="{LEFT + PLOT_W}" y2="{_y(v):.1f}" '
            'stroke="#eeeeee"/>'
        )
        out.append(
            f'<text x="{_x(v):.1f}" y="{TOP + PLOT_H + 16}" text-anchor="middle">{v:.1f}</text>'
        )
        out.append(f'<text x="{LEFT - 6}" y="{_y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
    out.append(
        f'<rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}" fill="none" '
        'stroke="black"/>'
    )
    out.append(
        f'<text x="{LEFT + PLOT_W / 2:.0f}" y="{H - 12}" text-anchor="middle">{xlabel}</text>'
    )
    out.append(
        f'<text x="16" y="{TOP + PLOT_H / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {TOP + PLOT_H / 2:.0f})">{ylabel}</text>'
    )
    return out


def _legend(items: Sequence[tuple[str, str]]) -> list[str]:
    out = []
    for k, (name, color) in enumerate(items):
        y = TOP + 10 + 20 * k
        out.append(
            f'<line x1="{LEFT + PLOT_W + 14}" y1="{y}" x2="{LEFT + PLOT_W + 34}" y2="{y}" '
            f'stroke="{color}" stroke-width="2"/>'
        )
        out.append(f'<text x="{LEFT + PLOT_W + 40}" y="{y + 4}">{name}</text>')
    return out


def thresholds_svg(run_id: str, analysis: ThresholdAnalysis) -> str:
    """Precision, recall, F1 and fallback share against the threshold, best F1 marked."""
    merged: dict[float, Point] = {}
    for p in [*analysis.curve, *analysis.grid]:
        if p.threshold is not None and 0.0 <= p.threshold <= 1.0:
            merged[p.threshold] = p
    points = [merged[t] for t in sorted(merged)]
    out = _frame(f"Threshold sweep, run {run_id}", "threshold", "share")
    values: list[list[float]] = [
        [p.precision for p in points],
        [p.recall for p in points],
        [p.f1 for p in points],
        [p.fallback_share for p in points],
    ]
    for (_name, color), ys in zip(SERIES, values, strict=True):
        path = " ".join(
            f"{_x(p.threshold or 0.0):.1f},{_y(y):.1f}" for p, y in zip(points, ys, strict=True)
        )
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
    legend = list(SERIES)
    best = analysis.best
    if best is not None and best.threshold is not None:
        out.append(
            f'<line x1="{_x(best.threshold):.1f}" y1="{TOP}" x2="{_x(best.threshold):.1f}" '
            f'y2="{TOP + PLOT_H}" stroke="#d62728" stroke-dasharray="4 3"/>'
        )
        legend.append((f"best F1 at {best.threshold:.3g}", "#d62728"))
    out.extend(_legend(legend))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def reliability_svg(run_id: str, analysis: ThresholdAnalysis) -> str:
    """Accuracy per confidence bin (bars) against the diagonal; ECE in the title."""
    cal = analysis.calibration
    ece = "-" if cal.ece is None else f"{cal.ece:.4f}"
    out = _frame(f"Reliability, run {run_id} (ECE {ece})", "confidence", "accuracy")
    out.append(
        f'<line x1="{_x(0)}" y1="{_y(0)}" x2="{_x(1)}" y2="{_y(1)}" stroke="#7f7f7f" '
        'stroke-dasharray="4 3"/>'
    )
    for b in cal.bins:
        if b.accuracy is None:
            continue
        x0, x1 = _x(b.low), _x(b.high)
        out.append(
            f'<rect x="{x0 + 1:.1f}" y="{_y(b.accuracy):.1f}" width="{max(x1 - x0 - 2, 1):.1f}" '
            f'height="{_y(0) - _y(b.accuracy):.1f}" fill="#1f77b4" fill-opacity="0.7">'
            f"<title>{b.low:.2f}-{b.high:.2f}: {b.count} answers, accuracy {b.accuracy:.3f}"
            "</title></rect>"
        )
        if b.mean_confidence is not None:
            out.append(
                f'<circle cx="{_x(b.mean_confidence):.1f}" cy="{_y(b.accuracy):.1f}" r="3" '
                'fill="#d62728"/>'
            )
    out.extend(
        _legend(
            [
                ("accuracy per bin", "#1f77b4"),
                ("mean confidence", "#d62728"),
                ("perfect", "#7f7f7f"),
            ]
        )
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_charts(folder: Path, run_id: str, analysis: ThresholdAnalysis) -> list[Path]:
    """Write ``thresholds.svg`` and ``reliability.svg`` into ``folder`` (made if missing)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (
        ("thresholds.svg", thresholds_svg(run_id, analysis)),
        ("reliability.svg", reliability_svg(run_id, analysis)),
    ):
        path = folder / name
        atomic_write_text(path, text)
        written.append(path)
    return written
