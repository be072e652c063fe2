"""``nlu-tui test nlu``: Rasa's ``rasa test nlu`` with training: held-out, cross-validation and
pipeline comparison (:mod:`nlu_tui.evaluation.service` does the work).

``--nlu`` alone tests a held-out file (train first with ``--train``); ``--cross-validation``
trains and tests ``--folds`` folds of ``--nlu``; several ``--config`` files compare pipelines.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.engine_options import add_strict_permissions
from nlu_tui.cli.say import say

if TYPE_CHECKING:
    from nlu_tui.evaluation.service import EvalOutcome


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``test nlu``."""
    p = sub.add_parser(
        "nlu",
        help="evaluate NLU: held-out, --cross-validation, or --config a.yml b.yml comparison",
        description=(
            "Evaluate an engine on NLU data as `rasa test nlu` does. Held-out: --nlu is the "
            "test data (--train FILE trains the engine first, else it is used as it is). "
            "--cross-validation trains and tests --folds stratified folds of --nlu. Several "
            "--config files compare pipelines over --runs and --percentages of excluded "
            "training data. Engines that train: embedded, rasa:URL (a real Rasa server)."
        ),
    )
    p.add_argument("--nlu", type=Path, required=True, metavar="DATA", help="Rasa NLU YAML data")
    p.add_argument(
        "--engine",
        default="embedded",
        metavar="E",
        help="embedded (trained on the data), embedded:PATH, rasa:URL or a profile name",
    )
    add_strict_permissions(p)
    p.add_argument(
        "--config",
        type=Path,
        nargs="+",
        default=[],
        metavar="C",
        help="training configuration(s); two or more compare pipelines",
    )
    p.add_argument("--train", type=Path, metavar="FILE", help="held-out: train on this file first")
    p.add_argument(
        "--out",
        type=Path,
        default=Path("results"),
        metavar="DIR",
        help="directory for the report files (default results)",
    )
    p.add_argument("--cross-validation", action="store_true", help="stratified k-fold evaluation")
    p.add_argument("-f", "--folds", type=int, default=5, metavar="N", help="folds (default 5)")
    p.add_argument("--random-seed", type=int, metavar="N", help="seed of folds and splits")
    p.add_argument(
        "--runs",
        type=int,
        metavar="R",
        help="repetitions with seeds N, N+1, ... (default 1; 3 when comparing)",
    )
    p.add_argument(
        "--percentages",
        type=int,
        nargs="+",
        default=[0, 25, 50, 75],
        metavar="P",
        help="comparison: percentages of training data to exclude (default 0 25 50 75)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="train this many folds/configurations at once in processes (embedded engine)",
    )
    p.add_argument("--no-cache", action="store_true", help="retrain models even when cached")
    p.add_argument("--note", default="", help="note stored with the run")
    p.add_argument("--successes", action="store_true", help="also write *_successes.json")
    p.add_argument("--no-errors", action="store_true", help="write no *_errors.json")
    p.add_argument("--no-plot", action="store_true", help="draw no confusion matrix nor histogram")
    p.set_defaults(handler=cmd_test_nlu)


def _progress(key: str, state: str, seconds: float | None) -> None:
    took = f" ({seconds:.1f} s)" if seconds is not None and state in ("done", "failed") else ""
    print(f"  {key}: {state}{took}", file=sys.stderr, flush=True)


def cmd_test_nlu(args: argparse.Namespace) -> int:
    import asyncio

    from nlu_tui.evaluation import service
    from nlu_tui.store.runstore import RunStore

    if args.cross_validation:
        mode = service.CROSS_VALIDATION
    elif len(args.config) > 1:
        mode = service.COMPARISON
    else:
        mode = service.HELD_OUT
    runs = args.runs if args.runs is not None else (3 if mode == service.COMPARISON else 1)
    request = service.EvalRequest(
        nlu=args.nlu,
        engine=args.engine,
        mode=mode,
        configs=list(args.config),
        train=args.train,
        folds=args.folds,
        seed=args.random_seed,
        runs=runs,
        percentages=list(args.percentages),
        jobs=args.jobs,
        out=args.out,
        cache=not args.no_cache,
        note=args.note,
        successes=args.successes,
        errors=not args.no_errors,
        plots=not args.no_plot,
    )
    plan = service.plan(request)
    if plan.duplicates:
        say(f"left out {plan.duplicates} duplicate example(s), as Rasa's reader does")
    if plan.dropped:
        listed = ", ".join(f"{name} ({n})" for name, n in plan.dropped.items())
        cutoff = args.folds if mode == service.CROSS_VALIDATION else service.COMPARISON_CUTOFF
        say(f"dropped {len(plan.dropped)} intent(s) with fewer than {cutoff} examples: {listed}")
    store = RunStore()
    started = time.time()
    try:
        outcome = asyncio.run(service.evaluate(plan, store, _progress))
    except KeyboardInterrupt:  # Ctrl-C: say what was kept, then exit 130 ("canceled")
        _say_kept(store, request.nlu, started)
        raise
    finally:
        store.close()
    show(outcome, request)
    from nlu_tui.model import RunStatus

    if outcome.status is RunStatus.CANCELED:
        return exitcodes.CANCELED
    if outcome.status is RunStatus.FAILED or outcome.failures:
        return exitcodes.RUN_FAILED
    return exitcodes.OK


def _say_kept(store: Any, nlu: Path, since: float) -> None:
    """The runs this evaluation stored before it was canceled (finished folds are kept)."""
    for record in reversed(store.list_runs(nlu)):
        if record.started_at >= since - 1.0:
            unit = "models" if record.kind != "suite" else "cases"
            say(
                f"run {record.id}: {record.status.value}, {record.done}/{record.total} {unit} "
                f"kept (nlu-tui show {record.id})",
                file=sys.stderr,
            )


def show(outcome: EvalOutcome, request: Any) -> None:
    """The figures in the terminal: per fold with mean ± std, or the comparison curve."""
    from nlu_tui.evaluation.text import outcome_lines

    lines = outcome_lines(outcome, request.percentages)
    from nlu_tui.evaluation.service import COMPARISON

    if outcome.mode == COMPARISON and outcome.examples:
        import shutil

        from rich.console import Console

        from nlu_tui.views.curve_text import f1_curve_text

        table = next((i for i, line in enumerate(lines) if line.startswith("run ")), len(lines))
        for line in lines[:table]:
            say(line)
        width = min(shutil.get_terminal_size((100, 24)).columns, 100)
        # names in the chart are made inert by it; the rest is drawn by us
        chart = f1_curve_text(outcome.results, outcome.examples, width - 2, 18)
        chart.rstrip()
        Console(width=width, highlight=False, soft_wrap=False).print(chart)
        lines = lines[table:]
    for line in lines:
        say(line)
