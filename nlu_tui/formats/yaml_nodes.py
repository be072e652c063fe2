"""Walking a composed YAML node tree with errors that name the file, line and field: shared by
the conversation test readers (E2E test cases, test stories).

Scalars are resolved as YAML 1.2's core schema does (what Rasa's ruamel reader uses), not as
PyYAML's 1.1: ``yes``/``no``/``on`` stay text, ``true``/``false``/``null``/numbers are typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.errors import InputError
from nlu_tui.formats import yaml_loader

_INT = re.compile(r"^[-+]?[0-9]+$|^0o[0-7]+$|^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(inf|Inf|INF)$")
_NAN = re.compile(r"^\.(nan|NaN|NAN)$")
_CORE_TAGS = frozenset(
    f"tag:yaml.org,2002:{t}" for t in ("str", "null", "bool", "int", "float", "timestamp")
)


def line_of(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def read_root(path: Path) -> yaml.Node | None:
    """The file's node tree (None when empty); unreadable or invalid YAML is an InputError."""
    return read_root_and_bytes(path)[0]


def read_root_and_bytes(path: Path) -> tuple[yaml.Node | None, bytes]:
    """:func:`read_root` and the bytes it was read from (for the file's digest)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=path) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path=path) from None
    return yaml_loader.compose(text, path, prefix="invalid YAML"), data


def scalar_value(node: yaml.ScalarNode) -> Any:
    """A plain scalar as YAML 1.2 core types it; quoted or tagged-as-text stays text."""
    value = str(node.value)
    if node.style:  # quoted or a block: text as written
        return value
    if value in ("", "~", "null", "Null", "NULL"):
        return None
    if value in ("true", "True", "TRUE"):
        return True
    if value in ("false", "False", "FALSE"):
        return False
    if _INT.match(value):
        return int(value, 0) if value[:2] in ("0o", "0x") else int(value)
    if _FLOAT.match(value):
        return float(value)
    if _INF.match(value):
        return float("-inf") if value.startswith("-") else float("inf")
    if _NAN.match(value):
        return float("nan")
    return value


def to_python(node: yaml.Node, path: Path, depth: int) -> Any:
    """Free-form data (slot values, metadata): mappings, lists and 1.2-typed scalars."""
    if isinstance(node, yaml.ScalarNode):
        if node.tag in _CORE_TAGS:
            return scalar_value(node)
        return yaml_loader.construct(node, path, depth=depth)  # !!binary, timestamps...
    yaml_loader.check_tree(node, path, depth=depth)
    if isinstance(node, yaml.SequenceNode):
        return [to_python(item, path, depth + 1) for item in node.value]
    if isinstance(node, yaml.MappingNode):
        return {
            str(to_python(k, path, depth + 1)): to_python(v, path, depth + 1) for k, v in node.value
        }
    return yaml_loader.construct(node, path, depth=depth)


def text(node: yaml.Node, path: Path, field: str) -> str:
    """A scalar taken as written (``user: 42`` is the text ``42``)."""
    if not isinstance(node, yaml.ScalarNode):
        raise InputError(
            f"'{field}' must be a text value", path=path, line=line_of(node), field=field
        )
    return str(node.value)


def name(node: yaml.Node, path: Path, field: str) -> str:
    """A non-empty one-line name (intent, action, slot, fixture...)."""
    value = text(node, path, field).strip()
    if not value:
        raise InputError(f"'{field}' is empty", path=path, line=line_of(node), field=field)
    return value


def pairs(node: yaml.Node, path: Path, field: str) -> Iterator[tuple[str, yaml.Node, yaml.Node]]:
    """The (key, key node, value node) of a mapping, refusing repeated keys."""
    if not isinstance(node, yaml.MappingNode):
        raise InputError(f"'{field}' must be a mapping", path=path, line=line_of(node), field=field)
    seen: set[str] = set()
    for key_node, value_node in node.value:
        key = text(key_node, path, field)
        if key in seen:
            raise InputError(
                f"key '{key}' appears twice", path=path, line=line_of(key_node), field=key
            )
        seen.add(key)
        yield key, key_node, value_node


def items(node: yaml.Node, path: Path, field: str) -> list[yaml.Node]:
    """The items of a list (``null``, an empty value, is an empty list)."""
    if isinstance(node, yaml.ScalarNode) and scalar_value(node) is None:
        return []
    if not isinstance(node, yaml.SequenceNode):
        raise InputError(f"'{field}' must be a list", path=path, line=line_of(node), field=field)
    return list(node.value)


def bounded_items(
    node: yaml.Node, path: Path, field: str, limit: int, what: str
) -> list[yaml.Node]:
    """:func:`items` refusing more than ``limit`` of them before any is read; the error names
    the line of the first one too many. ``what`` says whose items they are ("test case 'x'")."""
    from nlu_tui.formats import conversation_limits

    found = items(node, path, field)
    if len(found) > limit:
        variable = (
            conversation_limits.STEPS_VARIABLE
            if field == "steps"
            else conversation_limits.CASES_VARIABLE
        )
        raise InputError(
            f"{what} has {len(found):,} {field}; at most {limit:,} are read "
            f"(set {variable} to allow more)",
            path=path,
            line=line_of(found[limit]),
            field=field,
        )
    return found
