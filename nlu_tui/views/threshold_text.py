"""The threshold analysis as plain text: what ``nlu-tui analyze`` prints and the workbench's
Thresholds tab shows. Untrusted text (suite, engine and intent names, utterances) is made inert
here; the result is plain text (no markup), one item a line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nlu_tui.model import EMBEDDED_DEFAULT_THRESHOLD
from nlu_tui.scoring.thresholds import GRID, Point, ThresholdAnalysis
from nlu_tui.textsafe import inert
from nlu_tui.views.counts import counted

if TYPE_CHECKING:
    from nlu_tui.store.records import RunRecord

BAR_WIDTH = 30
MAX_TIES_SHOWN = 10


def run_threshold(run: RunRecord) -> float | None:
    """The threshold the run's engine applied, when its profile tells (the embedded engine's
    default when it does not set one)."""
    value = run.engine_profile.get("threshold")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if run.engine_profile.get("type") == "embedded" or run.engine_name.startswith("embedded"):
        return EMBEDDED_DEFAULT_THRESHOLD
    return None


def _bar(value: float) -> str:
    filled = round(max(0.0, min(value, 1.0)) * BAR_WIDTH)
    return "█" * filled + "·" * (BAR_WIDTH - filled)


def _point_text(p: Point | None) -> str:
    if p is None:
        return "-"
    return (
        f"P {p.precision:.3f} R {p.recall:.3f} F1 {p.f1:.3f} fallback {100 * p.fallback_share:.1f}%"
    )


def summary_text(run: RunRecord, a: ThresholdAnalysis) -> str:
    """What ``analyze`` prints: untrusted text (names, utterances) is made inert by ``say``."""
    lines = [
        inert(f"run        {run.id} ({run.suite_name} on {run.engine_name})", newlines=False),
        f"scored     {a.scored} (errors {a.errors}); {a.candidates} with an intent to threshold"
        + (f", {a.no_confidence} without a confidence" if a.no_confidence else "")
        + (f", {a.above_one} above 1" if a.above_one else ""),
    ]
    if a.rescaled_by is not None:
        lines.append(
            f"rescaled   every score divided by {a.rescaled_by:g} (the largest in the run): "
            "the scores were not 0..1 probabilities; thresholds below are fractions of it"
        )
    shown = "unknown" if a.run_threshold is None else f"{a.run_threshold:g}"
    lines.append(f"as run     threshold {shown}: {_point_text(a.as_run)}")
    if a.best is not None:
        lines.append(f"best F1    threshold {a.best.threshold:.4g}: {_point_text(a.best)}")
    if a.target_precision is not None:
        if a.target is None:
            lines.append(f"precision  {a.target_precision:g} is reached at no threshold")
        else:
            lines.append(
                f"precision  >= {a.target_precision:g} from threshold {a.target.threshold:.4g}: "
                f"{_point_text(a.target)}"
            )
    cal = a.calibration
    if cal.ece is not None:
        lines.append(
            f"calibration ECE {cal.ece:.4f}, MCE {cal.mce or 0:.4f} over {counted(cal.cases, 'answer')} "
            f"in {counted(len(cal.bins), 'bin')}"
        )
    lines.append(
        f"near-ties  {len(a.near_ties)} of {a.with_margin} ranked cases with the top two "
        f"intents less than {a.tie_margin:g} apart"
    )
    for t in a.near_ties[:MAX_TIES_SHOWN]:
        lines.append(
            inert(
                f"  {t.margin:.4f} {t.first} / {t.second} [{t.result}] {t.case_id}: {t.utterance}",
                newlines=False,
            )
        )
    if len(a.near_ties) > MAX_TIES_SHOWN:
        lines.append(f"  … {len(a.near_ties) - MAX_TIES_SHOWN} more (see --json)")
    lines.append("")
    lines.append("threshold  precision recall  F1     fallback  F1 bar")
    best_t = None if a.best is None else a.best.threshold
    for p in a.grid:
        mark = ""
        if a.run_threshold is not None and abs((p.threshold or 0) - a.run_threshold) < 1e-9:
            mark += " ◀ run"
        if best_t is not None and _nearest_grid(best_t) == p.threshold:
            mark += " ◀ best"
        lines.append(
            f"{p.threshold:9.2f}  {p.precision:9.3f} {p.recall:6.3f}  {p.f1:5.3f}  "
            f"{100 * p.fallback_share:7.1f}%  {_bar(p.f1)}{mark}"
        )
    if cal.ece is not None:
        lines.append("")
        lines.append("confidence   answers accuracy  accuracy bar")
        for b in cal.bins:
            acc = "-" if b.accuracy is None else f"{b.accuracy:.3f}"
            bar = "" if b.accuracy is None else _bar(b.accuracy)
            lines.append(f"{b.low:.2f}-{b.high:.2f}  {b.count:8d} {acc:>8}  {bar}")
    return "\n".join(lines) + "\n"


def _nearest_grid(t: float) -> float:
    return min(GRID, key=lambda g: abs(g - t))
