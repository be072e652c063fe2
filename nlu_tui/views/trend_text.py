"""A suite's trend as terminal text: a sparkline per figure, a table of runs, the cases that keep
failing and the flaky ones. Every text from a store (engine names, utterances) goes through the
sanitizer; the figures are :mod:`nlu_tui.trends`'."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nlu_tui.textsafe import inert
from nlu_tui.views.counts import counted

if TYPE_CHECKING:
    from nlu_tui.trends import CaseTrend, Trend

BARS = "▁▂▃▄▅▆▇█"

MAX_CASE_LINES = 30
"""Cases listed under each heading (the JSON output has every case)."""


def sparkline(values: list[float], *, low: float | None = None, high: float | None = None) -> str:
    """One block character per value, scaled from ``low`` to ``high`` (clamped; default: the
    values' own minimum and maximum; values all equal are drawn half-high)."""
    if not values:
        return ""
    low = min(values) if low is None else low
    high = max(values) if high is None else high
    span = high - low
    if span <= 0:
        return BARS[len(BARS) // 2 - 1] * len(values)
    out = []
    for value in values:
        share = (min(max(value, low), high) - low) / span
        out.append(BARS[min(int(share * (len(BARS) - 1) + 0.5), len(BARS) - 1)])
    return "".join(out)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def trend_text(trend: Trend) -> str:
    """What ``nlu-tui trend`` prints."""
    from nlu_tui.store.records import iso

    runs = trend.runs
    lines = [
        f"trend of {inert(trend.suite, newlines=False)}: {counted(len(runs), 'run')}, oldest first"
    ]
    for name, values in (
        ("F1", [r.f1 for r in runs]),
        ("precision", [r.precision for r in runs]),
        ("recall", [r.recall for r in runs]),
        ("error rate", [r.error_rate for r in runs]),
    ):
        first, latest = values[0], values[-1]
        lines.append(
            f"{name:<11}{sparkline(values)}  {first:.4f} → {latest:.4f} ({latest - first:+.4f};"
            f" min {min(values):.4f}, max {max(values):.4f})"
        )
    lines.append("")
    lines.append(
        f"{'run':<13}{'started':<22}{'F1':>7}{'prec':>8}{'recall':>8}{'errors':>8}  engine"
    )
    for r in runs:
        rerun = f" (rerun of {r.rerun_of})" if r.rerun_of else ""
        lines.append(
            f"{r.run_id:<13}{iso(r.started_at) or '-':<22}{r.f1:>7.3f}{r.precision:>8.3f}"
            f"{r.recall:>8.3f}{r.error_rate:>8.1%}  "
            f"{inert(_cut(r.engine, 40), newlines=False)} [{r.stage}]{rerun}"
        )
    failing = [c for c in trend.cases if c.failing_since is not None]
    flaky = [c for c in trend.cases if c.flaky]
    lines.append("")
    lines.append(
        f"failing now: {counted(len(failing), 'case')} (P passed, F failed, E errored, - not run)"
    )
    for c in failing[:MAX_CASE_LINES]:
        lines.append(
            f"  {''.join(c.history)}  {inert(c.case_id, newlines=False)}  failing since run "
            f"{c.failing_since} ({counted(c.failing_streak, 'run')})  {inert(_cut(c.utterance, 50), newlines=False)}"
        )
    if len(failing) > MAX_CASE_LINES:
        lines.append(f"  … {len(failing) - MAX_CASE_LINES} more (--json lists every case)")
    lines.append(f"flaky: {counted(len(flaky), 'case')} passed and failed within these runs")
    for c in flaky[:MAX_CASE_LINES]:
        lines.append(
            f"  {''.join(c.history)}  {inert(c.case_id, newlines=False)}  flaky in "
            f"{c.failing_runs} of the last {counted(c.runs, 'run')}  "
            f"{inert(_cut(c.utterance, 50), newlines=False)}"
        )
    if len(flaky) > MAX_CASE_LINES:
        lines.append(f"  … {len(flaky) - MAX_CASE_LINES} more (--json lists every case)")
    return "\n".join(lines) + "\n"


TREND_METRICS = (
    ("F1", "f1"),
    ("Precision", "precision"),
    ("Recall", "recall"),
    ("Error rate", "error_rate"),
)
"""The figures the Trend tab draws, as named on screen, and their :class:`RunPoint` field."""


def metric_rows(trend: Trend) -> list[tuple[str, str, float, float]]:
    """Per figure: its name, a sparkline of its values (0 to 1), the first and the latest
    value (the Trend tab's top lines)."""
    rows = []
    for name, attr in TREND_METRICS:
        values = [float(getattr(r, attr)) for r in trend.runs]
        rows.append((name, sparkline(values, low=0.0, high=1.0), values[0], values[-1]))
    return rows


def case_status(case: CaseTrend) -> str:
    """What a case's history says: "failing since run X (N runs)", "flaky in K of N", or
    both."""
    said = []
    if case.failing_since is not None:
        runs = "run" if case.failing_streak == 1 else "runs"
        said.append(f"failing since run {case.failing_since} ({case.failing_streak} {runs})")
    if case.flaky:
        said.append(f"flaky in {case.failing_runs} of {case.runs}")
    return "; ".join(said)
