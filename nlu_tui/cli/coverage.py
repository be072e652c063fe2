"""``nlu-tui coverage SUITE --engine E``: test coverage, leakage, performance per intent and
training recommendations of a suite against the bot's intents (seed 000's Batch Testing
dashboard). The figures: :mod:`nlu_tui.coverage`; the service call:
:mod:`nlu_tui.coverage_service`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.engine_options import add_strict_permissions
from nlu_tui.cli.say import say
from nlu_tui.defaults import DEFAULT_MIN_CASES, DEFAULT_NEAR, DEFAULT_TARGET_RECALL


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``coverage`` to the parser."""
    p = sub.add_parser(
        "coverage",
        help="test coverage, leakage, performance per intent and training recommendations",
        description=(
            "Which of the bot's intents and entities the suite never tests or tests with few "
            "cases, which test utterances are copied from the training data, and, from the "
            "suite's newest finished run on the engine, each intent's precision and recall "
            "with the utterances to add as training examples."
        ),
    )
    p.add_argument("suite", type=Path, metavar="SUITE", help="the suite file")
    p.add_argument("--engine", metavar="E", help="engine profile or spec (its training data)")
    add_strict_permissions(p)
    p.add_argument(
        "--training", type=Path, metavar="FILE", help="the bot's training data (Rasa NLU YAML)"
    )
    p.add_argument(
        "--stage", choices=("development", "published"), default="development",
        help="the engine's stage whose runs are read (default development)",
    )  # fmt: skip
    p.add_argument("--run", dest="run_id", metavar="RUN", help="read this run's performance")
    p.add_argument(
        "--no-run", action="store_true", help="coverage and leakage only: read no stored run"
    )
    p.add_argument(
        "--min-cases", type=int, default=DEFAULT_MIN_CASES, metavar="N",
        help=f"an intent tested by fewer cases is listed (default {DEFAULT_MIN_CASES})",
    )  # fmt: skip
    p.add_argument(
        "--near", type=float, default=DEFAULT_NEAR, metavar="R",
        help=f"similarity from which a test utterance is near-identical to a training "
        f"example (default {DEFAULT_NEAR}; 1: identical only)",
    )  # fmt: skip
    p.add_argument(
        "--target-recall", type=float, default=DEFAULT_TARGET_RECALL, metavar="R",
        help=f"intents under this recall get a recommendation (default {DEFAULT_TARGET_RECALL})",
    )  # fmt: skip
    p.add_argument("--json", type=Path, metavar="FILE", help="write every figure as JSON")
    p.set_defaults(handler=cmd_coverage)


def cmd_coverage(args: argparse.Namespace) -> int:
    from nlu_tui.coverage_service import (
        CoverageRequest,
        build_coverage,
        check_request,
        coverage_text,
    )

    request = CoverageRequest(
        suite_path=args.suite,
        engine=args.engine,
        training=args.training,
        stage=args.stage,
        run_id=args.run_id,
        use_runs=not args.no_run,
        min_cases=args.min_cases,
        near=args.near,
        target_recall=args.target_recall,
    )
    check_request(request)
    if args.json is not None and args.json.is_dir():
        from nlu_tui.errors import InputError

        raise InputError("is a folder; give a file name", path=args.json, field="--json")
    store = None
    if not args.no_run:
        from nlu_tui.cli.runs import _store

        store = _store()
    report = build_coverage(request, store)
    say(coverage_text(report), end="")
    if args.json is not None:
        import json

        from nlu_tui.fileio import atomic_write_text

        text = json.dumps(report.as_dict(), ensure_ascii=False, indent=2) + "\n"
        atomic_write_text(args.json, text)
        say(f"wrote {args.json}", file=sys.stderr)
    return exitcodes.OK
