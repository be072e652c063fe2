"""``nlu-tui generate SUITE --intent X``: test cases for an intent, written by an LLM.

Prints each proposal with its checks (leakage, duplicates, validation); ``--add`` appends the
clean ones to the suite (``--add-flagged``: the flagged ones too; never one with an error).
The endpoint: ``llm:`` in the user settings (see :mod:`nlu_tui.llm.config`). The interactive
review (reject, edit, "Generate more") is the workbench's Cases tab, "Generate…".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say, say_error, say_warning


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``generate`` to the parser."""
    p = sub.add_parser(
        "generate",
        help="generate test cases for an intent with an LLM",
        description=(
            "Ask the configured OpenAI-compatible LLM endpoint for varied, realistic test "
            "utterances of an intent (from its name, description and training examples), check "
            "each (leakage from the training data, duplicates, validation) and optionally add "
            "them to the suite."
        ),
    )
    p.add_argument("suite", type=Path, metavar="SUITE", help="the suite file")
    p.add_argument("--intent", required=True, metavar="X", help="the intent to write cases for")
    p.add_argument("--count", type=int, default=10, metavar="N", help="how many (default 10)")
    p.add_argument(
        "--engine-training", type=Path, metavar="FILE",
        help="the bot's training data (Rasa NLU YAML); default: the *.nlu.yml beside the suite",
    )  # fmt: skip
    p.add_argument("--rounds", type=int, default=1, metavar="R", help="generate R times")
    p.add_argument("--no-entities", action="store_true", help="ask for utterances only")
    p.add_argument("--add", action="store_true", help="append the clean proposals to the suite")
    p.add_argument("--add-flagged", action="store_true", help="with --add: flagged proposals too")
    p.add_argument("--show-prompt", action="store_true", help="print the prompt sent first")
    p.set_defaults(handler=cmd_generate)


def cmd_generate(args: argparse.Namespace) -> int:
    import asyncio

    from nlu_tui.errors import InputError
    from nlu_tui.formats.native import load_suite
    from nlu_tui.llm import ChatClient, LLMNotConfiguredError, load_llm_config
    from nlu_tui.llm.generate import CaseGenerator, add_to_suite, find_training, load_training

    if not 1 <= args.rounds <= 20:
        raise InputError("must be within 1..20", field="--rounds")
    if not args.suite.is_file():
        raise InputError("no such suite file", path=args.suite)
    suite = load_suite(args.suite)
    training_path = find_training(args.suite, args.engine_training)
    if training_path is None:
        say_warning(
            "no training data found (give --engine-training FILE): the prompt has no training "
            "examples and leakage is not checked"
        )
    training = load_training(training_path)
    if training is not None and args.intent not in training.intents:
        raise InputError(
            f"intent {args.intent!r} is not in the training data", path=training_path,
            field="--intent",
        )  # fmt: skip
    generator = CaseGenerator(
        args.intent, suite, training, count=args.count, with_entities=not args.no_entities
    )
    try:
        config = load_llm_config()
    except LLMNotConfiguredError as exc:
        first, _, rest = str(exc).partition("\n")
        say_error(first)
        say(rest, file=sys.stderr)
        return exitcodes.BAD_INPUT
    if args.show_prompt:
        for message in generator.messages():
            say(f"--- {message['role']} ---\n{message['content']}")
        say("---")

    async def rounds() -> None:
        async with ChatClient(config) as client:
            for _ in range(args.rounds):
                await generator.generate(client)

    asyncio.run(rounds())
    say(
        f"{len(generator.proposals)} proposals for {args.intent} from {config.model} "
        f"({generator.rounds} round(s), {generator.dropped_repeats} repeat(s) dropped, "
        f"prompt tokens {generator.last_prompt_tokens if generator.last_prompt_tokens is not None else '?'})"
    )
    for n, proposal in enumerate(generator.proposals, 1):
        entities = ", ".join(f"{e.name}={e.value}" for e in proposal.entities)
        mark = "✗" if proposal.errors else ("!" if proposal.flags else "✓")
        say(f"{n:>3} {mark} {proposal.utterance}" + (f"   [{entities}]" if entities else ""))
        for note in [*proposal.errors, *proposal.flags]:
            say(f"        {note}")
    if not args.add:
        return exitcodes.OK
    for proposal in generator.proposals:
        proposal.accepted = not proposal.flags or args.add_flagged
    cases = generator.accepted_cases()
    if cases:
        add_to_suite(args.suite, cases)
    say(f"added {len(cases)} case(s) to {args.suite}")
    return exitcodes.OK
