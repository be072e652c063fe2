"""``nlu-tui test e2e PATH --engine E``: Rasa Pro's end-to-end test cases, run against a
conversation engine (``rasa test e2e``): pytest-style output, ``-o`` to ``e2e_results.yml``,
``--e2e-results`` to Rasa Pro's ``e2e_results_passed.yml`` / ``e2e_results_failed.yml``,
``--fail-fast``; exit 0 all passed, 1 a test case failed, 2 bad input, 3 engine failure."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

DEFAULT_RESULTS = Path("e2e_results.yml")


def register(kinds: argparse._SubParsersAction[Any]) -> None:
    from nlu_tui.cli.conversation_run import add_common

    p = kinds.add_parser(
        "e2e",
        help="run E2E test cases (test_cases:) against a conversation engine",
        description="Run Rasa Pro end-to-end test cases against an engine that converses "
        "(e.g. --engine rasa:http://localhost:5005 for `rasa run --enable-api`).",
    )
    add_common(p, "an E2E test file or a folder of them (default: tests/e2e_test_cases.yml)")
    p.add_argument("--fail-fast", action="store_true", help="stop at the first failed test case")
    p.add_argument(
        "-o",
        "--output",
        nargs="?",
        const=DEFAULT_RESULTS,
        type=Path,
        metavar="FILE",
        help=f"write the results as YAML (default file: {DEFAULT_RESULTS})",
    )
    p.add_argument(
        "--e2e-results",
        type=Path,
        metavar="PATH",
        help="write e2e_results_passed.yml and e2e_results_failed.yml as Rasa Pro does "
        "(PATH a folder, or a file name whose stem names both)",
    )
    p.add_argument(
        "--coverage-report",
        action="store_true",
        help="write flow-step coverage and the command histogram (as rasa test e2e)",
    )
    p.add_argument(
        "--coverage-output-path",
        type=Path,
        default=Path("e2e_coverage_results"),
        metavar="DIR",
        help="folder of the coverage files (default e2e_coverage_results)",
    )
    p.add_argument(
        "--flows",
        type=Path,
        metavar="PATH",
        help="the assistant's flows file or folder, for --coverage-report (default: data/)",
    )
    p.set_defaults(handler=cmd_e2e)


def cmd_e2e(args: argparse.Namespace) -> int:
    import sys

    from nlu_tui.cli.conversation_run import (
        execute,
        finish,
        outcome_code,
        print_diff,
        request_from,
    )
    from nlu_tui.cli.say import say
    from nlu_tui.conversation import reports
    from nlu_tui.fileio import atomic_write_text

    graph = None
    if args.coverage_report:
        from nlu_tui.cli import exitcodes
        from nlu_tui.cli.say import say_error
        from nlu_tui.coverage_reports import default_flows, prepare
        from nlu_tui.errors import InputError

        try:
            graph = prepare(args.coverage_output_path, default_flows(args.flows))
        except InputError as exc:
            say_error(exc)
            return exitcodes.BAD_INPUT
    run, final = execute(request_from(args, "e2e", fail_fast=args.fail_fast))
    code, items = finish(run, final, args, "e2e")
    if code is not None:
        return code
    stored = run.store.load_items(final.id)
    say(reports.e2e_text(stored, fail_fast=args.fail_fast), end="")
    if graph is not None:
        tests = args.path or Path(final.suite_path or "")
        _coverage(run, final.id, stored, graph, args.coverage_output_path, tests)
    if args.output is not None:
        atomic_write_text(args.output, reports.e2e_results_yaml(stored))
        say(f"wrote {args.output}", file=sys.stderr)
    if args.e2e_results is not None:
        for written in reports.write_split_results(stored, args.e2e_results):
            say(f"wrote {written}", file=sys.stderr)
    print_diff(run, final, args)
    return outcome_code(items)


def _coverage(run: Any, run_id: str, stored: Any, graph: Any, output: Path, tests: Path) -> None:
    """``--coverage-report``: the trackers of the finished test cases, then the files, then
    the test cases of each status (as ``rasa test e2e --coverage-report``)."""
    import asyncio

    from nlu_tui.cli.say import say
    from nlu_tui.coverage_reports import (
        e2e_coverage,
        keep_with_run,
        summary_lines,
        write_status_cases,
    )
    from nlu_tui.formats.e2e_cases import read_path
    from nlu_tui.textsafe import inert

    done = asyncio.run(e2e_coverage(run.engine, stored, graph, output))
    keep_with_run(run.store, run_id, done)
    for line in summary_lines(done):
        say(inert(line))
    if tests.exists():
        write_status_cases(read_path(tests), stored, tests, output)
    say(f"Coverage data and result is written to {output}.")
