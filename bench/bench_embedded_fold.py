"""One cross-validation fold of the embedded engine on CLINC150, timed part by part.

    nice -n 10 .venv/bin/python bench/bench_embedded_fold.py [--profile]

Fold 1 of 5 (seed 1) of CLINC150's 15,000 training examples, 150 intents: train on 12,000
(no model cache), then test as ``test nlu --cross-validation`` tests a fold (the 12,000
training examples for the train figures and the 3,000 held out). Prints the training and
testing seconds, the test F1, and with ``--profile`` where training spends its time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cross_validation import CLINC, clinc_yaml


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="profile the training")
    args = parser.parse_args()
    if not CLINC.exists():
        print(f"skipped: no {CLINC}")
        return
    import nlu_tui
    from nlu_tui.engines.embedded.engine import EmbeddedEngine
    from nlu_tui.evaluation.data import cases_suite, subset
    from nlu_tui.evaluation.jobs import Unit, _embedded_unit
    from nlu_tui.evaluation.split import stratified_folds
    from nlu_tui.formats.rasa_yaml import load_training_data

    with tempfile.TemporaryDirectory(prefix="bench-fold-") as tmp:
        nlu = Path(tmp) / "clinc150.nlu.yml"
        clinc_yaml(nlu)
        data = load_training_data(nlu)
        labels = [e.intent for e in data.examples]
        train_idx, test_idx = stratified_folds(labels, 5, 1)[0]
        cases = cases_suite(data, "clinc150").cases
        engine = EmbeddedEngine({"nlu": str(nlu)})
        unit = Unit(
            "fold 1",
            subset(data, train_idx),
            engine.load_training_config(None),
            [cases[i] for i in test_idx],
            [cases[i] for i in train_idx],
        )
        profile = cProfile.Profile() if args.profile else None
        started = time.perf_counter()
        if profile is not None:
            profile.enable()
        result = _embedded_unit(unit, False)
        if profile is not None:
            profile.disable()
        total = time.perf_counter() - started
    assert result.error is None and result.test_metrics is not None
    print(f"nlu_tui from {Path(nlu_tui.__file__).parent}")
    print(f"CLINC150 fold 1/5: train {len(train_idx)}, test {len(test_idx)} examples, 150 intents")
    print(f"  training {result.train_seconds:6.1f} s")
    print(f"  testing  {result.test_seconds:6.1f} s  (train and test parts, {len(cases)} parses)")
    print(f"  total    {total:6.1f} s   test F1 {result.test_metrics['F1-score']:.4f}")
    if profile is not None:
        pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
