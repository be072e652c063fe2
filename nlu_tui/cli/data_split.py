"""``nlu-tui data split nlu NLU.yml``: Rasa's ``rasa data split nlu``, example for example.

The same seed puts the same examples on each side as Rasa 3.6 does: Rasa's reader identity
(duplicates dropped by fingerprint) and its split walk over a set of messages hashed by their
fingerprint (:func:`nlu_tui.evaluation.split.rasa_split_messages`). Written as
``training_data.yml`` and ``test_data.yml`` (Rasa's names, Rasa 3 YAML, examples in Rasa's
order) into ``--out`` (default ``train_test_split``), with every synonym (declared blocks and
inline ``{"value": ...}`` annotations), regex and lookup table in both files, and the
retrieval-intent responses each part uses in ``nlg_training_data.yml`` / ``nlg_test_data.yml``.
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
    from nlu_tui.evaluation.data import rasa_split_parts, training_yaml
    from nlu_tui.fileio import atomic_write_text
    from nlu_tui.formats.rasa_yaml import load_responses, load_training_data, responses_yaml

    if not args.nlu.exists():
        raise InputError("no such file or folder", path=args.nlu)
    if args.out.exists() and not args.out.is_dir():
        raise InputError("is a file, not a directory", path=args.out, field="--out")
    data = load_training_data(args.nlu)
    responses = load_responses(args.nlu)
    train, test, duplicates = rasa_split_parts(
        data, args.training_fraction, args.random_seed, responses
    )
    suffix = ".yml" if args.nlu.is_dir() else (args.nlu.suffix or ".yml")
    texts: dict[Path, str] = {}
    for name, part in (("training_data", train), ("test_data", test)):
        # Rasa writes the responses of the retrieval intents each part holds into
        # nlg_<name>.yml (``TrainingData.persist_nlg``; an empty file when there are none).
        needed: dict[str, list[dict[str, Any]]] = {}
        for example in part.examples:
            key = f"utter_{example.intent}"
            if "/" in example.intent and key in responses:
                needed.setdefault(key, responses[key])
        texts[args.out / f"{name}{suffix}"] = training_yaml(part)
        texts[args.out / f"nlg_{name}{suffix}"] = responses_yaml(needed)
    for path, text in texts.items():
        atomic_write_text(path, text)
    intents = len({e.intent for e in data.examples})
    total = len(train.examples) + len(test.examples)
    say(
        f"{len(train.examples)} training and {len(test.examples)} test examples ({intents} "
        f"intents) from {total}; seed {args.random_seed if args.random_seed is not None else 'none'}"
    )
    if duplicates:
        say(f"left out {duplicates} duplicate example(s), as Rasa's reader does")
    for path in texts:
        if not path.name.startswith("nlg_") or texts[path]:
            say(f"  {path}")
    return exitcodes.OK
