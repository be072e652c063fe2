"""``nlu-tui data split nlu NLU.yml``: Rasa's ``rasa data split nlu``.

Stratified by intent with Rasa's own procedure (:func:`nlu_tui.evaluation.split.rasa_split`),
written as ``training_data.yml`` and ``test_data.yml`` (Rasa's names, Rasa 3 YAML) into
``--out`` (default ``train_test_split``). Synonyms, regexes and lookup tables go into both
files, as Rasa writes them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``data split nlu``."""
    split = sub.add_parser(
        "split",
        help="split NLU data into training and test data (rasa data split nlu)",
        description="Split training data the way `rasa data split` does.",
    )
    kinds = split.add_subparsers(dest="split_kind", metavar="KIND")
    p = kinds.add_parser(
        "nlu",
        help="stratified split of NLU data into training_data.yml and test_data.yml",
        description=(
            "Split Rasa NLU data into training_data.yml and test_data.yml, keeping each "
            "intent's share (Rasa's stratified procedure); synonyms, regexes and lookups are "
            "kept."
        ),
    )
    p.add_argument("nlu", type=Path, metavar="NLU", help="a Rasa NLU YAML file or folder")
    p.add_argument(
        "--training-fraction",
        type=float,
        default=0.8,
        metavar="F",
        help="share of each intent's examples in the training data (default 0.8)",
    )
    p.add_argument(
        "--random-seed", type=int, metavar="N", help="seed for the same split every time"
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("train_test_split"),
        metavar="DIR",
        help="directory for the two files (default train_test_split)",
    )
    p.set_defaults(handler=cmd_split_nlu)
    split.set_defaults(handler=lambda _args: _help(split))


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return exitcodes.BAD_INPUT


def cmd_split_nlu(args: argparse.Namespace) -> int:
    from nlu_tui.errors import InputError
    from nlu_tui.evaluation.data import subset, training_yaml, without_duplicates
    from nlu_tui.evaluation.split import rasa_split
    from nlu_tui.fileio import atomic_write_text
    from nlu_tui.formats.rasa_yaml import load_training_data

    if not args.nlu.exists():
        raise InputError("no such file or folder", path=args.nlu)
    if args.out.exists() and not args.out.is_dir():
        raise InputError("is a file, not a directory", path=args.out, field="--out")
    data, duplicates = without_duplicates(load_training_data(args.nlu))
    labels = [e.intent for e in data.examples]
    train, test = rasa_split(labels, args.training_fraction, args.random_seed)
    suffix = ".yml" if args.nlu.is_dir() else (args.nlu.suffix or ".yml")
    texts = {
        args.out / f"training_data{suffix}": training_yaml(subset(data, train)),
        args.out / f"test_data{suffix}": training_yaml(subset(data, test)),
    }
    for path, text in texts.items():
        atomic_write_text(path, text)
    intents = len(set(labels))
    say(
        f"{len(train)} training and {len(test)} test examples ({intents} intents) from "
        f"{len(labels)}; seed {args.random_seed if args.random_seed is not None else 'none'}"
    )
    if duplicates:
        say(f"left out {duplicates} duplicate example(s), as Rasa's reader does")
    for path in texts:
        say(f"  {path}")
    return exitcodes.OK
