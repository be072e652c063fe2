"""``nlu-tui analyze RUN``: is the confidence threshold right? A stored run's threshold sweep.

Prints the summary (best threshold, F1 there and as run, fallback share, calibration error,
near-ties) with plain-text bars; ``--json`` writes every figure, ``--out`` two SVG charts
(written by hand: no plotting library is needed). Definitions: :mod:`nlu_tui.scoring.thresholds`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say


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
    p.add_argument(
        "--rescale",
        action="store_true",
        help="when the scores are not 0..1 (Kore.ai's engine points), divide each by the largest "
        "in the run and sweep that (without it such a run is refused)",
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
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise InputError("is a file; give a folder for the charts", path=args.out, field="--out")
    if args.json is not None and args.json.is_dir():
        raise InputError("is a folder; give a file name", path=args.json, field="--json")


def cmd_analyze(args: argparse.Namespace) -> int:
    from nlu_tui.cli.runs import _store
    from nlu_tui.scoring.thresholds import analyze
    from nlu_tui.views.threshold_text import run_threshold, summary_text

    _check(args)  # before anything is read or written
    store = _store()
    run = store.get_run(args.run_id)
    if run.kind != "suite":
        from nlu_tui.errors import InputError

        raise InputError(
            f"run {run.id} is a {run.kind} run (conversation or dialogue understanding tests): "
            "it has no intent answers to threshold; analyze a batch-test run (`nlu-tui run`)"
        )
    rows = store.load_results(run.id)
    analysis = analyze(
        rows,
        run_threshold=run_threshold(run),
        target_precision=args.target_precision,
        tie_margin=args.tie_margin,
        bins=args.bins,
        out_of_range="rescale" if args.rescale else "refuse",
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
