"""Embedded engine figures: accuracy on a held-out split, training time, parse rate.

    .venv/bin/python bench/bench_embedded.py [--part financial|clinc|all] [--no-reference] [NLU_YML]

- **financial** (default data ../shared/datasets/rasa-financial-demo/nlu.yml, or NLU_YML): the
  split is 80/20, stratified by intent, ``random_state=42`` (scikit-learn ``train_test_split``).
  Rasa 3.6.21 with ``config_fast.yml`` scores 0.870 on its own 80/20 split of the same file
  (real-peers.md §1.2).
- **clinc**: CLINC150's standard split (../shared/datasets/clinc150/data_full.json): trained on
  ``train`` (15,000 examples, 150 intents), tested on ``test`` (4,500 in scope) and
  ``oos_test`` (1,000 out of scope, where no intent is expected), at the engine's default
  threshold. Prints the training time (wall and CPU), in-scope accuracy (top intent; and at the
  threshold, where an in-scope text answered "no intent" counts wrong) and out-of-scope recall
  (texts answered "no intent") next to the targets, and the same figures for the reference
  measured in the same run: the engine's LogisticRegression (L-BFGS, the default before) on the
  same features. ``--no-reference`` skips it (a minute or more).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path

from nlu_tui.engines.base import ParseContext
from nlu_tui.engines.embedded import EmbeddedEngine
from nlu_tui.engines.embedded.classifier import ClassifierConfig
from nlu_tui.engines.embedded.model import DEFAULT_THRESHOLD, EmbeddedModel
from nlu_tui.formats.rasa_yaml import load_training_data
from nlu_tui.training import TrainingData, TrainingExample

DATASETS = Path(
    os.environ.get("NLU_TUI_DATASETS")
    or Path(__file__).resolve().parents[2] / "shared" / "datasets"
)
DEFAULT = DATASETS / "rasa-financial-demo" / "nlu.yml"
CLINC = DATASETS / "clinc150" / "data_full.json"
TRAIN_TARGET_S = 10.0
IN_SCOPE_TARGET = 0.911  # Rasa 3.6's LogisticRegression pipeline on the same split (issue 27)
OOS_RECALL_TARGET = 0.70


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nlu", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--part", choices=("financial", "clinc", "all"), default="all")
    parser.add_argument("--no-reference", action="store_true", help="clinc: skip the reference")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    if args.part in ("financial", "all"):
        part_financial(args.nlu)
    if args.part in ("clinc", "all"):
        part_clinc(not args.no_reference)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


def part_financial(path: Path) -> None:
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


def _clinc_figures(config: ClassifierConfig) -> tuple[float, float, float, float, float, str]:
    """Train on CLINC150's train part: (wall s, CPU s, in-scope top-1, in-scope at the
    threshold, out-of-scope recall, classifier trained)."""
    raw = json.loads(CLINC.read_text())
    data = TrainingData(examples=[TrainingExample(text=t, intent=i) for t, i in raw["train"]])
    wall, cpu = time.perf_counter(), time.process_time()
    model = EmbeddedModel.train(data, config)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    test = model.classifier.predict_many([t for t, _i in raw["test"]])
    top1 = sum(r[0][0] == i for r, (_t, i) in zip(test, raw["test"], strict=True))
    answered = sum(
        r[0][0] == i and r[0][1] >= DEFAULT_THRESHOLD
        for r, (_t, i) in zip(test, raw["test"], strict=True)
    )
    oos = model.classifier.predict_many([t for t, _i in raw["oos_test"]])
    rejected = sum(r[0][1] < DEFAULT_THRESHOLD for r in oos)
    n, m = len(raw["test"]), len(raw["oos_test"])
    return wall, cpu, top1 / n, answered / n, rejected / m, model.classifier.model


def part_clinc(reference: bool) -> None:
    if not CLINC.exists():
        print(f"skipped: no {CLINC}")
        return
    print("CLINC150 standard split: train 15,000 (150 intents), test 4,500 in scope + 1,000 out")
    print(f"of scope, threshold {DEFAULT_THRESHOLD}; threads for training: {_threads()}")
    # imported before the clock starts, for both lines
    import scipy.sparse  # noqa: F401
    import sklearn.linear_model
    import sklearn.preprocessing
    import sklearn.svm  # noqa: F401

    rows = [("embedded (default)", ClassifierConfig())]
    if reference:
        rows.append(("reference: LogisticRegression", ClassifierConfig(name="LogisticRegression")))
    figures = []
    for label, config in rows:
        wall, cpu, top1, at, oos, name = _clinc_figures(config)
        figures.append((wall, cpu))
        print(
            f"  {label:30} {name:18} train {wall:6.1f} s (CPU {cpu:5.1f} s)  in-scope {top1:.4f}"
            f" (at threshold {at:.4f})  out-of-scope recall {oos:.4f}"
        )
    print(
        f"  targets: train <= {TRAIN_TARGET_S:.0f} s ({_met(figures[0][0] <= TRAIN_TARGET_S)}), "
        f"in-scope >= {IN_SCOPE_TARGET}, out-of-scope recall >= {OOS_RECALL_TARGET} "
        "(each line says its own)"
    )
    if len(figures) > 1:
        (wall, cpu), (ref_wall, ref_cpu) = figures
        print(f"  ratio reference/default: wall {ref_wall / wall:.1f}x, CPU {ref_cpu / cpu:.1f}x")


def _threads() -> int:
    from nlu_tui.engines.embedded.classifier import training_threads

    return training_threads()


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


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
