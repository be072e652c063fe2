"""How long ``nlu-tui compare`` takes on large files (prints figures; not a test).

Usage: .venv/bin/python bench/bench_compare.py [N]   (default 100000 utterances)
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

from nlu_tui.compare.decisions import CompareSettings, compare
from nlu_tui.compare.outputs import console_summary, write_outputs
from nlu_tui.compare.statistics import Statistics
from nlu_tui.compare.utterances import load_utterances
from nlu_tui.gcpause import gc_paused

INTENTS = [f"intent_{i}" for i in range(40)] + ["None"]
WORDS = ["play", "some", "music", "by", "the", "band", "tonight", "in", "the", "kitchen"]


def make(n: int, seed: int = 7) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    rng = random.Random(seed)
    expected, actual = [], []
    for _ in range(n):
        words = rng.choices(WORDS, k=8)
        text = " ".join(words)
        intent = rng.choice(INTENTS)
        ent = {"entityType": "thing", "matchText": words[2], "entityValue": {"v": words[2]}}
        expected.append({"text": text, "intent": intent, "entities": [ent]})
        guess = intent if rng.random() < 0.8 else rng.choice(INTENTS)
        got = dict(ent, entityValue={"v": words[2], "extra": 1}) if rng.random() < 0.9 else ent
        actual.append({"text": text, "intent": guess, "score": rng.random(), "entities": [got]})
    return expected, actual


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    expected, actual = make(n)
    with tempfile.TemporaryDirectory() as tmp, gc_paused():  # as the CLI does
        e, a = Path(tmp) / "e.json", Path(tmp) / "a.json"
        e.write_text(json.dumps(expected))
        a.write_text(json.dumps(actual))
        t0 = time.perf_counter()
        exp, act = load_utterances(e), load_utterances(a)
        t1 = time.perf_counter()
        decisions = compare(exp, act, CompareSettings(true_negative_intent="None"))
        stats = Statistics.from_decisions(decisions)
        t2 = time.perf_counter()
        write_outputs(Path(tmp) / "out", decisions, stats)
        console_summary(decisions, stats)
        t3 = time.perf_counter()
    print(f"utterances: {n}, decisions: {len(decisions)}")
    print(f"read both files: {t1 - t0:.2f} s")
    print(f"decide + statistics: {t2 - t1:.2f} s")
    print(f"write metadata/statistics/TestResult.xml + summary: {t3 - t2:.2f} s")
    print(f"total: {t3 - t0:.2f} s")


if __name__ == "__main__":
    main()
