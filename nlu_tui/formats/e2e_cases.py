"""Rasa Pro end-to-end test cases (``test_cases:``, ``fixtures:``, ``metadata:``,
``stub_custom_actions:``), read into :mod:`nlu_tui.conversation_model` and written back.

The shapes follow Rasa Pro's schema (``rasa/e2e_test/schema/e2e_test_schema.yml``) and
``TestCase.from_dict``: a step is one of ``user``, ``bot``, ``utter``, ``slot_was_set`` or
``slot_was_not_set`` (a list of names or ``name: value`` pairs, one step per slot); a user step
may name ``metadata`` and carry Rasa Pro's ``assertions:`` (with ``assertion_order_enabled``,
read by :mod:`nlu_tui.formats.e2e_assertions`); DUT files add ``commands`` to user steps. Every error names the file,
the line and the field; nothing is half-read. Native conversation suites use this format.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.conversation_model import (
    E2EFile,
    E2EStep,
    E2ETestCase,
    Fixture,
    MetadataEntry,
    StepKind,
)
from nlu_tui.errors import InputError
from nlu_tui.fileio import atomic_write_text
from nlu_tui.formats import e2e_assertions, yaml_loader
from nlu_tui.formats import yaml_nodes as yn
from nlu_tui.formats.conversation_limits import max_cases, max_steps
from nlu_tui.formats.yaml_files import joined_digest, mapping_root, yaml_files
from nlu_tui.model import digest_bytes

NAME = "e2e"
EXTENSIONS = (".yml", ".yaml")
DESCRIPTION = "Rasa Pro end-to-end test cases (test_cases: with user/bot/utter/slot steps)"

TOP_KEYS = ("test_cases", "fixtures", "metadata", "stub_custom_actions")
CASE_KEYS = ("test_case", "steps", "fixtures", "metadata")
STEP_KINDS = tuple(k.value for k in StepKind)
STEP_EXTRA_KEYS = ("metadata", "commands", "assertions", "assertion_order_enabled")
"""Keys a step may carry besides its kind (``assertions``: :mod:`e2e_assertions`)."""

_NAME = re.compile(r"^[a-zA-Z_]+[a-zA-Z0-9_\-]*$")
"""Rasa's pattern for fixture names (metadata names forbid ``-``)."""
_METADATA_NAME = re.compile(r"^[a-zA-Z_]+[a-zA-Z0-9_]*$")
"""Rasa's pattern for metadata names (``e2e_test_schema.yml``)."""
_TOP_LEVEL = re.compile(r"^test_cases\s*:", re.MULTILINE)


def sniff(path: Path, head: str) -> bool:
    """An E2E file has a top-level ``test_cases:`` key."""
    del path
    return _TOP_LEVEL.search(head) is not None


def test_files(path: Path) -> list[Path]:
    """The E2E files of ``path``: the file itself, or the YAML files under a directory that
    have ``test_cases:`` (sorted, as Rasa discovers them)."""
    return yaml_files(path, lambda head: sniff(path, head))


def read_path(path: Path) -> E2EFile:
    """Every test case under ``path`` (a file or a directory); fixtures and metadata are
    per file, as in Rasa (a test case sees those of its own file)."""
    files = test_files(path)
    if not files:
        raise InputError("no E2E test files (YAML with a 'test_cases:' key) found", path=path)
    return merge([read(f) for f in files])


def merge(parts: Sequence[E2EFile]) -> E2EFile:
    """One E2EFile of several; a fixture or metadata name defined twice must be the same."""
    if len(parts) == 1:
        return parts[0]
    out = E2EFile()
    digests = []
    for part in parts:
        out.test_cases.extend(part.test_cases)
        out.paths.extend(part.paths)
        digests.append(part.digest)
        for target, source, what in (
            (out.fixtures, part.fixtures, "fixture"),
            (out.metadata, part.metadata, "metadata"),
        ):
            for key, value in source.items():
                old = target.get(key)
                if old is not None and old != value:
                    raise InputError(
                        f"{what} '{key}' is defined differently in {part.paths[0]} and "
                        "another file",
                        path=part.paths[0],
                        line=getattr(value, "line", None),
                        field="fixtures" if what == "fixture" else "metadata",
                    )
                target[key] = value  # type: ignore[assignment]
        out.stub_custom_actions.update(part.stub_custom_actions)
    out.digest = joined_digest(digests)
    return out


