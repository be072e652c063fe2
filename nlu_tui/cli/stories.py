"""``nlu-tui test stories PATH --engine E [--out DIR]``: test stories evaluated as
``rasa test core --stories`` does, against an engine that predicts dialogue actions; writes
``failed_test_stories.yml``, ``stories_with_warnings.yml``, ``story_report.json`` and
``story_confusion_matrix.png`` (not with ``--no-plot``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(kinds: argparse._SubParsersAction[Any]) -> None:
    from nlu_tui.cli.conversation_run import add_common

    p = kinds.add_parser(
        "stories",
        help="evaluate test stories (stories:) as `rasa test core` does",
        description="Evaluate Rasa test stories against a Rasa server: every action the "
        "policy predicts is compared with the story's (a story fails at any wrong action).",
    )
    add_common(p, "a test stories file or a folder of them (default: tests)")
    p.add_argument(
        "--out",
        type=Path,
        default=Path("results"),
        metavar="DIR",
        help="where the result files go (default: results)",
    )
    p.add_argument(
        "--no-plot",
        action="store_true",
        help="draw no story_confusion_matrix.png (as `rasa test core --no-plot`)",
    )
    p.add_argument(
        "--e2e",
        action="store_true",
        help="also score each user message's intent and entities (as `rasa test` does)",
    )
    p.set_defaults(handler=cmd_stories)


def cmd_stories(args: argparse.Namespace) -> int:
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

    run, final = execute(request_from(args, "stories", e2e=args.e2e))
    code, items = finish(run, final, args, "stories")
    if code is not None:
        return code
    stored = run.store.load_items(final.id)
    say(reports.stories_text(stored), end="")
    for path in reports.write_stories_outputs(stored, args.out, plots=not args.no_plot):
        say(f"wrote {path}", file=sys.stderr)
    print_diff(run, final, args)
    return outcome_code(items)
