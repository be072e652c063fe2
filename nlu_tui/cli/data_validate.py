"""``nlu-tui data validate [stories]``: Rasa's ``rasa data validate`` on a Rasa project.

The project is read by :mod:`nlu_tui.formats.rasa_project` and judged by
:mod:`nlu_tui.rasa_validate`; this module only parses the flags (Rasa's: ``--domain``,
``--data``, ``--config``, ``--fail-on-warnings``, ``--max-history``) and prints one line per
finding, ``warning:`` or ``error:``, then Rasa's verdict. Exit 1 when the validation fails, as
Rasa; a path that does not exist is bad input (exit 2).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say


def _flags(p: argparse.ArgumentParser, *, defaults: bool) -> None:
    default = (lambda v: v) if defaults else (lambda _v: argparse.SUPPRESS)
    p.add_argument(
        "--domain",
        type=Path,
        default=default(Path("domain.yml")),
        metavar="PATH",
        help="domain file or folder (default domain.yml)",
    )
    p.add_argument(
        "--data",
        type=Path,
        nargs="+",
        default=default([Path("data")]),
        metavar="PATH",
        help="files or folders with NLU data, stories and rules (default data)",
    )
    p.add_argument(
        "-c",
        "--config",
        type=Path,
        default=default(Path("config.yml")),
        metavar="PATH",
        help="the model configuration, checked for its mandatory keys (default config.yml)",
    )
    p.add_argument(
        "--fail-on-warnings",
        action="store_true",
        default=default(False),
        help="fail (exit 1) on warnings too, not only on errors",
    )
    p.add_argument(
        "--max-history",
        type=int,
        default=default(None),
        metavar="N",
        help="turns the story structure check looks back (default: all)",
    )


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``data validate`` and ``data validate stories``."""
    p = sub.add_parser(
        "validate",
        help="check a Rasa project's domain and data as `rasa data validate` does",
        description=(
            "Check a Rasa project (domain, NLU data, stories, rules, config) the way "
            "`rasa data validate` (Rasa 3.6) does: the same warnings and errors, one line "
            "each, and the same exit code (1 when the validation fails)."
        ),
    )
    _flags(p, defaults=True)
    kinds = p.add_subparsers(dest="validate_kind", metavar="KIND")
    stories = kinds.add_parser(
        "stories",
        help="only the story structure check (rasa data validate stories)",
        description="Check only the story structure (conflicting stories), as "
        "`rasa data validate stories` does.",
    )
    _flags(stories, defaults=False)
    stories.set_defaults(handler=cmd_validate, stories_only=True)
    p.set_defaults(handler=cmd_validate, stories_only=False)


def _one_line(message: str) -> str:
    return re.sub(r"\s*\n\s*", " ", message).strip()


def cmd_validate(args: argparse.Namespace) -> int:
    from nlu_tui.errors import InputError
    from nlu_tui.formats.rasa_project import load_project
    from nlu_tui.rasa_validate import validate_project

    if args.max_history is not None and args.max_history < 1:
        raise InputError(
            f"`--max-history {args.max_history}` is not a positive integer",
            field="--max-history",
        )
    if not args.domain.exists():
        raise InputError("no such domain file or folder", path=args.domain, field="--domain")
    for path in args.data:
        if not path.exists():
            raise InputError("no such file or folder", path=path, field="--data")
    config = args.config if args.config.exists() else None
    project = load_project(args.domain, list(args.data), config)
    result = validate_project(
        project,
        fail_on_warnings=args.fail_on_warnings,
        max_history=args.max_history,
        stories_only=args.stories_only,
    )
    for finding in result.findings:
        say(f"{finding.level}: {_one_line(finding.message)}".replace("\n", " "))
    for note in result.notes:
        say(f"note: {note}")
    errors = sum(f.level == "error" for f in result.findings)
    warnings = len(result.findings) - errors
    if result.failed:
        say(f"Project validation completed with errors. ({errors} error(s), {warnings} warning(s))")
        return exitcodes.GATE_FAILED
    say(f"Project validation completed: {errors} error(s), {warnings} warning(s).")
    return exitcodes.OK