def read(path: Path, shown: str | None = None) -> E2EFile:
    """One E2E file; ``shown`` is how test cases name their file (default: ``path`` as given)."""
    root, raw = yn.read_root_and_bytes(path)
    return _from_root(root, path, shown, digest_bytes(raw))


def parse_text(text: str, path: Path, shown: str | None = None) -> E2EFile:
    """The E2E file ``path`` would be if it held ``text`` (a save checks its result with it);
    the digest is that of ``text`` as UTF-8."""
    root = yaml_loader.compose(text, path, prefix="invalid YAML")
    return _from_root(root, path, shown, digest_bytes(text.encode("utf-8")))


def _from_root(root: yaml.Node | None, path: Path, shown: str | None, digest: str) -> E2EFile:
    file_name = shown if shown is not None else str(path)
    result = E2EFile(paths=[file_name], digest=digest)
    root = mapping_root(
        root,
        path,
        empty="empty file: no 'test_cases:' key",
        not_mapping="an E2E test file is a mapping with a 'test_cases:' key",
    )
    cases_node: yaml.Node | None = None
    for key, key_node, value in yn.pairs(root, path, "test_cases"):
        if key == "test_cases":
            cases_node = value
        elif key == "fixtures":
            result.fixtures = _fixtures(value, path)
        elif key == "metadata":
            result.metadata = _metadata(value, path)
        elif key == "stub_custom_actions":
            result.stub_custom_actions = e2e_assertions.read_stubs(value, path)
        else:
            raise InputError(
                f"unknown top-level key '{key}' (expected one of {', '.join(TOP_KEYS)})",
                path=path,
                line=yn.line_of(key_node),
                field=key,
            )
    if cases_node is None:
        raise InputError("no 'test_cases:' key", path=path, field="test_cases")
    for item in yn.bounded_items(cases_node, path, "test_cases", max_cases(), "the file"):
        result.test_cases.append(_test_case(item, path, file_name, result))
    return result


def _fixtures(node: yaml.Node, path: Path) -> dict[str, Fixture]:
    out: dict[str, Fixture] = {}
    for item in yn.items(node, path, "fixtures"):
        entries = list(yn.pairs(item, path, "fixtures"))
        if len(entries) != 1:
            raise InputError(
                "a fixture is one 'name:' with a list of slots under it",
                path=path,
                line=yn.line_of(item),
                field="fixtures",
            )
        name, key_node, slots_node = entries[0]
        if not _NAME.match(name):
            raise InputError(
                f"fixture name {name!r} must be letters, digits, '_' or '-' (not first)",
                path=path,
                line=yn.line_of(key_node),
                field="fixtures",
            )
        if name in out:
            raise InputError(
                f"fixture '{name}' is defined twice",
                path=path,
                line=yn.line_of(key_node),
                field="fixtures",
            )
        slots: dict[str, Any] = {}
        for slot_item in yn.items(slots_node, path, f"fixtures.{name}"):
            for slot, _, value in yn.pairs(slot_item, path, f"fixtures.{name}"):
                slots[slot] = yn.to_python(value, path, 5)
        out[name] = Fixture(name=name, slots=slots, line=yn.line_of(key_node))
    return out


def _metadata(node: yaml.Node, path: Path) -> dict[str, MetadataEntry]:
    out: dict[str, MetadataEntry] = {}
    for item in yn.items(node, path, "metadata"):
        entries = list(yn.pairs(item, path, "metadata"))
        if len(entries) != 1:
            raise InputError(
                "a metadata entry is one 'name:' with a mapping under it",
                path=path,
                line=yn.line_of(item),
                field="metadata",
            )
        name, key_node, values_node = entries[0]
        if not _METADATA_NAME.match(name):
            raise InputError(
                f"metadata name {name!r} must be letters, digits or '_' (not a digit first)",
                path=path,
                line=yn.line_of(key_node),
                field="metadata",
            )
        values = yn.to_python(values_node, path, 3)
        if not isinstance(values, dict):
            raise InputError(
                f"metadata '{name}' must be a mapping of keys to values",
                path=path,
                line=yn.line_of(values_node),
                field=f"metadata.{name}",
            )
        if name in out:
            raise InputError(
                f"metadata '{name}' is defined twice",
                path=path,
                line=yn.line_of(key_node),
                field="metadata",
            )
        out[name] = MetadataEntry(name=name, values=values, line=yn.line_of(key_node))
    return out


