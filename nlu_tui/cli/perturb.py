"""``nlu-tui perturb SUITE --typos 0.1 --case --punctuation --drop-words 0.05 --seed N -o OUT``:
a robustness copy of a suite, made by seeded perturbations (:mod:`nlu_tui.perturbation`)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say, say_warning

EPILOG = """Each case is perturbed by its own seeded draws (the seed and the case id): the same
seed writes the same bytes. Expectations are kept; entity spans follow the edits, and an entity
whose place in the utterance is unknown is dropped from the perturbed case (a warning names
it). Each new case's `origin:` is the id of its original.
exit codes: 0 written; 2 bad input (a rate outside 0-1, OUT exists without --force): nothing
written."""


def rate(text: str) -> float:
    """A float for --typos/--drop-words; the 0..1 check names the option later."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def add_perturbation_options(p: argparse.ArgumentParser, *, seed_default: int | None) -> None:
    """The perturbation switches, shared by ``perturb`` and ``run --robustness``."""
    p.add_argument("--typos", type=rate, metavar="RATE", help="a typo in this share of words (0-1)")
    p.add_argument("--case", action="store_true", help="lower, upper or title case (per case)")
    p.add_argument(
        "--punctuation",
        action="store_true",
        help="remove the punctuation, or add an ending (? ! . ...) where there is none",
    )
    p.add_argument("--drop-words", type=rate, metavar="RATE", help="drop this share of words (0-1)")
    p.add_argument(
        "--seed",
        type=int,
        default=seed_default,
        metavar="N",
        help=f"the random seed (default {seed_default})",
    )


def perturb_options(args: argparse.Namespace) -> Any:
    """The :class:`~nlu_tui.perturbation.PerturbOptions` of the parsed switches (InputError
    naming the option when a rate is outside 0..1)."""
    from nlu_tui.errors import InputError
    from nlu_tui.perturbation import PerturbOptions

    for name, value in (("--typos", args.typos), ("--drop-words", args.drop_words)):
        if value is not None and not (math.isfinite(value) and 0.0 <= value <= 1.0):
            raise InputError(f"a rate from 0 to 1, not {value}", field=name)
    options = PerturbOptions(
        typos=args.typos or 0.0,
        case=args.case,
        punctuation=args.punctuation,
        drop_words=args.drop_words or 0.0,
        seed=args.seed or 0,
    )
    try:
        options.check()
    except ValueError as exc:
        raise InputError(str(exc), field="--typos") from None
    return options


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "perturb",
        help="write a robustness copy of a suite (typos, case, punctuation, dropped words)",
        description=(
            "Write a copy of SUITE whose utterances are perturbed by seeded, deterministic "
            "typos, case changes, punctuation changes and dropped words, keeping every "
            "expectation. Run it and the original (or use run --robustness) to see the F1 "
            "change per intent."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("suite", metavar="SUITE", type=Path, help="a suite file (any format)")
    add_perturbation_options(p, seed_default=0)
    p.add_argument("-o", "--output", metavar="OUT", type=Path, required=True, help="suite to write")
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    p.set_defaults(handler=cmd_perturb)


def cmd_perturb(args: argparse.Namespace) -> int:
    from nlu_tui.errors import InputError
    from nlu_tui.fileio import atomic_write_bytes
    from nlu_tui.formats.native_writer import dump_suite
    from nlu_tui.perturbation import perturb_suite
    from nlu_tui.runservice import load_suite_file

    options = perturb_options(args)
    out: Path = args.output
    if not out.name.lower().endswith((".suite.yaml", ".suite.yml")):
        raise InputError("the perturbed suite is a native suite: name it *.suite.yaml", path=out)
    if out.exists() and not args.force:
        raise InputError("the file exists; nothing was written (--force overwrites it)", path=out)
    suite = load_suite_file(args.suite, warn=say_warning)
    result = perturb_suite(suite, options)
    atomic_write_bytes(out, dump_suite(result.suite).encode("utf-8"))
    for note in result.notes:
        say_warning(note)
    say(
        f"wrote {out}: {len(result.suite.cases)} cases, {result.changed} changed "
        f"(seed {options.seed})"
    )
    return exitcodes.OK
