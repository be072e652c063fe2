"""``nlu-tui generate SUITE --intent X`` / ``nlu-tui generate DUT_FILE --flow F``: test cases
written by an LLM, reviewed, then added.

On a terminal the proposals are reviewed interactively (accept, reject, edit, "generate more"
without repeats, then add); ``--yes`` (or stdin that is not a terminal, as in CI) asks nothing:
the proposals and their checks are printed and ``--yes`` adds the clean ones
(``--add-flagged``: the flagged ones too; never one with an error). The endpoint: ``llm:`` in
the user settings (see :mod:`nlu_tui.engines.llm_config`). The work is done by
:class:`nlu_tui.llm.generate.CaseGenerator` and
:class:`nlu_tui.llm.generate_flow.FlowCaseGenerator`, as in the workbench's "Generate…".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say, say_error, say_warning

REVIEW_HELP = (
    "a N… accept · r N… reject (N, N-M or all) · e N edit · g generate more · "
    "l list · s add and save · q quit without adding"
)


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``generate`` to the parser."""
    p = sub.add_parser(
        "generate",
        help="generate test cases for an intent (or DUT test cases for a flow) with an LLM",
        description=(
            "Ask the configured OpenAI-compatible LLM endpoint for varied, realistic test "
            "utterances of an intent (from its name, description and training examples), or for "
            "DUT test cases that start a flow (user messages with their expected commands), "
            "check each (leakage from the training data, duplicates, validation), review them "
            "on a terminal and add them to the suite."
        ),
    )
    p.add_argument(
        "suite", type=Path, metavar="SUITE",
        help="the suite file (with --flow: the DUT test file, created when missing)",
    )  # fmt: skip
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--intent", metavar="X", help="the intent to write cases for")
    target.add_argument("--flow", metavar="NAME", help="the flow to write DUT test cases for")
    p.add_argument("--count", type=int, default=10, metavar="N", help="how many (default 10)")
    p.add_argument(
        "--engine-training", type=Path, metavar="FILE",
        help="the bot's training data (Rasa NLU YAML); default: the *.nlu.yml beside the suite",
    )  # fmt: skip
    p.add_argument(
        "--flows", type=Path, metavar="FILE",
        help="with --flow: the flows file (default: as `test du` finds it, <stem>.flows.yml beside)",
    )  # fmt: skip
    p.add_argument(
        "--conversation", action="store_true",
        help="with --flow: go on with the bot asking each open slot and the user answering",
    )  # fmt: skip
    p.add_argument("--rounds", type=int, default=1, metavar="R", help="generate R times first")
    p.add_argument("--no-entities", action="store_true", help="ask for utterances only")
    p.add_argument(
        "--yes", "--add", dest="yes", action="store_true",
        help="no review: add the clean proposals (without a terminal: print them, add nothing)",
    )  # fmt: skip
    p.add_argument("--add-flagged", action="store_true", help="with --yes: flagged proposals too")
    p.add_argument("--show-prompt", action="store_true", help="print the prompt sent first")
    p.set_defaults(handler=cmd_generate)


def _session(args: argparse.Namespace) -> tuple[Any, str]:
    """The review session and a label of what is written to."""
    from nlu_tui.errors import InputError
    from nlu_tui.llm.generate import find_training, load_training

    training_path = find_training(args.suite, args.engine_training)
    if training_path is None:
        say_warning(
            "no training data found (give --engine-training FILE): the prompt has no training "
            "examples and leakage is not checked"
        )
    training = load_training(training_path)
    if args.flow is not None:
        from nlu_tui.dialogue_understanding.flows import load_flows
        from nlu_tui.llm.generate_flow import FlowCaseGenerator, find_flows_for, load_dut_file

        flows_path = find_flows_for(args.suite, args.flows, training_path)
        if flows_path is None:
            raise InputError(
                "no flows file found: give --flows FILE (or put <stem>.flows.yml beside)",
                path=args.suite,
                field="--flows",
            )
        flows = load_flows(flows_path)
        dut = load_dut_file(args.suite)
        session = FlowCaseGenerator(
            args.flow, flows, dut, training, count=args.count, conversation=args.conversation
        )
        return session, f"flow {session.flow.name}"
    from nlu_tui.formats.native import load_suite
    from nlu_tui.llm.generate import CaseGenerator

    if not args.suite.is_file():
        raise InputError("no such suite file", path=args.suite)
    suite = load_suite(args.suite)
    if training is not None and args.intent not in training.intents:
        raise InputError(
            f"intent {args.intent!r} is not in the training data", path=training_path,
            field="--intent",
        )  # fmt: skip
    generator = CaseGenerator(
        args.intent, suite, training, count=args.count, with_entities=not args.no_entities
    )
    return generator, generator.intent


