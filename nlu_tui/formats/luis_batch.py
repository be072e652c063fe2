"""LUIS batch test files: ``[{text, intent, entities: [{entity, startPos, endPos}]}]``.

Positions are character offsets with an **inclusive** end. On import each span becomes the
entity's text, its ``matchIndex`` (NLU.DevOps' converter rules) and ``start``/``end`` (end
exclusive, as everywhere in our model). The format has no entity values, alternative intents,
traits or paths; ``write`` says what it leaves out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.fileio import atomic_write_text
from nlu_tui.formats.case_losses import case_fields_lost
from nlu_tui.formats.luis_positions import luis_match, occurrence_start
from nlu_tui.formats.registry import ImportResult
from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase, ValueKind

NAME = "luis"
EXTENSIONS = (".json",)
DESCRIPTION = "LUIS batch test JSON (entities by startPos/endPos, inclusive)"

NONE_INTENT = "None"
"""LUIS's negative intent: read as "no intent expected", written for cases that expect none."""


def sniff(path: Path, head: str) -> bool:
    text = head.lstrip()
    return text.startswith("[") and '"startPos"' in head and '"text"' in head


def _entity(obj: Any, text: str, where: dict[str, Any]) -> ExpectedEntity:
    if not isinstance(obj, dict):
        raise InputError("an entity must be a JSON object", **where)
    name = obj.get("entity", obj.get("entityType"))
    if not isinstance(name, str) or not name:
        raise InputError("an entity needs 'entity' (its name)", **where)
    start, end = obj.get("startPos"), obj.get("endPos")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)):
        raise InputError("'startPos' and 'endPos' must both be integers", **where)
    assert isinstance(start, int) and isinstance(end, int)
    try:
        match_text, match_index = luis_match(text, start, end)
    except ValueError as exc:
        raise InputError(str(exc), **where) from None
    return ExpectedEntity(
        name=name,
        value=match_text,
        text=match_text,
        start=start,
        end=end + 1,
        match_index=match_index,
    )


def read(path: Path) -> ImportResult:
    from nlu_tui.formats.nludevops import load_array

    data = load_array(path)
    cases: list[TestCase] = []
    for i, obj in enumerate(data):
        where: dict[str, Any] = {"path": path, "line": i + 1, "kind": "case"}
        if not isinstance(obj, dict):
            raise InputError("each utterance must be a JSON object", **where)
        text = obj.get("text")
        if not isinstance(text, str):
            raise InputError("'text' must be a string", field="text", **where)
        intent = obj.get("intent")
        if intent is not None and not isinstance(intent, str):
            raise InputError("'intent' must be a string", field="intent", **where)
        raw_entities = obj.get("entities") or []
        if not isinstance(raw_entities, list):
            raise InputError("'entities' must be an array", field="entities", **where)
        entities = [
            _entity(e, text, {**where, "field": f"entities[{j}]"})
            for j, e in enumerate(raw_entities)
        ]
        cases.append(
            TestCase(
                utterance=text,
                intents=[ExpectedIntent(intent)] if intent and intent != NONE_INTENT else [],
                entities=entities,
                line=i + 1,
            )
        )
    return ImportResult(Suite(name=Path(path).stem, cases=cases))


def entity_span(case: TestCase, entity: ExpectedEntity) -> tuple[int, int] | None:
    """(start, end exclusive) of an expected entity in the utterance, if it can be placed."""
    n = len(case.utterance)
    if entity.start is not None and entity.end is not None and 0 <= entity.start < entity.end <= n:
        return entity.start, entity.end
    if entity.text:
        start = occurrence_start(case.utterance, entity.text, entity.match_index or 0)
        if start is not None:
            return start, start + len(entity.text)
    return None


def write(suite: Suite, path: Path) -> list[str]:
    warnings: list[str] = []
    items: list[dict[str, Any]] = []
    for case in suite.cases:
        lost: list[str] = []
        entities = []
        for e in case.entities:
            span = entity_span(case, e)
            if span is None:
                warnings.append(
                    f"case {case.id}: entity {e.name!r} has no place in the text; left out"
                )
                continue
            entities.append({"entity": e.name, "startPos": span[0], "endPos": span[1] - 1})
            if e.value not in ("", case.utterance[span[0] : span[1]]) or e.json_value is not None:
                lost.append(f"value of {e.name!r}")
            if e.alternatives or e.kind is not ValueKind.AUTO:
                lost.append(f"value kind/alternatives of {e.name!r}")
        lost += case_fields_lost(case)
        if lost:
            warnings.append(f"case {case.id}: LUIS batch files cannot hold {', '.join(lost)}")
        item: dict[str, Any] = {
            "text": case.utterance,
            "intent": case.intents[0].name if case.intents else "None",
        }
        item["entities"] = entities
        items.append(item)
    atomic_write_text(Path(path), json.dumps(items, indent=2, ensure_ascii=False) + "\n")
    return warnings
