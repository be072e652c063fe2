"""``nlu-tui compare``: NLU.DevOps ``compare`` on expected/actual generic utterance files.

Exit code: the number of failed threshold gates (performance mode) or of failed tests
(``--unit-test``), capped at 100 so it never wraps past 255 or reaches 130; 2 for bad input.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from nlu_tui.cli.say import say, say_warning

MAX_EXIT = 100
"""A count above this exits with 100: shells wrap exit codes at 256 and 130 means Ctrl-C."""


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``compare`` to the parser."""
    p = sub.add_parser(
        "compare",
        help="compare expected and actual utterances the NLU.DevOps way",
        description=(
            "Compare expected (-e) and actual (-a) NLU.DevOps generic utterance files, matched "
            "by position. Writes metadata.json, statistics.json and TestResult.xml to -o and "
            "prints the summary. Exit code: the number of failed thresholds (or failed tests "
            "with --unit-test, capped at 100); 2 for bad input."
        ),
    )
    p.add_argument("-e", "--expected", required=True, type=Path, metavar="EXPECTED.json")
    p.add_argument("-a", "--actual", required=True, type=Path, metavar="ACTUAL.json")
    p.add_argument(
        "-o",
        "--output-folder",
        type=Path,
        default=None,
        metavar="DIR",
        help="where the result files go (default: the current directory)",
    )
    p.add_argument(
        "-b",
        "--baseline",
        type=Path,
        default=None,
        metavar="statistics.json",
        help="statistics.json of an earlier run: deltas in the tables and relative thresholds",
    )
    p.add_argument(
        "-t",
        "--test-settings",
        type=Path,
        default=None,
        metavar="SETTINGS",
        help="JSON or YAML: trueNegativeIntent, strictEntities, ignoreEntities, thresholds",
    )
    p.add_argument(
        "-u",
        "--unit-test",
        action="store_true",
        help="unit-test mode: FPs only for explicit negatives and strict entities; exit = failed tests",
    )
    p.set_defaults(handler=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    from nlu_tui.gcpause import gc_paused

    with gc_paused():
        return _compare(args)


def _compare(args: argparse.Namespace) -> int:
    from nlu_tui.compare.decisions import compare, left_out
    from nlu_tui.compare.outputs import console_summary, write_outputs
    from nlu_tui.compare.settings import TestSettings, load_settings
    from nlu_tui.compare.statistics import Statistics, load_statistics
    from nlu_tui.compare.thresholds import check_gates
    from nlu_tui.compare.utterances import load_utterances
    from nlu_tui.errors import InputError

    # Read and check every input before anything is written.
    settings = load_settings(args.test_settings) if args.test_settings else TestSettings()
    settings.compare.unit_test = bool(args.unit_test)
    for warning in settings.warnings:
        say_warning(f"{args.test_settings}: {warning}")
    expected = load_utterances(args.expected)
    actual = load_utterances(args.actual)
    if len(expected) != len(actual):
        raise InputError(
            f"{args.expected} has {len(expected)} utterances but {args.actual} has "
            f"{len(actual)}; they are matched by position and must be equally long"
        )
    baseline = load_statistics(args.baseline) if args.baseline else None

    skipped = left_out(actual, settings.compare)
    if skipped:
        say(
            f"left out {len(skipped)} of {len(actual)} utterances whose answer is an engine error "
            "(nluTui.error), as nlu-tui's own gates leave them out; "
            "'nluTui: {ownFields: ignore}' counts them as answers without intent"
        )
    decisions = compare(expected, actual, settings.compare)
    stats = Statistics.from_decisions(decisions)
    gates = check_gates(stats, baseline, settings.thresholds)
    out_dir = args.output_folder if args.output_folder is not None else Path.cwd()
    from nlu_tui.reports.metric_spec import nludevops_spec

    write_outputs(out_dir, decisions, stats, nludevops_spec(settings.compare))
    say(console_summary(decisions, stats, baseline, gates), end="")

    if args.unit_test:
        failed = sum(1 for d in decisions if not d.result_kind.passed)
    else:
        failed = sum(1 for g in gates if not g.passed)
    return min(failed, MAX_EXIT)
