"""Who trains and who tests: Rasa's stratified split, stratified folds, rare intents dropped.

- :func:`rasa_split` is ``TrainingData.split_nlu_examples`` of Rasa 3.6: classes from the
  rarest to the most frequent (retrieval sub-intents first, as Rasa does responses first), each
  shuffled by ``random.Random(seed)`` and cut so that the running training count follows
  ``int(seen * fraction)``, with at least one example of each class on both sides. It walks a
  class's examples in file order: the same seed picks the same *numbers* per class as Rasa.
- :func:`rasa_split_messages` is the same procedure walking the examples as Rasa does, in the
  order of a ``set`` of ``Message`` objects hashed by their fingerprint
  (:func:`message_fingerprint`): the same seed picks the same *examples* as Rasa (what
  ``data split nlu`` uses).
- :func:`stratified_folds` is scikit-learn's ``StratifiedKFold(shuffle=True,
  random_state=seed)``, which is what ``rasa test nlu --cross-validation`` uses (unseeded).
- :func:`drop_rare` is ``drop_intents_below_freq``: intents with fewer examples than the
  cutoff leave the data (Rasa uses the number of folds, and 5 when comparing pipelines).
"""

from __future__ import annotations

import hashlib
import json
import operator
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.training import TrainingExample


def rasa_split(
    labels: Sequence[str], fraction: float, seed: int | None
) -> tuple[list[int], list[int]]:
    """(training indices, test indices) of Rasa's stratified split, each in data order."""
    if not 0.0 <= fraction <= 1.0:
        raise InputError(f"must be within 0..1, got {fraction}", field="--training-fraction")
    counts = Counter(labels)
    retrieval = [c for c in counts if "/" in c]
    plain = [c for c in counts if "/" not in c]
    order = sorted(retrieval, key=lambda c: counts[c]) + sorted(plain, key=lambda c: counts[c])
    members: dict[str, list[int]] = {c: [] for c in counts}
    for i, label in enumerate(labels):
        members[label].append(i)
    train: list[int] = []
    test: list[int] = []
    running = running_train = 0
    for label in order:
        examples = list(members[label])
        if seed is None:
            random.shuffle(examples)
        else:
            random.Random(seed).shuffle(examples)
        exact = int((running + len(examples)) * fraction) - running_train
        take = min(len(examples) - 1, max(1, exact))
        train.extend(examples[:take])
        test.extend(examples[take:])
        running += len(examples)
        running_train += take
    return sorted(train), sorted(test)


def stratified_folds(
    labels: Sequence[str], folds: int, seed: int | None
) -> list[tuple[list[int], list[int]]]:
    """(training indices, test indices) of each fold, as ``StratifiedKFold`` makes them."""
    from sklearn.model_selection import StratifiedKFold

    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    out = []
    for train, test in splitter.split(list(range(len(labels))), list(labels)):
        out.append(([int(i) for i in train], [int(i) for i in test]))
    return out


def drop_rare(labels: Sequence[str], cutoff: int) -> tuple[list[int], dict[str, int]]:
    """Indices of examples whose label has at least ``cutoff`` examples, and the dropped
    labels with their counts."""
    counts = Counter(labels)
    dropped = {label: n for label, n in counts.items() if n < cutoff}
    kept = [i for i, label in enumerate(labels) if label not in dropped]
    return kept, dict(sorted(dropped.items()))


# --- Rasa's example identity and set order ---------------------------------------------------