def _test_case(node: yaml.Node, path: Path, file_name: str, file: E2EFile) -> E2ETestCase:
    line = yn.line_of(node)
    name: str | None = None
    steps_node: yaml.Node | None = None
    case = E2ETestCase(name="", steps=[], file=file_name, line=line)
    for key, key_node, value in yn.pairs(node, path, "test_cases"):
        if key == "test_case":
            name = yn.text(value, path, "test_case").strip()
        elif key == "steps":
            steps_node = value
        elif key == "fixtures":
            for item in yn.items(value, path, "fixtures"):
                fixture = yn.name(item, path, "fixtures")
                if fixture not in file.fixtures:
                    raise InputError(
                        f"fixture '{fixture}' is not defined in this file's 'fixtures:'",
                        path=path,
                        line=yn.line_of(item),
                        field="fixtures",
                    )
                case.fixture_names.append(fixture)
        elif key == "metadata":
            case.metadata_name = _metadata_ref(value, path, file)
        else:
            raise InputError(
                f"unknown key '{key}' in a test case (expected {', '.join(CASE_KEYS)})",
                path=path,
                line=yn.line_of(key_node),
                field=key,
            )
    if not name:
        raise InputError(
            "a test case needs a 'test_case:' name", path=path, line=line, field="test_case"
        )
    case.name = name
    if steps_node is None:
        raise InputError(f"test case '{name}' has no 'steps:'", path=path, line=line, field="steps")
    what = f"test case '{name}'"
    for step_node in yn.bounded_items(steps_node, path, "steps", max_steps(), what):
        case.steps.extend(_steps(step_node, path, file))
    return case


def _metadata_ref(node: yaml.Node, path: Path, file: E2EFile) -> str:
    name = yn.name(node, path, "metadata")
    if name not in file.metadata:
        raise InputError(
            f"metadata '{name}' is not defined in this file's 'metadata:'",
            path=path,
            line=yn.line_of(node),
            field="metadata",
        )
    return name


def _steps(node: yaml.Node, path: Path, file: E2EFile) -> list[E2EStep]:
    """One written step as steps: a ``slot_was_set`` list gives one step per slot."""
    line = yn.line_of(node)
    kind: StepKind | None = None
    kind_node: yaml.Node | None = None
    metadata_name: str | None = None
    commands: list[str] | None = None
    extra: dict[str, Any] = {}
    assertions = None
    order: bool | None = None
    for key, key_node, value in yn.pairs(node, path, "steps"):
        if key in STEP_KINDS:
            if kind is not None:
                raise InputError(
                    f"a step has both '{kind.value}' and '{key}'; use one step for each",
                    path=path,
                    line=yn.line_of(key_node),
                    field=key,
                )
            kind, kind_node = StepKind(key), value
        elif key == "metadata":
            metadata_name = _metadata_ref(value, path, file)
        elif key == "commands":
            commands = [
                yn.text(item, path, "commands") for item in yn.items(value, path, "commands")
            ]
        elif key == "assertions":
            assertions = e2e_assertions.read_assertions(value, path)
        elif key == "assertion_order_enabled":
            order = e2e_assertions.read_order_flag(value, path)
        else:
            raise InputError(
                f"unknown step key '{key}' (a step is one of {', '.join(STEP_KINDS)})",
                path=path,
                line=yn.line_of(key_node),
                field=key,
            )
    if kind is None or kind_node is None:
        raise InputError(
            f"a step needs one of {', '.join(STEP_KINDS)}", path=path, line=line, field="steps"
        )
    user_only = {
        "metadata": bool(metadata_name),
        "commands": commands is not None,
        "assertions": assertions is not None,
        "assertion_order_enabled": order is not None,
    }
    if kind is not StepKind.USER and any(user_only.values()):
        what = next(k for k, present in user_only.items() if present)
        raise InputError(
            f"'{what}' belongs to a user step, not a '{kind.value}' step",
            path=path,
            line=line,
            field=what,
        )
    if order is not None and assertions is None:
        raise InputError(
            "'assertion_order_enabled' needs an 'assertions:' list in the same user step",
            path=path,
            line=line,
            field="assertion_order_enabled",
        )
    if kind in (StepKind.SLOT_WAS_SET, StepKind.SLOT_WAS_NOT_SET):
        return list(_slot_steps(kind, kind_node, path, line))
    if kind is StepKind.UTTER:
        return [E2EStep(kind=kind, text=yn.name(kind_node, path, kind.value), line=line)]
    text = yn.text(kind_node, path, kind.value).strip()
    if not text and kind is StepKind.BOT:
        raise InputError("'bot' text is empty", path=path, line=line, field="bot")
    return [
        E2EStep(
            kind=kind,
            text=text or None,
            line=line,
            metadata_name=metadata_name,
            commands=commands,
            extra=extra,
            assertions=assertions,
            assertion_order_enabled=bool(order),
            order_written=order is not None,
        )
    ]


