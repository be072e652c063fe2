"""Benchmark: loading, saving, importing and validating a 10,000-case suite (Kore.ai's old limit).

Run: ``.venv/bin/python bench/bench_suites.py [N]``. Prints each stage's time in seconds, plus
``validate_case`` (the editor's per-keystroke check) on one case of the suite. A plain
``yaml.safe_load`` of the same native file is measured in the same run, for scale.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.formats import kore_csv, kore_json
from nlu_tui.formats.native import dump_suite, load_suite, save_suite
from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase
from nlu_tui.validation import validate_case, validate_suite


def synthetic(n: int) -> Suite:
    rng = random.Random(7)
    intents = [f"intent_{i}" for i in range(60)]
    cases = []
    for i in range(n):
        entities = [ExpectedEntity("amount", f"{rng.randint(1, 999)} USD")] if i % 3 == 0 else []
        cases.append(
            TestCase(
                f"case {i}: please move {rng.randint(1, 999)} dollars to account {rng.randint(1, 99)}",
                [ExpectedIntent(rng.choice(intents))],
                entities=entities,
                parent_intents=["accounts"] if i % 7 == 0 else [],
            )
        )
    return Suite("bench", cases=cases)


def timed(label: str, fn: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = fn()
    print(f"{label:<38} {time.perf_counter() - start:8.3f} s")
    return result


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    suite = synthetic(n)
    print(f"{n:,} cases")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NLU_TUI_DATA_DIR"] = tmp  # keep the parsed-suite cache out of the user's data
        native = Path(tmp) / "bench.suite.yaml"
        text = timed("dump_suite (native YAML text)", lambda: dump_suite(suite))
        timed("save_suite (atomic write + .bak)", lambda: save_suite(suite, native))
        loaded = timed("load_suite", lambda: load_suite(native))
        edited = load_suite(native, use_cache=False)
        edited.cases[n // 2].tags.append("edited")
        timed("save_suite after one edit (splice)", lambda: save_suite(edited))
        timed("yaml.safe_load of the same file (ref)", lambda: yaml.safe_load(text))
        timed("validate_suite", lambda: validate_suite(loaded))
        timed(
            "validate_case (one case, whole suite)",
            lambda: validate_case(loaded.cases[n // 2], loaded),
        )
        json_path, csv_path = Path(tmp) / "k.json", Path(tmp) / "k.csv"
        timed("export Kore.ai JSON", lambda: kore_json.write(loaded, json_path))
        timed("import Kore.ai JSON", lambda: kore_json.load(json_path))
        timed("export Kore.ai CSV", lambda: kore_csv.write(loaded, csv_path))
        timed("import Kore.ai CSV", lambda: kore_csv.load(csv_path))


if __name__ == "__main__":
    main()
