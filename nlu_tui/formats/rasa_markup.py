"""Rasa's inline entity annotations: ``[text](entity)``, ``[text](entity:value)``,
``[text]{"entity": ..., "value": ..., "role": ..., "group": ...}`` and ``[text][{...}, {...}]``.

Parsing follows Rasa's own ``entities_parser`` (the same regular expression), so a file reads
here exactly as Rasa reads it. Rasa has no escape for brackets, so :func:`format_example` checks
that what it writes parses back to the same text and entities and says so when it cannot.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from nlu_tui.model import ExpectedEntity

ENTITY_REGEX = re.compile(
    r"\[(?P<entity_text>[^\]]+?)\]"
    r"(\((?P<entity>[^:)]+?)(?:\:(?P<value>[^)]+))?\)"
    r"|\{(?P<entity_dict>[^}]+?)\}"
    r"|\[(?P<list_entity_dicts>.*?)\])"
)
"""Rasa 3's annotation pattern (``rasa.shared.nlu.training_data.entities_parser``)."""

_DICT_KEYS = ("entity", "value", "role", "group")


class MarkupError(ValueError):
    """An annotation that Rasa would reject (bad JSON, missing ``entity``)."""


@dataclass
class ParsedExample:
    text: str
    entities: list[ExpectedEntity]


def _entity_from_dict(data: object, surface: str, start: int) -> ExpectedEntity:
    if not isinstance(data, dict):
        raise MarkupError(f"entity annotation must be a JSON object, got {data!r}")
    unknown = sorted(set(data) - set(_DICT_KEYS))
    if unknown:
        raise MarkupError(f"unknown key(s) in entity annotation: {', '.join(unknown)}")
    for key in _DICT_KEYS:
        if key in data and not isinstance(data[key], str):
            raise MarkupError(f"entity annotation key {key!r} must be a string")
    name = data.get("entity")
    if not name:
        raise MarkupError("entity annotation has no 'entity' key")
    return ExpectedEntity(
        name=name,
        value=data.get("value", surface),
        text=surface,
        start=start,
        end=start + len(surface),
        role=data.get("role"),
        group=data.get("group"),
    )


def _annotation_json(text: str, match: re.Match[str]) -> Any:
    """The JSON inside a ``{...}`` or ``[{...}]`` annotation; bad JSON names the annotation."""
    from nlu_tui.jsonfile import MAX_DEPTH, nesting_error

    if nesting_error(text, None) is not None:
        raise MarkupError(f"entity annotation nested more than {MAX_DEPTH} levels deep (the limit)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise MarkupError(
            f"invalid JSON in entity annotation {match.group(0)!r}: {exc.msg}"
        ) from None
    except ValueError as exc:  # an integer of over 4,300 digits
        raise MarkupError(f"invalid JSON in entity annotation: {exc}".split(";")[0]) from None


def parse_example(markup: str) -> ParsedExample:
    """Split an annotated example into plain text and entities (spans index the plain text)."""
    entities: list[ExpectedEntity] = []
    pieces: list[str] = []
    last = 0
    length = 0
    for match in ENTITY_REGEX.finditer(markup):
        before = markup[last : match.start()]
        pieces.append(before)
        length += len(before)
        surface = match.group("entity_text")
        start = length
        groups = match.groupdict()
        if groups["entity_dict"] is not None:
            data = _annotation_json("{" + groups["entity_dict"] + "}", match)
            entities.append(_entity_from_dict(data, surface, start))
        elif groups["list_entity_dicts"] is not None:
            items = _annotation_json("[" + groups["list_entity_dicts"] + "]", match)
            entities.extend(_entity_from_dict(item, surface, start) for item in items)
        else:
            value = groups["value"]
            entities.append(
                ExpectedEntity(
                    name=groups["entity"],
                    value=surface if value is None else value,
                    text=surface,
                    start=start,
                    end=start + len(surface),
                )
            )
        pieces.append(surface)
        length += len(surface)
        last = match.end()
    pieces.append(markup[last:])
    return ParsedExample("".join(pieces), entities)


def _entity_dict(entity: ExpectedEntity, surface: str) -> dict[str, str]:
    data: dict[str, str] = {"entity": entity.name}
    if entity.value != surface:
        data["value"] = entity.value
    if entity.role is not None:
        data["role"] = entity.role
    if entity.group is not None:
        data["group"] = entity.group
    return data


def _annotation(entities: list[ExpectedEntity], surface: str) -> str:
    if len(entities) > 1:  # several entities on one span: Rasa's list form
        items = ", ".join(
            json.dumps(_entity_dict(e, surface), ensure_ascii=False) for e in entities
        )
        return f"[{surface}][{items}]"
    entity = entities[0]
    if entity.value == surface and entity.role is None and entity.group is None:
        return f"[{surface}]({entity.name})"
    return f"[{surface}]" + json.dumps(_entity_dict(entity, surface), ensure_ascii=False)


def format_example(text: str, spans: list[tuple[int, int, ExpectedEntity]]) -> str | None:
    """Write ``text`` with the given entity spans annotated; ``None`` if Rasa would misread it.

    Spans must not overlap unless identical (those share one annotation in the list form).
    The result is re-parsed and compared, which catches brackets in the text, ``}`` in values
    and every other case Rasa's markup has no escape for.
    """
    grouped: dict[tuple[int, int], list[ExpectedEntity]] = {}
    for start, end, entity in sorted(spans, key=lambda s: (s[0], s[1])):
        grouped.setdefault((start, end), []).append(entity)
    out: list[str] = []
    last = 0
    expected: list[tuple[str, str, str | None, str | None, int, int]] = []
    for (start, end), entities in grouped.items():
        surface = text[start:end]
        out.append(text[last:start])
        out.append(_annotation(entities, surface))
        last = end
        expected.extend((e.name, e.value, e.role, e.group, start, end) for e in entities)
    out.append(text[last:])
    markup = "".join(out)
    try:
        parsed = parse_example(markup)
    except MarkupError:
        return None
    got = [(e.name, e.value, e.role, e.group, e.start, e.end) for e in parsed.entities]
    if parsed.text != text or got != expected:
        return None
    return markup
