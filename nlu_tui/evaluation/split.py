"""Who trains and who tests: Rasa's stratified split, stratified folds, rare intents dropped.

- :func:`rasa_split` is ``TrainingData.split_nlu_examples`` of Rasa 3.6: classes from the
  rarest to the most frequent (retrieval sub-intents first, as Rasa does responses first), each
  shuffled by ``random.Random(seed)`` and cut so that the running training count follows
  ``int(seen * fraction)``, with at least one example of each class on both sides. Rasa walks
  a class's examples in ``set`` order (hash order); we walk them in file order, so the same
  seed picks the same *numbers* per class but not always the same examples as Rasa.
- :func:`stratified_folds` is scikit-learn's ``StratifiedKFold(shuffle=True,
  random_state=seed)``, which is what ``rasa test nlu --cross-validation`` uses (unseeded).
- :func:`drop_rare` is ``drop_intents_below_freq``: intents with fewer examples than the
  cutoff leave the data (Rasa uses the number of folds, and 5 when comparing pipelines).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from nlu_tui.errors import InputError


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
