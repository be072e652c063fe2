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
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlu_tui.conversation_model import E2EFile, StepKind
from nlu_tui.dut.commands import (
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


def read_dut(path: Path, spec: CommandSpec, flow_ids: frozenset[str] | None = None) -> DutSuite:
    from nlu_tui.formats.e2e_cases import read_path

    if spec.dsl not in ("auto", *DSL_VERSIONS):
        raise InputError(f"unknown DSL {spec.dsl!r}: use auto, v1, v2 or v3", field="dsl")
    known = {*DEFAULT_CLASS_NAMES, *(n.removesuffix("Command") for n in DEFAULT_CLASS_NAMES)}
    for name in spec.removed:
        if name not in known:
            raise InputError(
                f"unknown default command {name!r} (known: {', '.join(DEFAULT_CLASS_NAMES)})",
                field="remove-default-commands",
            )
    remember_custom(spec.custom)
    source = read_path(path)
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
                steps.append(
                    DutStep("user", step.text, None, step.line, parsed, step.metadata_name)
                )
            elif step.kind is StepKind.BOT:
                steps.append(DutStep("bot", step.text, None, step.line))
            elif step.kind is StepKind.UTTER:
                steps.append(DutStep("bot", None, step.text, step.line))
        cases.append(
            DutCase(
                case.name,
                steps,
                file=case.file,
                line=case.line,
                fixtures=list(case.fixture_names),
                metadata=case.metadata_name,
                dsl=version,
            )
        )
    return DutSuite(cases, source, versions)


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
        out.append(CustomCommand(item["name"], str(command), regex, dsl))
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
