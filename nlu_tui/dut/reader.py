"""DUT test files: the E2E reader (:mod:`nlu_tui.formats.e2e_cases`) plus the parsing of each
user step's ``commands`` in the file's DSL.

Each command string must parse to at least one command, as in Rasa Pro's
``DialogueUnderstandingTestStep.from_dict``; otherwise the error names the file, the step's
line and the command. The DSL is the ``--dsl`` option, or detected per file (``auto``).
Custom commands are declared in a YAML file (``--additional-commands``)::

    commands:
      - name: CustomCancelFlow          # what --remove-default-commands would name
        command: cancel flow            # its type in the metrics (default: the name)
        regex: "^stop everything$"      # or {v1: ..., v2: ..., v3: ...}
        dsl: "stop everything"          # how it is written back ({1}, {2}: the groups)
      - name: SayHello
        command: say hello
        regex: "^say hello to (\\w+)$"
        dsl: "say hello to {1}"
        fields: [who]                   # the class's fields, one per group: its as_dict keys

A custom command whose ``command`` is a default command's type (``cancel flow``) stands for a
subclass of that default and compares as it, as in Rasa.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui.conversation_model import E2EFile, StepKind
from nlu_tui.dialogue_understanding.commands import (
    DEFAULT_CLASS_NAMES,
    DSL_VERSIONS,
    CommandSet,
    CommandSpec,
    CustomCommand,
    detect_version,
    parse_commands,
    remember_custom,
)
from nlu_tui.dut.model import DutCase, DutStep
from nlu_tui.errors import InputError


@dataclass
class DutSuite:
    cases: list[DutCase]
    source: E2EFile
    versions: dict[str, str]
    """The DSL version of each file."""
    warnings: list[str] = field(default_factory=list)
    """What the run reads otherwise than ``rasa test du`` would (the CLI prints them)."""


def read_dut(path: Path, spec: CommandSpec, flow_ids: frozenset[str] | None = None) -> DutSuite:
    from nlu_tui.formats.e2e_cases import read_path

    if spec.dsl not in ("auto", *DSL_VERSIONS):
        raise InputError(f"unknown DSL {spec.dsl!r}: use auto, v1, v2 or v3", field="dsl")
    warnings = removal_warnings(spec.removed)
    remember_custom(spec.custom)
    source = read_path(path)
    check_dut_schema(source)
    by_file: dict[str, list[str]] = {}
    for case in source.test_cases:
        for step in case.steps:
            by_file.setdefault(case.file, []).extend(step.commands or [])
    versions = {
        f: (detect_version(texts) if spec.dsl == "auto" else spec.dsl)
        for f, texts in by_file.items()
    }
    cases: list[DutCase] = []
    for case in source.test_cases:
        version = versions.get(case.file, "v2")
        commands = CommandSet(
            version=version,
            removed=frozenset(spec.removed),
            custom=tuple(spec.custom),
            flows=flow_ids,
        )
        steps: list[DutStep] = []
        for step in case.steps:
            if step.kind is StepKind.USER:
                parsed = []
                for text in step.commands or []:
                    found = parse_commands(str(text), commands)
                    if not found:
                        raise InputError(
                            f"Failed to parse command '{text}' in DSL {version}: the command "
                            "parser returned nothing (check the syntax, and that the flow "
                            "exists)",
                            path=case.file,
                            line=step.line,
                            field="commands",
                        )
                    parsed.extend(found)
                values: dict[str, Any] = {}
                for name in (case.metadata_name, step.metadata_name):  # Rasa's filter_metadata
                    if name and name in source.metadata:
                        values.update(source.metadata[name].values)
                steps.append(
                    DutStep("user", step.text, None, step.line, parsed, step.metadata_name, values)
                )
            elif step.kind is StepKind.BOT:
                steps.append(DutStep("bot", step.text, None, step.line))
            elif step.kind is StepKind.UTTER:
                steps.append(DutStep("bot", None, step.text, step.line))
        cases.append(
            DutCase(
                case.name,
                steps,
                file=rasa_file_name(path, case.file),
                line=case.line,
                fixtures=list(case.fixture_names),
                metadata=case.metadata_name,
                dsl=version,
            )
        )
    if not any(c.evaluated_steps() for c in cases):
        raise InputError("nothing tested: no user step has commands", path=path, field="commands")
    return DutSuite(cases, source, versions, warnings)


def removal_warnings(removed: list[str]) -> list[str]:
    """Check ``--remove-default-commands``. Rasa Pro's ``_create_default_commands``
    (``generator/command_parser.py``) removes a default command named by its class or its
    ``__name__`` (``CancelFlowCommand``) and silently ignores anything else, so
    ``CancelFlow``, the spelling of Rasa's own docs (seed 003), removes nothing there. Here the
    short spelling is accepted, with a warning; an unknown name is refused."""
    known = {*DEFAULT_CLASS_NAMES, *(n.removesuffix("Command") for n in DEFAULT_CLASS_NAMES)}
    warnings: list[str] = []
    for name in removed:
        if name not in known:
            raise InputError(
                f"unknown default command {name!r} (known: {', '.join(DEFAULT_CLASS_NAMES)})",
                field="remove-default-commands",
            )
        if name not in DEFAULT_CLASS_NAMES:
            warnings.append(
                f"--remove-default-commands {name}: removed here, but Rasa Pro 3.21 matches the "
                f"class name only and removes nothing for {name!r}; write {name}Command"
            )
    return warnings


def rasa_file_name(argument: Path, file: str) -> str:
    """How ``rasa test du`` names a test file in its report (``names_of_*_tests``,
    ``failed_test_steps[].file``): ``rasa.shared.data.get_data_files`` gives
    ``os.path.abspath`` of a file argument and ``os.path.join(root, name)`` (``os.walk`` of
    the folder as given) for the files of a folder argument."""
    if argument.is_dir():
        return file
    return os.path.abspath(file)


def check_dut_schema(source: E2EFile) -> None:
    """Refuse what Rasa Pro's DUT schema (``dialogue_understanding_test/du_test_schema.yml``)
    refuses: a step is ``user`` with a required ``commands`` list (and an optional
    ``metadata``), ``utter`` or ``bot``; nothing else. Checked before anything is parsed, so an
    E2E test folder (user steps without commands) is told apart from a DUT folder."""
    user_steps = [(c, s) for c in source.test_cases for s in c.steps if s.kind is StepKind.USER]
    if user_steps and all(s.commands is None for _, s in user_steps):
        first_case, first = user_steps[0]
        raise InputError(
            "nothing tested: no user step has commands (an E2E test file? convert it with "
            "`nlu-tui test du convert-e2e`)",
            path=first_case.file,
            line=first.line,
            field="commands",
        )
    for case in source.test_cases:
        for step in case.steps:
            if step.kind in (StepKind.SLOT_WAS_SET, StepKind.SLOT_WAS_NOT_SET):
                raise InputError(
                    f"'{step.kind.value}' steps are E2E steps: a DUT step is user, utter or bot",
                    path=case.file,
                    line=step.line,
                    field=step.kind.value,
                )
            if step.kind is not StepKind.USER:
                continue
            e2e_keys = [*step.extra]
            if step.assertions is not None:  # read by the E2E reader into the step
                e2e_keys.insert(0, "assertions")
            if step.order_written:
                e2e_keys.insert(0, "assertion_order_enabled")
            for key in e2e_keys:
                raise InputError(
                    f"'{key}' is an E2E key: a DUT user step has commands and metadata only",
                    path=case.file,
                    line=step.line,
                    field=key,
                )
            if step.commands is None:
                raise InputError(
                    "a DUT user step needs 'commands:' (Rasa's DUT schema requires it)",
                    path=case.file,
                    line=step.line,
                    field="commands",
                )
            if not step.commands:
                raise InputError(
                    "'commands:' is empty: list the commands this user step expects",
                    path=case.file,
                    line=step.line,
                    field="commands",
                )


def load_custom_commands(path: Path) -> list[CustomCommand]:
    from nlu_tui.formats import yaml_loader

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read custom commands: {exc.strerror}", path) from None
    data = yaml_loader.load(text, path)
    items = data.get("commands") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise InputError("expected a mapping with a 'commands:' list", path, field="commands")
    out: list[CustomCommand] = []
    for i, item in enumerate(items):
        where = f"commands[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise InputError("each custom command needs a 'name'", path, field=f"{where}.name")
        regex = _per_version(item.get("regex"), path, f"{where}.regex")
        dsl = _per_version(item.get("dsl"), path, f"{where}.dsl")
        import re

        for version, pattern in regex.items():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise InputError(
                    f"not a regular expression: {exc}", path, field=f"{where}.regex.{version}"
                ) from None
        command = item.get("command") or item["name"]
        fields = item.get("fields") or []
        if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
            raise InputError("must be a list of field names", path, field=f"{where}.fields")
        out.append(CustomCommand(item["name"], str(command), regex, dsl, tuple(fields)))
    return out


def _per_version(value: Any, path: Path, field: str) -> dict[str, str]:
    if isinstance(value, str):
        return dict.fromkeys(DSL_VERSIONS, value)
    if (
        isinstance(value, dict)
        and value
        and all(k in DSL_VERSIONS and isinstance(v, str) for k, v in value.items())
    ):
        return {str(k): str(v) for k, v in value.items()}
    raise InputError("must be a string or a mapping of v1/v2/v3 to strings", path, field=field)
