"""Which test examples ``rasa test nlu`` reads: Rasa's reader drops duplicates.

``TrainingData.sanitize_examples`` (``rasa/shared/nlu/training_data/training_data.py``) keeps
the first of examples whose ``Message`` fingerprints are equal, that is whose text, intent
(stripped) and entity annotations are all equal. A run keeps every case; the Rasa reports
leave out the rows this module names.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from typing import Any

from nlu_tui.model import TestCase


def example_key(case: TestCase) -> Hashable:
    """What makes two cases the same Rasa example (its ``Message.data``)."""
    entities = tuple(
        (
            e.name,
            json.dumps(e.json_value if e.json_value is not None else e.value, sort_keys=True),
            e.start,
            e.end,
            e.role,
            e.group,
        )
        for e in case.entities
    )
    return (case.utterance, tuple(i.name.strip() for i in case.intents), entities)


def duplicate_rows(rows: Sequence[tuple[TestCase, Any, Any]]) -> frozenset[int]:
    """Indexes of the rows whose case repeats an earlier row's example (the first is kept)."""
    seen: set[Hashable] = set()
    out: set[int] = set()
    for i, (case, _p, _r) in enumerate(rows):
        key = example_key(case)
        if key in seen:
            out.add(i)
        else:
            seen.add(key)
    return frozenset(out)
