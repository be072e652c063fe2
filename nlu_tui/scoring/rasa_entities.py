"""Rasa's token-level entity evaluation (``rasa test nlu``), without Rasa.

Follows Rasa 3.6 ``rasa/nlu/test.py``: ``align_entity_predictions``, ``_concat_entity_labels``,
``determine_token_labels``, ``find_intersecting_entities``, ``pick_best_entity_fit``,
``evaluate_entities`` and ``collect_incorrect_entity_predictions``:

- every token of the utterance gets one label per side (the expected entities, and the entities
  of each extractor): the entity that shares the most characters with the token (the first on a
  tie) gives ``type[.group][.role]``; a token no entity touches is ``no_entity``;
- one report per extractor (an entity's ``extractor``; entities of Rasa's pretrained extractors
  Duckling and spaCy are left out, as Rasa leaves them out), over every token of every example;
  ``no_entity`` is not a row of the report but its tokens count in ``accuracy``;
- an example is an error of an extractor when any of its tokens has a different label.

Tokens are the engine's own when it says (Rasa's ``/model/parse`` answer has ``text_tokens``);
otherwise :func:`simple_tokens` cuts the text. Entities without ``start``/``end`` cannot be put
on tokens and label none. Where Rasa refuses overlapping entities of different types from
CRFEntityExtractor or DIETClassifier (``ValueError``), this module still labels each token by
its best fit.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

NO_ENTITY = "no_entity"
"""Rasa's label of a token outside every entity (``NO_ENTITY_TAG`` ``O`` in the aligned lists)."""

PRETRAINED_EXTRACTORS = frozenset({"DucklingEntityExtractor", "SpacyEntityExtractor"})
"""``rasa.shared.nlu.constants.PRETRAINED_EXTRACTORS``: not evaluated by ``rasa test nlu``."""

EXTRACTORS_WITH_CONFIDENCES = frozenset({"CRFEntityExtractor", "DIETClassifier"})
"""``rasa.nlu.test.EXTRACTORS_WITH_CONFIDENCES``: the extractors whose tokens get a confidence
(and a ``<Extractor>_histogram.png``)."""

NO_EXTRACTOR = "entities"
"""The extractor name given to entities whose engine does not say which extractor found them."""

Token = tuple[int, int]
"""A token as a ``(start, end)`` character range of the utterance (end exclusive)."""

_WORD = re.compile(r"\S+")
_EDGE_PUNCT = re.compile(r"^[^\w]+|[^\w]+$")


def simple_tokens(text: str) -> list[Token]:
    """The tokenizer for engines that return no tokens: runs of non-space characters, with
    punctuation stripped from both ends; a run of punctuation alone is no token. Close to
    Rasa's WhitespaceTokenizer on ordinary text (``"Berlin,"`` -> ``Berlin``)."""
    out: list[Token] = []
    for match in _WORD.finditer(text):
        start, end = match.span()
        word = match.group()
        lead = re.match(r"[^\w]*", word)
        trail = re.search(r"[^\w]*$", word)
        s = start + (lead.end() if lead else 0)
        e = end - (len(trail.group()) if trail else 0)
        if s < e:
            out.append((s, e))
    return out


def _intersection(token: Token, entity: Mapping[str, Any]) -> int:
    """``determine_intersection``: how many characters token and entity share."""
    start: int = entity["start"]
    end: int = entity["end"]
    return max(0, min(token[1], end) - max(token[0], start))


def _has_span(entity: Mapping[str, Any]) -> bool:
    start, end = entity.get("start"), entity.get("end")
    return isinstance(start, int) and isinstance(end, int) and not isinstance(start, bool)