def cmd_generate(args: argparse.Namespace) -> int:
    from nlu_tui.errors import InputError
    from nlu_tui.llm import LLMNotConfiguredError, load_llm_config

    if not 1 <= args.rounds <= 20:
        raise InputError("must be within 1..20", field="--rounds")
    if args.flow is None and (args.flows is not None or args.conversation):
        raise InputError("only with --flow", field="--flows" if args.flows else "--conversation")
    session, label = _session(args)
    try:
        config = load_llm_config()
    except LLMNotConfiguredError as exc:
        first, _, rest = str(exc).partition("\n")
        say_error(first)
        say(rest, file=sys.stderr)
        return exitcodes.BAD_INPUT
    if args.show_prompt:
        for message in session.messages():
            say(f"--- {message['role']} ---\n{message['content']}")
        say("---")
    interactive = not args.yes and sys.stdin.isatty()
    # The first rounds run in an event loop; the review reads the terminal outside of it
    # (Ctrl+C at a prompt inside a running loop only cancels the task at its next await,
    # so the prompt went on waiting), and "generate more" runs one round in a loop of its own.
    import asyncio  # here, not at the top: building the parser (`nlu-tui --help`) needs none

    asyncio.run(_rounds(session, config, args.rounds))
    say(
        f"{len(session.proposals)} proposals for {label} from {config.model} "
        f"({session.rounds} round(s), {session.dropped_repeats} repeat(s) dropped, "
        f"prompt tokens {session.last_prompt_tokens if session.last_prompt_tokens is not None else '?'})"
    )
    if args.yes:
        for proposal in session.proposals:
            proposal.accepted = not proposal.errors and (not proposal.flags or args.add_flagged)
    _list(session, range(len(session.proposals)))
    if interactive:
        return _review(args, session, config)
    if not args.yes:
        if session.proposals:
            say("nothing added (review on a terminal, or --yes to add the clean proposals)")
        return exitcodes.OK
    return _add(args, session)


async def _rounds(session: Any, config: Any, rounds: int) -> list[Any]:
    """``rounds`` rounds of generation with one client; the new proposals."""
    from nlu_tui.llm import ChatClient

    fresh: list[Any] = []
    async with ChatClient(config) as client:
        for _ in range(rounds):
            fresh += await session.generate(client)
    return fresh


def _line(n: int, proposal: Any) -> str:
    mark = "✓" if proposal.accepted else "✗"
    check = "⛔" if proposal.errors else ("!" if proposal.flags else " ")
    summary = proposal.summary()
    return f"{n:>3} {mark}{check} {proposal.utterance}" + (f"   [{summary}]" if summary else "")


def _list(session: Any, indices: Any) -> None:
    for index in indices:
        proposal = session.proposals[index]
        say(_line(index + 1, proposal))
        for more in proposal.more_lines():
            say(f"          {more}")
        for note in [*(f"⛔ {e}" for e in proposal.errors), *(f"! {f}" for f in proposal.flags)]:
            say(f"          {note}")


def _status(session: Any) -> str:
    to_add = sum(1 for p in session.proposals if p.addable)
    return f"{len(session.proposals)} shown, {to_add} to add"


def _numbers(words: list[str], total: int) -> list[int]:
    """``2 4 6-8 all`` as 0-based indices; ValueError naming a bad one."""
    out: list[int] = []
    for word in words:
        if word == "all":
            out.extend(range(total))
            continue
        low, dash, high = word.partition("-")
        try:
            first, last = int(low), int(high if dash else low)
        except ValueError:
            raise ValueError(f"no proposal {word} (N, N-M or all; 1..{total})") from None
        if not 1 <= first <= last <= total:
            raise ValueError(f"no proposal {word} (1..{total})")
        out.extend(range(first - 1, last))
    if not out:
        raise ValueError("give the proposal numbers")
    return list(dict.fromkeys(out))


def _ask(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


def _review(args: argparse.Namespace, session: Any, config: Any) -> int:
    say(REVIEW_HELP)
    while True:
        answer = _ask(f"review ({_status(session)})> ")
        if answer is None or answer.strip().lower() in ("q", "quit"):
            say("nothing added")
            return exitcodes.OK
        command, *words = answer.split() or [""]
        command = command.lower()
        try:
            if command in ("a", "r"):
                picked = _numbers(words, len(session.proposals))
                for index in picked:
                    session.set_accepted(index, command == "a")
                _list(session, picked)
            elif command == "e":
                (index,) = _numbers(words[:1], len(session.proposals))
                text = _ask(f"new text for {index + 1} (empty keeps it): ")
                if text and text.strip():
                    session.edit(index, text)
                _list(session, [index])
            elif command == "g":
                say(f"asking {config.model}…")
                import asyncio

                fresh = asyncio.run(_rounds(session, config, 1))
                start = len(session.proposals) - len(fresh)
                say(f"{len(fresh)} new proposal(s)")
                _list(session, range(start, len(session.proposals)))
            elif command == "l":
                _list(session, range(len(session.proposals)))
            elif command in ("s", "add", "save"):
                return _add(args, session)
            elif command in ("", "?", "h", "help"):
                say(REVIEW_HELP)
            else:
                say(f"unknown command {command!r}: {REVIEW_HELP}")
        except ValueError as exc:
            say(f"{exc}")
        except Exception as exc:  # an LLM error during "generate more": keep the review
            from nlu_tui.llm import LLMError

            if not isinstance(exc, LLMError):
                raise
            say_error(exc)


def _add(args: argparse.Namespace, session: Any) -> int:
    if args.flow is not None:
        from nlu_tui.llm.generate_flow import add_to_dut_file

        dut_cases = session.accepted_cases()
        kept = True
        if dut_cases:
            kept = add_to_dut_file(args.suite, dut_cases)
        say(f"added {len(dut_cases)} DUT test case(s) to {args.suite}")
        if not kept:
            say_warning(f"{args.suite} was rewritten (its comments are not kept)")
        return exitcodes.OK
    from nlu_tui.llm.generate import add_to_suite

    cases = session.accepted_cases()
    if cases:
        add_to_suite(args.suite, cases)
    say(f"added {len(cases)} case(s) to {args.suite}")
    return exitcodes.OK
