"""NLU.DevOps generic utterances JSON: an array of ``{text, intent, entities[...]}`` objects.

Entities are ``{entityType | entity, matchText, matchIndex, entityValue}``; ``matchIndex`` is
the nth occurrence of ``matchText`` in the text. Properties we do not model stay in
``TestCase.extra`` (``utteranceId`` is the case id; ``speechFile``, ``strictEntities`` ... are
kept as written). What NLU.DevOps cannot say (alternative intents, traits, parent paths, entity
order, tags, value kinds) is written under an ``nluTui`` property and under extra entity keys,
which NLU.DevOps ignores, so nothing is lost on a round trip.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.fileio import atomic_write_text
from nlu_tui.formats.luis_positions import luis_match
from nlu_tui.formats.registry import ImportResult
from nlu_tui.jsonfile import read_json
from nlu_tui.model import ExpectedEntity, ExpectedIntent, IntentKind, Suite, TestCase, ValueKind

NAME = "nludevops"
EXTENSIONS = (".json",)
DESCRIPTION = "NLU.DevOps generic utterances (JSON array of text/intent/entities)"

EXTENSION_KEY = "nluTui"
CASE_KEYS = {"text", "query", "intent", "entities", "utteranceId", EXTENSION_KEY}
ENTITY_KEYS = {
    "entityType",
    "entity",
    "matchText",
    "matchIndex",
    "entityValue",
    "startPos",
    "endPos",
    "valueKind",
    "alternatives",
    "role",
    "group",
}


def _looks_like_utterances(head: str) -> bool:
    text = head.lstrip()
    if not text.startswith("["):
        return False
    body = text[1:].lstrip()
    if body.startswith("]"):
        return True
    return body.startswith("{") and any(k in head for k in ('"text"', '"query"'))


def sniff(path: Path, head: str) -> bool:
    """A JSON array of objects with ``text`` or ``query``; LUIS batch files (``startPos``) excluded."""
    return _looks_like_utterances(head) and '"startPos"' not in head


def load_array(path: Path) -> list[Any]:
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError("expected a JSON array of utterances", path=path)
    return data


def _entity_from_json(
    obj: Any, text: str, where: dict[str, Any], warnings: list[str]
) -> ExpectedEntity:
    if not isinstance(obj, dict):
        raise InputError("an entity must be a JSON object", **where)
    name = obj.get("entityType", obj.get("entity"))
    if not isinstance(name, str) or not name:
        raise InputError("an entity needs 'entityType' (or 'entity')", **where)
    match_text = obj.get("matchText")
    if match_text is not None and not isinstance(match_text, str):
        raise InputError("'matchText' must be a string", **where)
    match_index = obj.get("matchIndex")
    if match_index is not None and (
        isinstance(match_index, bool) or not isinstance(match_index, int) or match_index < 0
    ):
        raise InputError("'matchIndex' must be a non-negative integer", **where)
    start: int | None = None
    end: int | None = None
    start_pos, end_pos = obj.get("startPos"), obj.get("endPos")
    if start_pos is not None or end_pos is not None:
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start_pos, end_pos)):
            raise InputError("'startPos' and 'endPos' must both be integers", **where)
        assert isinstance(start_pos, int) and isinstance(end_pos, int)
        try:
            span_text, span_index = luis_match(text, start_pos, end_pos)
        except ValueError as exc:
            raise InputError(str(exc), **where) from None
        if match_text is None:
            match_text, match_index = span_text, span_index
        start, end = start_pos, end_pos + 1
    raw_value = obj.get("entityValue")
    json_value: Any = None
    if isinstance(raw_value, str):
        value = raw_value
        if raw_value == match_text:
            json_value = raw_value  # explicit: keep the entityValue check on export
    elif raw_value is not None:
        value = json.dumps(raw_value, separators=(",", ":"), ensure_ascii=False)
        json_value = raw_value
    else:
        value = match_text or ""
    kind_name = obj.get("valueKind", "auto")
    for key in ("role", "group", "valueKind"):
        if obj.get(key) is not None and not isinstance(obj[key], str):
            raise InputError(f"'{key}' must be a string", **where)
    try:
        kind = ValueKind(kind_name)
    except ValueError:
        raise InputError(f"unknown valueKind {kind_name!r}", **where) from None
    alternatives = obj.get("alternatives") or []
    if not isinstance(alternatives, list) or not all(isinstance(a, str) for a in alternatives):
        raise InputError("'alternatives' must be a list of strings", **where)
    dropped = sorted(set(obj) - ENTITY_KEYS)
    if dropped:
        warnings.append(f"case {where['line']}: entity property {', '.join(dropped)} not kept")
    return ExpectedEntity(
        name=name,
        value=value,
        kind=kind,
        alternatives=list(alternatives),
        text=match_text,
        start=start,
        end=end,
        match_index=match_index,
        role=obj.get("role"),
        group=obj.get("group"),
        json_value=json_value,
    )


def _names(ext: dict[str, Any], key: str, where: dict[str, Any]) -> list[str]:
    value = ext.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError("must be a list of names", field=f"{EXTENSION_KEY}.{key}", **where)
    return list(value)


def _raw_checks(ext: dict[str, Any], where: dict[str, Any]) -> list[str]:
    """``nluTui.rawChecks``: each one parsed now (one that does not parse is bad input)."""
    from nlu_tui.raw_checks import RawCheckError, compiled_check

    checks = _names(ext, "rawChecks", where)
    for check in checks:
        try:
            compiled_check(check)
        except RawCheckError as exc:
            raise InputError(str(exc), field=f"{EXTENSION_KEY}.rawChecks", **where) from None
    return checks


def _origin(ext: dict[str, Any], where: dict[str, Any]) -> str | None:
    value = ext.get("origin")
    if value is not None and not isinstance(value, str):
        raise InputError("must be a case id", field=f"{EXTENSION_KEY}.origin", **where)
    return value


def case_from_json(
    obj: Any, *, path: Path | str | None = None, index: int = 0, warnings: list[str] | None = None
) -> TestCase:
    """One generic utterance → a test case (``index`` is 0-based, errors say ``case index+1``)."""
    warnings = warnings if warnings is not None else []
    where: dict[str, Any] = {"path": path, "line": index + 1, "kind": "case"}
    if not isinstance(obj, dict):
        raise InputError("each utterance must be a JSON object", **where)
    text = obj.get("text", obj.get("query"))
    if not isinstance(text, str):
        raise InputError("'text' (or 'query') must be a string", field="text", **where)
    intent = obj.get("intent")
    if intent is not None and not isinstance(intent, str):
        raise InputError("'intent' must be a string or null", field="intent", **where)
    ext = obj.get(EXTENSION_KEY) or {}
    if not isinstance(ext, dict):
        raise InputError(f"'{EXTENSION_KEY}' must be an object", field=EXTENSION_KEY, **where)
    intents = [ExpectedIntent(intent)] if intent else []
    listed = ext.get("intents")
    if listed:
        if not isinstance(listed, list) or not all(
            isinstance(i, dict) and isinstance(i.get("name"), str) for i in listed
        ):
            raise InputError("intents need a 'name'", field=f"{EXTENSION_KEY}.intents", **where)
        if listed[0]["name"] == intent:
            try:
                intents = [
                    ExpectedIntent(
                        i["name"], IntentKind(i["kind"]) if i.get("kind") else None, i.get("bot")
                    )
                    for i in listed
                ]
            except ValueError as exc:
                raise InputError(str(exc), field=f"{EXTENSION_KEY}.intents", **where) from None
        else:
            warnings.append(
                f"case {index + 1}: '{EXTENSION_KEY}.intents' does not start with 'intent'; ignored"
            )
    raw_entities = obj.get("entities") or []
    if not isinstance(raw_entities, list):
        raise InputError("'entities' must be an array", field="entities", **where)
    entities = [
        _entity_from_json(e, text, {**where, "field": f"entities[{i}]"}, warnings)
        for i, e in enumerate(raw_entities)
    ]
    extra = {k: v for k, v in obj.items() if k not in CASE_KEYS}
    if "intent" in obj and intent is None:
        extra["intent"] = None  # an explicit null: unit-test mode then reports FP intents
    case = TestCase(
        utterance=text,
        intents=intents,
        traits=_names(ext, "traits", where),
        parent_intents=_names(ext, "parentIntents", where),
        entities=entities,
        entity_order=_names(ext, "entityOrder", where),
        tags=_names(ext, "tags", where),
        extra=extra,
        line=index + 1,
        raw_checks=_raw_checks(ext, where),
        origin=_origin(ext, where),
    )
    if obj.get("utteranceId") is not None:
        case.id = str(obj["utteranceId"])
    return case


def entity_span(case: TestCase, entity: ExpectedEntity) -> tuple[str | None, int | None]:
    """(matchText, matchIndex) for an expected entity, from its text or its character span."""
    start, end = entity.start, entity.end
    placed: tuple[str, int] | None = None
    if start is not None and end is not None and 0 <= start < end <= len(case.utterance):
        placed = luis_match(case.utterance, start, end - 1)
    if entity.text is not None:
        if entity.match_index is None and placed is not None and placed[0] == entity.text:
            return entity.text, placed[1]  # the span says which occurrence
        return entity.text, entity.match_index
    return placed if placed is not None else (None, None)


def entity_to_json(case: TestCase, entity: ExpectedEntity) -> dict[str, Any]:
    match_text, match_index = entity_span(case, entity)
    out: dict[str, Any] = {"entityType": entity.name}
    if match_text is not None:
        out["matchText"] = match_text
    if match_index is not None:
        out["matchIndex"] = match_index
    start, end = entity.start, entity.end
    if start is not None and end is not None and 0 <= start < end <= len(case.utterance):
        out["startPos"], out["endPos"] = start, end - 1  # inclusive, as LUIS writes them
    if entity.json_value is not None:
        out["entityValue"] = entity.json_value
    elif entity.value != (match_text or ""):
        out["entityValue"] = entity.value
    if entity.kind is not ValueKind.AUTO:
        out["valueKind"] = entity.kind.value
    if entity.alternatives:
        out["alternatives"] = list(entity.alternatives)
    if entity.role is not None:
        out["role"] = entity.role
    if entity.group is not None:
        out["group"] = entity.group
    return out


def case_to_json(case: TestCase, warnings: list[str] | None = None) -> dict[str, Any]:
    """A test case as one generic utterance (what NLU.DevOps ``compare`` reads as expected)."""
    warnings = warnings if warnings is not None else []
    out: dict[str, Any] = {k: v for k, v in case.extra.items() if k not in CASE_KEYS}
    out["text"] = case.utterance
    if case.intents:
        out["intent"] = case.intents[0].name
    elif "intent" in case.extra:
        out["intent"] = None
    out["utteranceId"] = case.id
    if case.entities:
        out["entities"] = [entity_to_json(case, e) for e in case.entities]
    ext: dict[str, Any] = {}
    if len(case.intents) > 1 or any(i.kind or i.bot for i in case.intents):
        ext["intents"] = [
            {
                k: v
                for k, v in (
                    ("name", i.name),
                    ("kind", i.kind.value if i.kind else None),
                    ("bot", i.bot),
                )
                if v
            }
            for i in case.intents
        ]
        if len(case.intents) > 1:
            warnings.append(
                f"case {case.id}: dotnet nlu compare scores only the first of "
                f"{len(case.intents)} intents (nlu-tui compare accepts each, from nluTui.intents)"
            )
    for key, value in (
        ("traits", case.traits),
        ("parentIntents", case.parent_intents),
        ("entityOrder", case.entity_order),
        ("tags", case.tags),
        ("rawChecks", case.raw_checks),
    ):
        if value:
            ext[key] = list(value)
    if case.origin is not None:
        ext["origin"] = case.origin
    if case.raw_checks:
        warnings.append(f"case {case.id}: raw checks are kept but not scored by NLU.DevOps")
    if case.traits or case.parent_intents or case.entity_order:
        warnings.append(
            f"case {case.id}: traits, parent intents and entity order are not scored by NLU.DevOps"
        )
    if any(
        e.kind in (ValueKind.REGEX, ValueKind.MULTI, ValueKind.COMPOSITE) or e.alternatives
        for e in case.entities
    ):
        warnings.append(
            f"case {case.id}: NLU.DevOps compares entity values literally (regex, multi-item and alternatives are not applied)"
        )
    if ext:
        out[EXTENSION_KEY] = ext
    return out


def read(path: Path) -> ImportResult:
    warnings: list[str] = []
    data = load_array(path)
    cases = [
        case_from_json(item, path=path, index=i, warnings=warnings) for i, item in enumerate(data)
    ]
    return ImportResult(Suite(name=Path(path).stem, cases=cases), warnings)


def write(suite: Suite, path: Path) -> list[str]:
    warnings: list[str] = []
    items = [case_to_json(c, warnings) for c in suite.cases]
    atomic_write_text(Path(path), json.dumps(items, indent=2, ensure_ascii=False) + "\n")
    return warnings