def entity_for_token(
    token: Token, entities: Sequence[Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    """``determine_entity_for_token``: the intersecting entity sharing most characters with the
    token (the first such). As in Rasa, a zero-length token is "within" every entity."""
    length = token[1] - token[0]
    best: Mapping[str, Any] | None = None
    best_count = -1
    for entity in entities:
        if not _has_span(entity):
            continue
        count = _intersection(token, entity)
        # numpy's argmax keeps the first maximum
        if (count == length or 0 < count < length) and count > best_count:
            best, best_count = entity, count
    return best


def token_label(token: Token, entities: Sequence[Mapping[str, Any]]) -> str:
    """``_concat_entity_labels`` with ``O`` already read as ``no_entity``: the best fitting
    entity's ``type``, ``group`` and ``role`` (those set) joined by dots."""
    entity = entity_for_token(token, entities)
    if entity is None:
        return NO_ENTITY
    parts = [entity.get(key) for key in ("entity", "group", "role")]
    labels = [str(p) for p in parts if p]
    return ".".join(labels) if labels else NO_ENTITY


@dataclass
class EntityExample:
    """One evaluated utterance: what was expected, what the engine found, on which tokens."""

    text: str
    targets: list[dict[str, Any]]
    predictions: list[dict[str, Any]]
    tokens: list[Token]


def extractor_of(entity: Mapping[str, Any]) -> str:
    name = entity.get("extractor")
    return name if isinstance(name, str) and name else NO_EXTRACTOR


def evaluated_predictions(predictions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``_remove_entities_of_extractors(result, PRETRAINED_EXTRACTORS)``."""
    return [p for p in predictions if p.get("extractor") not in PRETRAINED_EXTRACTORS]


def active_extractors(examples: Sequence[EntityExample]) -> list[str]:
    """``_get_active_entity_extractors``, sorted (Rasa iterates a set: the order is free)."""
    return sorted({extractor_of(p) for ex in examples for p in ex.predictions})


@dataclass
class ExtractorEvaluation:
    """The aligned labels of one extractor over all examples, and its erroneous examples."""

    extractor: str
    pairs: Counter[tuple[str, str]]
    """How often each (target label, predicted label) occurs over all tokens."""
    errors: list[EntityExample]
    successes: list[EntityExample]
    correct_confidences: list[float] = field(default_factory=list)
    """Per token labelled right (not ``no_entity``): the confidence of its predicted entity,
    for extractors in :data:`EXTRACTORS_WITH_CONFIDENCES` (``plot_entity_confidences``)."""
    wrong_confidences: list[float] = field(default_factory=list)
    """Per token given another entity than its target: the same confidence."""

    @property
    def has_confidences(self) -> bool:
        return self.extractor in EXTRACTORS_WITH_CONFIDENCES


def token_confidence(token: Token, entities: Sequence[Mapping[str, Any]]) -> float:
    """``_get_entity_confidences``: the lowest of the best fitting entity's type, role and group
    confidences (a missing or zero one counts as 1.0); 0.0 without an entity, or for an
    extractor that gives none."""
    entity = entity_for_token(token, entities)
    if entity is None or entity.get("extractor") not in EXTRACTORS_WITH_CONFIDENCES:
        return 0.0
    keys = ("confidence_entity", "confidence_role", "confidence_group")
    return float(min(entity.get(key) or 1.0 for key in keys))


def _add_confidences(
    evaluation: ExtractorEvaluation,
    tokens: Sequence[Token],
    entities: Sequence[Mapping[str, Any]],
    targets: Sequence[str],
    predicted: Sequence[str],
) -> None:
    for token, target, label in zip(tokens, targets, predicted, strict=True):
        if target != NO_ENTITY and target == label:
            evaluation.correct_confidences.append(token_confidence(token, entities))
        elif label not in (NO_ENTITY, target):
            evaluation.wrong_confidences.append(token_confidence(token, entities))


def evaluate_entities(
    examples: Sequence[EntityExample], extractors: Sequence[str] | None = None
) -> list[ExtractorEvaluation]:
    """``evaluate_entities`` minus the files: per extractor, label counts and errors. The
    extractors are the active ones (``rasa test nlu``) unless given (``rasa test core`` names
    ``POLICIES_THAT_EXTRACT_ENTITIES``; the predictions of any other are left out)."""
    extractors = active_extractors(examples) if extractors is None else list(extractors)
    out = {name: ExtractorEvaluation(name, Counter(), [], []) for name in extractors}
    for example in examples:
        targets = [token_label(t, example.targets) for t in example.tokens]
        by_extractor: dict[str, list[dict[str, Any]]] = {name: [] for name in extractors}
        for p in example.predictions:
            if extractor_of(p) in by_extractor:
                by_extractor[extractor_of(p)].append(p)
        for name, entities in by_extractor.items():
            evaluation = out[name]
            predicted = [token_label(t, entities) for t in example.tokens]
            evaluation.pairs.update(zip(targets, predicted, strict=True))
            if evaluation.has_confidences:
                _add_confidences(evaluation, example.tokens, entities, targets, predicted)
            # Rasa collects both lists independently: one example can be in each.
            if any(t != p for t, p in zip(targets, predicted, strict=True)):
                evaluation.errors.append(example)
            if any(t == p != NO_ENTITY for t, p in zip(targets, predicted, strict=True)):
                evaluation.successes.append(example)
    return list(out.values())


def target_dict(
    name: str,
    start: int | None,
    end: int | None,
    value: Any,
    role: str | None = None,
    group: str | None = None,
) -> dict[str, Any]:
    """An expected entity as Rasa's reader builds it (``build_entity``: start, end, value,
    entity, then role and group when set)."""
    entity: dict[str, Any] = {"start": start, "end": end, "value": value, "entity": name}
    if role:
        entity["role"] = role
    if group:
        entity["group"] = group
    return entity
