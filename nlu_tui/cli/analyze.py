"""``nlu-tui analyze RUN``: is the confidence threshold right? A stored run's threshold sweep.

Prints the summary (best threshold, F1 there and as run, fallback share, calibration error,
near-ties) with plain-text bars; ``--json`` writes every figure, ``--out`` two SVG charts
(written by hand: no plotting library is needed). Definitions: :mod:`nlu_tui.scoring.thresholds`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say

if TYPE_CHECKING:
    from nlu_tui.scoring.thresholds import Point, ThresholdAnalysis
    from nlu_tui.store.records import RunRecord

BAR_WIDTH = 30
MAX_TIES_SHOWN = 10


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``analyze`` to the parser."""
    p = sub.add_parser(
        "analyze",
        help="threshold analysis and calibration of a stored run",
        description=(
            "Sweep a confidence threshold from 0 to 1 over a stored run's answers: precision, "
            "recall, F1 and the share sent to fallback at each threshold, the threshold that "
            "maximises F1 (or the lowest one reaching --target-precision), near-ties between "
            "the top two intents and calibration (reliability bins, expected calibration error)."
        ),
    )
    p.add_argument("run_id", metavar="RUN", help="a run id (or a unique prefix)")
    p.add_argument("--json", type=Path, metavar="FILE", help="write every figure as JSON")
    p.add_argument(
        "--out", type=Path, metavar="DIR", help="write thresholds.svg and reliability.svg here"
    )
    p.add_argument(
        "--target-precision",
        type=float,
        metavar="P",
        help="also find the lowest threshold whose precision is at least P (0..1)",
    )
    p.add_argument(
        "--tie-margin",
        type=float,
        default=0.05,
        metavar="M",
        help="list cases whose top two intents are less than M apart (default 0.05)",
    )
    p.add_argument(
        "--bins", type=int, default=10, metavar="N", help="reliability bins (default 10)"
    )
    p.set_defaults(handler=cmd_analyze)


def _check(args: argparse.Namespace) -> None:
    from nlu_tui.errors import InputError

    p = args.target_precision
    if p is not None and not 0.0 <= p <= 1.0:
        raise InputError("must be within 0..1", field="--target-precision")
    if not 0.0 <= args.tie_margin <= 1.0:
        raise InputError("must be within 0..1", field="--tie-margin")
    if not 1 <= args.bins <= 100:
        raise InputError("must be within 1..100", field="--bins")


def run_threshold(run: RunRecord) -> float | None:
    """The threshold the run's engine applied, when its profile tells (the embedded engine's
    default when it does not set one)."""
    value = run.engine_profile.get("threshold")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if run.engine_profile.get("type") == "embedded" or run.engine_name.startswith("embedded"):
        from nlu_tui.engines.embedded.model import DEFAULT_THRESHOLD

        return DEFAULT_THRESHOLD
    return None


def cmd_analyze(args: argparse.Namespace) -> int:
    from nlu_tui.cli.runs import _store
    from nlu_tui.scoring.thresholds import analyze

    _check(args)  # before anything is read or written
    store = _store()
    run = store.get_run(args.run_id)
    rows = store.load_results(run.id)
    analysis = analyze(
        rows,
        run_threshold=run_threshold(run),
        target_precision=args.target_precision,
        tie_margin=args.tie_margin,
        bins=args.bins,
    )
    say(summary_text(run, analysis), end="")
    if args.json is not None:
        import json

        from nlu_tui.fileio import atomic_write_text

        doc = {"run": {"id": run.id, "suite": run.suite_name, "engine": run.engine_name}}
        doc.update(analysis.to_json())
        atomic_write_text(args.json, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        say(f"wrote {args.json}", file=sys.stderr)
    if args.out is not None:
        from nlu_tui.reports.threshold_svg import write_charts

        for path in write_charts(args.out, run.id, analysis):
            say(f"wrote {path}", file=sys.stderr)
    return exitcodes.OK


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
    from nlu_tui.textsafe import inert

    lines = [
        inert(f"run        {run.id} ({run.suite_name} on {run.engine_name})", newlines=False),
        f"scored     {a.scored} (errors {a.errors}); {a.candidates} with an intent to threshold"
        + (f", {a.no_confidence} without a confidence" if a.no_confidence else "")
        + (f", {a.above_one} above 1" if a.above_one else ""),
    ]
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
            f"calibration ECE {cal.ece:.4f}, MCE {cal.mce or 0:.4f} over {cal.cases} answers "
            f"in {len(cal.bins)} bins"
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
    from nlu_tui.scoring.thresholds import GRID

    return min(GRID, key=lambda g: abs(g - t))