def _slot_steps(kind: StepKind, node: yaml.Node, path: Path, line: int) -> Iterable[E2EStep]:
    field = kind.value
    slots = yn.items(node, path, field)
    if isinstance(node, yaml.ScalarNode) or not slots:
        raise InputError(
            f"'{field}' must list at least one slot", path=path, line=line, field=field
        )
    for item in slots:
        if isinstance(item, yaml.ScalarNode):
            yield E2EStep(kind=kind, slot=yn.name(item, path, field), line=line)
            continue
        entries = list(yn.pairs(item, path, field))
        if len(entries) != 1:
            raise InputError(
                f"each '{field}' item is a slot name or one 'slot: value'",
                path=path,
                line=yn.line_of(item),
                field=field,
            )
        slot, _, value = entries[0]
        yield E2EStep(
            kind=kind, slot=slot, value=yn.to_python(value, path, 6), has_value=True, line=line
        )


# --- writing -----------------------------------------------------------------------------------


def to_data(data: E2EFile) -> dict[str, Any]:
    """The file as plain data, consecutive slot steps of one line folded back into one list."""
    out: dict[str, Any] = {}
    if data.fixtures:
        out["fixtures"] = [
            {f.name: [{k: v} for k, v in f.slots.items()]} for f in data.fixtures.values()
        ]
    if data.metadata:
        out["metadata"] = [{m.name: dict(m.values)} for m in data.metadata.values()]
    if data.stub_custom_actions:
        out["stub_custom_actions"] = data.stub_custom_actions
    out["test_cases"] = [case_to_data(case) for case in data.test_cases]
    return out


def case_to_data(case: E2ETestCase) -> dict[str, Any]:
    out: dict[str, Any] = {"test_case": case.name}
    if case.fixture_names:
        out["fixtures"] = list(case.fixture_names)
    if case.metadata_name:
        out["metadata"] = case.metadata_name
    steps: list[dict[str, Any]] = []
    previous: E2EStep | None = None
    for step in case.steps:
        if step.kind in (StepKind.SLOT_WAS_SET, StepKind.SLOT_WAS_NOT_SET):
            item: Any = {step.slot: step.value} if step.has_value else step.slot
            if (
                previous is not None
                and previous.kind is step.kind
                and previous.line == step.line
                and step.line is not None
            ):
                steps[-1][step.kind.value].append(item)
            else:
                steps.append({step.kind.value: [item]})
        else:
            steps.append(step.as_dict())
        previous = step
    out["steps"] = steps
    return out


def dumps(data: E2EFile) -> str:
    return yaml.safe_dump(to_data(data), sort_keys=False, allow_unicode=True, width=100)


def write(data: E2EFile, path: Path) -> None:
    atomic_write_text(path, dumps(data))
