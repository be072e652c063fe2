"""NLU.DevOps generic utterances as ``compare`` reads them (JSON arrays of labeled utterances).

The raw JSON object is kept: unit-test mode asks whether the expected item *has* an ``intent``
property, and ``metadata.json`` echoes both utterances.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.formats.luis_positions import luis_match
from nlu_tui.jsonfile import read_json

OWN_KEY = "nluTui"
"""nlu-tui's own property of a generic utterance (``formats.nludevops.EXTENSION_KEY``)."""


@dataclass
class Entity:
    entity_type: str
    match_text: str | None = None
    match_index: int = 0
    entity_value: Any = None
    score: float | None = None


@dataclass
class Utterance:
    text: str | None
    intent: str | None
    has_intent: bool
    entities: list[Entity] | None
    raw: dict[str, Any] = field(default_factory=dict)

    def prop(self, name: str) -> Any:
        return self.raw.get(name)

    @property
    def utterance_id(self) -> str | None:
        value = self.raw.get("utteranceId")
        return None if value is None else str(value)

    @property
    def score(self) -> float | None:
        return _number(self.raw.get("score"))

    @property
    def text_score(self) -> float | None:
        return _number(self.raw.get("textScore"))

    def string_list(self, name: str) -> list[str]:
        value = self.raw.get(name)
        return [str(v) for v in value] if isinstance(value, list) else []

    @property
    def own_fields(self) -> dict[str, Any]:
        """The ``nluTui`` object nlu-tui writes into its own files (NLU.DevOps ignores it)."""
        value = self.raw.get(OWN_KEY)
        return value if isinstance(value, dict) else {}

    @property
    def acceptable_intents(self) -> list[str]:
        """An expected utterance's acceptable intents: ``nluTui.intents`` when that list starts
        with ``intent`` (as ``nlu-tui export -f nludevops`` writes a case with several
        acceptable intents, and as its reader reads it back), else none."""
        listed = self.own_fields.get("intents")
        if not isinstance(listed, list) or not listed:
            return []
        names = [i.get("name") for i in listed if isinstance(i, dict)]
        if len(names) != len(listed) or names[0] != self.intent:
            return []
        return [n for n in names if isinstance(n, str)]

    @property
    def engine_error(self) -> str | None:
        """An actual utterance's ``nluTui.error``: the engine answered with an error
        (``nlu-tui show RUN -f nludevops`` writes it so, with ``"intent": null``)."""
        error = self.own_fields.get("error")
        return error if isinstance(error, str) else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def parse_entity(obj: Any, text: str | None, where: dict[str, Any]) -> Entity:
    if not isinstance(obj, dict):
        raise InputError("an entity must be a JSON object", **where)
    entity_type = obj.get("entityType", obj.get("entity"))
    if not isinstance(entity_type, str):
        raise InputError("an entity needs 'entityType' (or 'entity') as a string", **where)
    match_text = obj.get("matchText")
    if match_text is not None and not isinstance(match_text, str):
        raise InputError("'matchText' must be a string", **where)
    match_index = obj.get("matchIndex", 0)
    if match_index is None:
        match_index = 0
    if isinstance(match_index, bool) or not isinstance(match_index, int):
        raise InputError("'matchIndex' must be an integer", **where)
    start, end = obj.get("startPos"), obj.get("endPos")
    if match_text is None and start is not None and end is not None:
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)):
            raise InputError("'startPos' and 'endPos' must be integers", **where)
        # NLU.DevOps (Core/EntityConverter.cs ReadJson) adds matchText and matchIndex to the
        # entity it converts and throws when either property is already there.
        clash = [k for k in ("matchIndex", "matchText") if k in obj]
        if clash:
            raise InputError(
                f"entity {entity_type!r} has 'startPos'/'endPos' and {' and '.join(map(repr, clash))}"
                "; give either the positions or matchText/matchIndex (NLU.DevOps fails on both)",
                **where,
            )
        try:
            match_text, match_index = luis_match(text or "", start, end)
        except ValueError as exc:
            raise InputError(str(exc), **where) from None
    return Entity(
        entity_type=entity_type,
        match_text=match_text,
        match_index=match_index,
        entity_value=obj.get("entityValue"),
        score=_number(obj.get("score")),
    )


def parse_utterance(obj: Any, *, path: Path | str | None = None, index: int = 0) -> Utterance:
    """One generic utterance; ``index`` (0-based) names the item in errors as ``case N+1``."""
    where: dict[str, Any] = {"path": path, "line": index + 1, "kind": "case"}
    if not isinstance(obj, dict):
        raise InputError("each utterance must be a JSON object", **where)
    text = obj.get("text", obj.get("query"))
    if text is not None and not isinstance(text, str):
        raise InputError("'text' must be a string", field="text", **where)
    intent = obj.get("intent")
    if intent is not None and not isinstance(intent, str):
        raise InputError("'intent' must be a string or null", field="intent", **where)
    raw_entities = obj.get("entities")
    entities: list[Entity] | None = None
    if raw_entities is not None:
        if not isinstance(raw_entities, list):
            raise InputError("'entities' must be an array", field="entities", **where)
        entities = [
            parse_entity(e, text, {**where, "field": f"entities[{i}]"})
            for i, e in enumerate(raw_entities)
        ]
    return Utterance(
        text=text, intent=intent, has_intent="intent" in obj, entities=entities, raw=obj
    )


def load_utterances(path: Path) -> list[Utterance]:
    """A generic utterances file: a JSON array of labeled utterances."""
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError("expected a JSON array of utterances", path=path)
    return [parse_utterance(item, path=path, index=i) for i, item in enumerate(data)]
