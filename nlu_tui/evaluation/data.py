"""Parts of a training set: the examples picked by index, with everything else kept whole.

Rasa keeps the synonyms, regexes and lookup tables in every part it makes (train and test of a
split, every fold); so do we. Cases for testing come from the same examples with the ids the
"developer defined utterances" import gives them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from nlu_tui.formats.rasa_yaml import suite_from_training_data
from nlu_tui.formats.rasa_yaml import training_yaml as training_yaml
from nlu_tui.model import Suite, TestCase
from nlu_tui.training import TrainingData


def subset(data: TrainingData, indices: Sequence[int]) -> TrainingData:
    """``data`` with only the examples at ``indices`` (in that order)."""
    return replace(
        data,
        examples=[data.examples[i] for i in indices],
        digest=None,
        warnings=[],
    )


def full_intent(data: TrainingData) -> list[str]:
    """Each example's label as Rasa stratifies it (``get_full_intent``: ``faq/ask_fees``)."""
    return [example.intent for example in data.examples]


def all_cases(data: TrainingData) -> list[TestCase]:
    """One test case per example, in order, with stable ids."""
    return suite_from_training_data(data).cases


def cases_suite(data: TrainingData, name: str) -> Suite:
    """The suite of all examples (named ``name``)."""
    suite = suite_from_training_data(data, name=name)
    suite.path = data.path
    return suite


def without_duplicates(data: TrainingData) -> tuple[TrainingData, int]:
    """``data`` without the examples that repeat an earlier one (same text, intent and
    entity annotations), as Rasa's reader drops them before splitting or folding; and how
    many were dropped."""
    from nlu_tui.scoring.rasa_reader import duplicate_rows

    cases = all_cases(data)
    duplicates = duplicate_rows([(c, None, None) for c in cases])
    if not duplicates:
        return data, 0
    kept = [i for i in range(len(cases)) if i not in duplicates]
    return subset(data, kept), len(duplicates)


def rasa_split_parts(
    data: TrainingData,
    fraction: float,
    seed: int | None,
    responses: dict[str, list[dict[str, Any]]] | None = None,
) -> tuple[TrainingData, TrainingData, int]:
    """(training part, test part, duplicates dropped) as ``rasa data split nlu`` makes them:
    the examples Rasa keeps, split by :func:`nlu_tui.evaluation.split.rasa_split_messages`,
    each part in Rasa's order with every synonym (declared and inline, in Rasa's order),
    regex and lookup table."""
    from nlu_tui.evaluation.split import (
        message_data,
        message_fingerprint,
        rasa_split_messages,
        rasa_unique,
    )

    messages = [
        message_data(e, data.intent_metadata.get(e.intent.partition("/")[0]), responses)
        for e in data.examples
    ]
    kept = rasa_unique([message_fingerprint(m) for m in messages])
    train_local, test_local = rasa_split_messages([messages[i] for i in kept], fraction, seed)
    synonyms: dict[str, list[str]] = {}
    for variant, value in data.entity_synonyms.items():
        synonyms.setdefault(value, []).append(variant)
    if not data.entity_synonyms:  # not read from Rasa YAML (a suite): its declared blocks
        synonyms = {k: list(v) for k, v in data.synonym_blocks.items()}

    def part(local: list[int]) -> TrainingData:
        return replace(
            data,
            examples=[data.examples[kept[i]] for i in local],
            synonym_blocks={k: list(v) for k, v in synonyms.items()},
            digest=None,
            warnings=[],
        )

    return part(train_local), part(test_local), len(messages) - len(kept)