def _fingerprint(obj: Any) -> str:
    """``deep_container_fingerprint`` of Rasa 3.6 (``rasa/shared/utils/io.py``): a dict hashes
    the JSON of its fingerprinted keys and values with sorted keys, a list the JSON of its
    fingerprinted items in order, anything else the MD5 of ``str(obj)``."""
    if isinstance(obj, dict):
        text = json.dumps(
            {_fingerprint(k): _fingerprint(v) for k, v in obj.items()}, sort_keys=True
        )
    elif isinstance(obj, list):
        text = json.dumps([_fingerprint(item) for item in obj])
    else:
        text = str(obj)
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def message_data(
    example: TrainingExample,
    intent_metadata: Any = None,
    responses: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> dict[str, Any]:
    """The ``Message.data`` Rasa's YAML reader builds for ``example`` (``Message.build``, then
    ``TrainingData._fill_response_phrases`` for a retrieval intent)."""
    data: dict[str, Any] = {"text": example.text}
    base, _, key = example.intent.partition("/")
    data["intent"] = base
    if key:
        data["intent_response_key"] = example.intent
    if example.entities:
        entities = []
        for e in example.entities:
            entity: dict[str, Any] = {
                "start": e.start,
                "end": e.end,
                "value": e.json_value if e.json_value is not None else e.value,
                "entity": e.name,
            }
            if e.role:
                entity["role"] = e.role
            if e.group:
                entity["group"] = e.group
            entities.append(entity)
        data["entities"] = entities
    if intent_metadata is not None:
        data["metadata"] = {"intent": intent_metadata}
    if example.metadata is not None:
        data.setdefault("metadata", {})["example"] = example.metadata
    if key and responses:
        utterances = responses.get(f"utter_{example.intent}", [])
        for utterance in utterances:  # the last one with a text wins, as in Rasa
            if utterance.get("text"):
                data["response"] = utterance["text"]
        if utterances and "response" not in data:
            data["response"] = f"utter_{example.intent}"
    return data


def message_fingerprint(data: Mapping[str, Any]) -> str:
    """``Message.fingerprint()``: the fingerprint of ``[data, features]`` (no features yet)."""
    return _fingerprint([dict(data), []])


class _Message:
    """Stands for a Rasa ``Message`` in a ``set``: equal by fingerprint, hashed as
    ``int(fingerprint, 16)`` (``Message.__hash__``), so CPython's set iterates these in the
    order it iterates Rasa's messages."""

    __slots__ = ("fingerprint", "index", "intent", "key")

    def __init__(self, index: int, fingerprint: str, intent: str, key: str | None) -> None:
        self.index = index
        self.fingerprint = fingerprint
        self.intent = intent
        self.key = key

    def __hash__(self) -> int:
        return int(self.fingerprint, 16)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Message) and other.fingerprint == self.fingerprint


def rasa_unique(fingerprints: Sequence[str]) -> list[int]:
    """Indices of the examples Rasa keeps (``sanitize_examples``: the first of each
    fingerprint), in order."""
    seen: dict[str, int] = {}
    for i, fp in enumerate(fingerprints):
        seen.setdefault(fp, i)
    return sorted(seen.values())


def rasa_split_messages(
    messages: Sequence[Mapping[str, Any]], fraction: float, seed: int | None
) -> tuple[list[int], list[int]]:
    """(training, test) indices of ``rasa data split nlu``, each in Rasa's order.

    ``messages`` are ``Message.data`` dicts (:func:`message_data`), duplicates already removed
    (:func:`rasa_unique`). This walks them as ``TrainingData.split_nlu_examples`` of Rasa 3.6
    does: responses (retrieval sub-intents) then intents, each from the least to the most
    frequent (ties in order of first appearance); a class's examples are collected by iterating
    a ``set`` of messages hashed by fingerprint, shuffled by ``random.Random(seed)`` and cut so
    the running training count follows ``int(seen * fraction)`` with at least one example on
    each side; the rest of the set is ``set - set(examples)`` after each class.
    """
    if not 0.0 <= fraction <= 1.0:
        raise InputError(f"must be within 0..1, got {fraction}", field="--training-fraction")
    wrapped = [
        _Message(i, message_fingerprint(m), str(m.get("intent")), m.get("intent_response_key"))
        for i, m in enumerate(messages)
    ]
    per_intent = dict(Counter(m.intent for m in wrapped))
    per_response = dict(Counter(m.key for m in wrapped if m.key))
    train: list[_Message] = []
    test: list[_Message] = []
    running = running_train = 0

    def split_class(examples: list[_Message]) -> None:
        nonlocal running, running_train
        if seed is not None:
            random.Random(seed).shuffle(examples)
        else:
            random.shuffle(examples)
        exact = int((running + len(examples)) * fraction) - running_train
        take = min(len(examples) - 1, max(1, exact))
        train.extend(examples[:take])
        test.extend(examples[take:])
        running += len(examples)
        running_train += take

    remaining = set(wrapped)
    for response, _ in sorted(per_response.items(), key=operator.itemgetter(1)):
        examples = [m for m in remaining if m.key and m.key == response]
        split_class(examples)
        remaining = remaining - set(examples)
    for intent, _ in sorted(per_intent.items(), key=operator.itemgetter(1)):
        examples = [m for m in remaining if m.intent == intent]
        if examples:
            split_class(examples)
            remaining = remaining - set(examples)
    return [m.index for m in train], [m.index for m in test]
