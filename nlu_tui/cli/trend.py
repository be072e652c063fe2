"""``nlu-tui trend SUITE [--last N] [--json]``: a suite's F1, precision, recall and error rate
run after run, the cases failing since a run and the flaky ones (:mod:`nlu_tui.trends`)."""

from __future__ import annotations

import argparse
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say, write_json


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``trend`` to the parser."""
    from nlu_tui.defaults import DEFAULT_LAST, MAX_LAST

    p = sub.add_parser(
        "trend",
        help="a suite's figures over its last runs, failing and flaky cases",
        description=(
            "F1, precision, recall and error rate of SUITE's last batch-test runs, oldest "
            "first (a sparkline each and a table), the cases failing now with the run they "
            "began failing in, and the cases that passed and failed within these runs. "
            "A rerun (--rerun-failed) counts with its merged result. Exit codes: 0 shown, "
            "2 bad input or no run of SUITE."
        ),
    )
    p.add_argument("suite", metavar="SUITE", help="a suite file, name or content hash")
    p.add_argument(
        "--last",
        type=int,
        default=DEFAULT_LAST,
        metavar="N",
        help=f"the last N runs (default {DEFAULT_LAST}, at most {MAX_LAST})",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_trend)


def cmd_trend(args: argparse.Namespace) -> int:
    import json

    from nlu_tui.store.runstore import RunStore
    from nlu_tui.trends import compute_trend

    with RunStore() as store:
        trend = compute_trend(store, args.suite, args.last)
    if args.json:
        write_json(json.dumps(trend.to_json(), ensure_ascii=False, indent=2) + "\n")
        return exitcodes.OK
    from nlu_tui.views.trend_text import trend_text

    say(trend_text(trend), end="")
    return exitcodes.OK
