"""Writing the native suite file: deterministic text (same suite, same bytes), keys in schema
order, so suites diff well under version control.

Used by :func:`nlu_tui.formats.native.save_suite` and by the splicing saver
(:mod:`nlu_tui.formats.native_splice`) for the parts it rewrites.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from nlu_tui.formats.native_reader import FORMAT_VERSION
from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase, ValueKind

# --- dumping ----------------------------------------------------------------------------------
#
# The case part of the file is written by hand rather than by ``yaml.dump``: the layout stays
# fixed (short lists on one line, list items indented under their key) and a 10,000-case suite
# saves several times faster. Free-form data (``extra``, ``json_value``, ``training``) goes
# through PyYAML. Every scalar is either a plain word that YAML reads back as the same string, or
# a double-quoted JSON string (valid YAML) with YAML's non-printable characters escaped.

_FLOW_LIMIT = 90
"""Lists and entity mappings shorter than this (in characters) go on one line."""

_PLAIN = re.compile(
    "[A-Za-z0-9\u00c0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
    "[^\\x00-\\x1f\\x7f-\\x9f:#\\[\\]{},\\ud800-\\udfff\\ufffe\\uffff]*"
)
_RESOLVER = yaml.resolver.Resolver()


def _reads_as_text(text: str) -> bool:
    """Whether YAML reads the plain scalar as a string (not a number, date, bool or null)."""
    tag: str = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return tag == "tag:yaml.org,2002:str"


_NOT_PRINTABLE = re.compile("[\\x7f-\\x9f\\u2028\\u2029\\ud800-\\udfff\\ufffe\\uffff]")


def yaml_scalar(text: str) -> str:
    """``text`` as a YAML scalar that reads back as exactly ``text`` (a string)."""
    if (
        _PLAIN.fullmatch(text)
        and text[-1] != " "
        and not _NOT_PRINTABLE.search(text)
        and _reads_as_text(text)
    ):
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    return _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def _flow_list(items: list[str]) -> str:
    return "[" + ", ".join(yaml_scalar(i) for i in items) + "]"


def _inline(value: Any) -> str:
    """A scalar or an empty container on one line."""
    if isinstance(value, str):
        return yaml_scalar(value)
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    text: str = yaml.safe_dump(value, default_flow_style=True, width=4096)
    return text.splitlines()[0]


def _is_block(value: Any) -> bool:
    return isinstance(value, dict | list | tuple) and len(value) > 0


def _block(value: Any, indent: int) -> list[str]:
    """A non-empty mapping or list of free-form data, as block lines at ``indent``."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if _is_block(item):
                lines.append(f"{pad}{_inline(key)}:")
                lines.extend(_block(item, indent + 2))
            else:
                lines.append(f"{pad}{_inline(key)}: {_inline(item)}")
        return lines
    for item in value:
        if _is_block(item):
            sub = _block(item, indent + 2)
            lines.append(f"{pad}- {sub[0][indent + 2 :]}")
            lines.extend(sub[1:])
        else:
            lines.append(f"{pad}- {_inline(item)}")
    return lines


def _free(value: Any, indent: int) -> list[str]:
    """Free-form data after ``key:`` — inline when scalar or empty, else a block below."""
    if _is_block(value):
        return ["", *_block(value, indent)]
    return [" " + _inline(value)]


def key_lines(out: list[str], pad: str, key: str, value: Any) -> None:
    lines = _free(value, len(pad) + 2)
    out.append(f"{pad}{key}:{lines[0]}")
    out.extend(lines[1:])


def _texts(out: list[str], pad: str, key: str, items: list[str]) -> None:
    line = _flow_list(items)
    if len(line) <= _FLOW_LIMIT:
        out.append(f"{pad}{key}: {line}")
    else:
        out.append(f"{pad}{key}:")
        out.extend(f"{pad}  - {yaml_scalar(i)}" for i in items)


def _intent_flow(intent: ExpectedIntent) -> str:
    if intent.kind is None and intent.bot is None:
        return yaml_scalar(intent.name)
    parts = [f"name: {yaml_scalar(intent.name)}"]
    if intent.kind is not None:
        parts.append(f"kind: {intent.kind.value}")
    if intent.bot is not None:
        parts.append(f"bot: {yaml_scalar(intent.bot)}")
    return "{" + ", ".join(parts) + "}"


def _entity_lines(entity: ExpectedEntity, pad: str) -> list[str]:
    """One ``- {...}`` line when short and simple, else a block mapping."""
    parts: list[tuple[str, str]] = [("name", yaml_scalar(entity.name))]
    if entity.value != "":
        parts.append(("value", yaml_scalar(entity.value)))
    if entity.kind is not ValueKind.AUTO:
        parts.append(("kind", entity.kind.value))
    if entity.alternatives:
        parts.append(("alternatives", _flow_list(entity.alternatives)))
    for key in ("text", "start", "end", "match_index", "role", "group"):
        value = getattr(entity, key)
        if value is not None:
            parts.append((key, yaml_scalar(value) if isinstance(value, str) else str(value)))
    flow = "{" + ", ".join(f"{k}: {v}" for k, v in parts) + "}"
    if entity.json_value is None and len(flow) <= _FLOW_LIMIT:
        return [f"{pad}- {flow}"]
    lines = [f"{pad}{'- ' if i == 0 else '  '}{k}: {v}" for i, (k, v) in enumerate(parts)]
    if entity.json_value is not None:
        key_lines(lines, pad + "  ", "json_value", entity.json_value)
    return lines


def case_lines(case: TestCase) -> list[str]:
    out = [f"  - id: {yaml_scalar(case.id)}", f"    utterance: {yaml_scalar(case.utterance)}"]
    pad = "    "
    if case.intents:
        items = [_intent_flow(i) for i in case.intents]
        line = "[" + ", ".join(items) + "]"
        if all(i.kind is None and i.bot is None for i in case.intents) and len(line) <= _FLOW_LIMIT:
            out.append(f"{pad}intents: {line}")
        else:
            out.append(f"{pad}intents:")
            out.extend(f"{pad}  - {item}" for item in items)
    if case.parent_intents:
        _texts(out, pad, "parent_intents", case.parent_intents)
    if case.traits:
        _texts(out, pad, "traits", case.traits)
    if case.entities:
        out.append(f"{pad}entities:")
        for entity in case.entities:
            out.extend(_entity_lines(entity, pad + "  "))
    if case.entity_order:
        _texts(out, pad, "entity_order", case.entity_order)
    if case.tags:
        _texts(out, pad, "tags", case.tags)
    if case.raw_checks:
        out.append(f"{pad}raw:")
        out.extend(f"{pad}  - {yaml_scalar(check)}" for check in case.raw_checks)
    if case.origin is not None:
        out.append(f"{pad}origin: {yaml_scalar(case.origin)}")
    if case.extra:
        key_lines(out, pad, "extra", dict(case.extra))
    return out


def dump_suite(suite: Suite) -> str:
    """The suite as native YAML text: deterministic, keys in schema order, Unicode as is."""
    out = [f"nlu_tui_suite: {FORMAT_VERSION}", f"name: {yaml_scalar(suite.name)}"]
    if suite.description:
        out.append(f"description: {yaml_scalar(suite.description)}")
    if suite.cases:
        out.append("cases:")
        for case in suite.cases:
            out.extend(case_lines(case))
    else:
        out.append("cases: []")
    if suite.training:
        key_lines(out, "", "training", suite.training)
    if suite.extra:
        key_lines(out, "", "extra", suite.extra)
    return "\n".join(out) + "\n"
