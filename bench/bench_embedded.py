"""Embedded engine figures: accuracy on a held-out split, training time, parse rate.

    .venv/bin/python bench/bench_embedded.py [NLU_YML]

Default data: ../shared/datasets/rasa-financial-demo/nlu.yml. The split is 80/20, stratified by
intent, ``random_state=42`` (scikit-learn ``train_test_split``). Rasa 3.6.21 with
``config_fast.yml`` scores 0.870 on its own 80/20 split of the same file (real-peers.md §1.2).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from nlu_tui.engines.base import ParseContext
from nlu_tui.engines.embedded import EmbeddedEngine
from nlu_tui.engines.embedded.model import DEFAULT_THRESHOLD, EmbeddedModel
from nlu_tui.formats.rasa_yaml import load_training_data
from nlu_tui.training import TrainingData

DEFAULT = (
    Path(__file__).resolve().parents[2] / "shared" / "datasets" / "rasa-financial-demo" / "nlu.yml"
)


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    from sklearn.model_selection import train_test_split

    data = load_training_data(path)
    train, test = train_test_split(
        data.examples, test_size=0.2, random_state=42, stratify=[e.intent for e in data.examples]
    )
    subset = TrainingData(
        examples=list(train),
        synonyms=data.synonyms,
        regexes=data.regexes,
        lookups=data.lookups,
        intent_metadata=data.intent_metadata,
        path=data.path,
    )
    started = time.perf_counter()
    model = EmbeddedModel.train(subset)
    split_train_s = time.perf_counter() - started
    started = time.perf_counter()
    EmbeddedModel.train(data)
    full_train_s = time.perf_counter() - started

    started = time.perf_counter()
    ranked = [model.rank(e.text) for e in test]
    parse_s = time.perf_counter() - started
    top1 = sum(r[0][0] == e.intent for r, e in zip(ranked, test, strict=True)) / len(test)
    answered = [
        (r[0][0], e.intent)
        for r, e in zip(ranked, test, strict=True)
        if r[0][1] >= DEFAULT_THRESHOLD
    ]
    at_threshold = sum(p == t for p, t in answered) / len(test)

    intents = len({e.intent for e in data.examples})
    print(f"data: {path} ({len(data.examples)} examples, {intents} intents)")
    print(f"split: 80/20 stratified, seed 42 -> {len(train)} train / {len(test)} test")
    print(f"training time: {split_train_s:.2f} s on the split, {full_train_s:.2f} s on all data")
    print(f"intent accuracy (top-1, no threshold): {top1:.3f}")
    print(
        f"intent accuracy at threshold {DEFAULT_THRESHOLD}: {at_threshold:.3f} "
        f"({len(test) - len(answered)} answered 'no intent')"
    )
    print(f"parse rate, one at a time (model.rank): {len(test) / parse_s:.0f} utterances/s")
    rate = asyncio.run(_engine_rate(path, [e.text for e in data.examples] * 10))
    print(f"parse rate, engine with 50 concurrent callers (batched): {rate:.0f} utterances/s")


async def _engine_rate(path: Path, texts: list[str]) -> float:
    """Throughput of EmbeddedEngine.parse as the runner drives it: 50 callers at a time."""
    engine = EmbeddedEngine({"nlu": str(path), "cache": False})
    await engine.open(None)
    queue = list(texts)

    async def caller() -> None:
        while queue:
            await engine.parse(queue.pop(), ParseContext())

    started = time.perf_counter()
    await asyncio.gather(*(caller() for _ in range(50)))
    return len(texts) / (time.perf_counter() - started)


if __name__ == "__main__":
    main()
