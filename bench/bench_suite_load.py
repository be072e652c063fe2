"""Benchmark: opening a big native suite — first load, cached load, first chunk, and the reference.

Run: ``.venv/bin/python bench/bench_suite_load.py [N ...]`` (default 10000 100000). For each size
it writes a synthetic suite (intents, entities with alternatives, entity order, tags, some
parent paths) and prints, in seconds:

- ``first load``: ``load_suite`` with the cache empty (parses the YAML, then stores the cache);
- ``first chunk``: time until ``iter_suite_chunks`` hands over the first 2,000 cases;
- ``cached load``: ``load_suite`` again (file unchanged: served from the parsed-suite cache);
- ``YAML reader only``: the first load with the fast path of ``formats/native_fast.py`` off
  (every chunk composed by libyaml and read node by node, as before that fast path);
- ``reference``: ``yaml.load(text, CSafeLoader)`` of the same file (plain dicts, no checks);

and the ratios of the first and cached loads to the reference, and of the first load to the
YAML reader alone. Each figure is given twice: wall-clock seconds, and the CPU seconds of this
process (``time.process_time``), which other work on a shared machine disturbs far less; the
load average before and after is printed so a figure can be judged. Target (issue 27): first
load of 100,000 cases <= 3 s (wall) on an idle machine. The cache goes to a temporary data
directory, so the user's own cache is left alone.
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


def synthetic(n: int) -> Any:
    from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase

    rng = random.Random(7)
    intents = [f"intent_{i}" for i in range(60)]
    cases = []
    for i in range(n):
        entities = (
            [
                ExpectedEntity("amount", f"{rng.randint(1, 999)} USD"),
                ExpectedEntity("payee", "Leo.*", alternatives=["Leonardo"]),
            ]
            if i % 2 == 0
            else []
        )
        cases.append(
            TestCase(
                f"case {i}: please move {rng.randint(1, 999)} dollars to account "
                f"{rng.randint(1, 99)}",
                [ExpectedIntent(rng.choice(intents))],
                entities=entities,
                entity_order=[e.name for e in entities],
                tags=["smoke", f"t{i % 5}"],
                parent_intents=["accounts"] if i % 7 == 0 else [],
            )
        )
    return Suite("bench", cases=cases)


class Took:
    """Wall-clock and CPU seconds of one call."""

    def __init__(self, wall: float, cpu: float) -> None:
        self.wall, self.cpu = wall, cpu

    def __str__(self) -> str:
        return f"{self.wall:8.3f} s  (CPU {self.cpu:7.3f} s)"


def timed(fn: Callable[[], Any]) -> tuple[Took, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return Took(time.perf_counter() - wall, time.process_time() - cpu), result


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def first_chunk(path: Path) -> int:
    from nlu_tui.formats.native import iter_suite_chunks

    chunks = iter_suite_chunks(path, 2000, use_cache=False)
    count = len(next(chunks).cases)
    chunks.close()
    return count


def yaml_reader_only(path: Path) -> Any:
    """``load_suite`` with the fast path off: every chunk through the YAML reader."""
    from nlu_tui.formats import native_fast
    from nlu_tui.formats.native import load_suite

    original = native_fast.FastReader.cases

    def refuse(self: Any, *args: Any) -> Any:
        raise native_fast.NotCanonical

    native_fast.FastReader.cases = refuse  # type: ignore[method-assign]
    try:
        return load_suite(path, use_cache=False)
    finally:
        native_fast.FastReader.cases = original  # type: ignore[method-assign]


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 100_000]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NLU_TUI_DATA_DIR"] = str(Path(tmp) / "data")
        from nlu_tui.formats import suite_cache
        from nlu_tui.formats.native import dump_suite, load_suite

        for n in sizes:
            path = Path(tmp) / f"bench-{n}.suite.yaml"
            path.write_text(dump_suite(synthetic(n)), encoding="utf-8")
            size_mb = path.stat().st_size / 1e6
            suite_cache.clear()
            before = load()
            first, suite = timed(lambda p=path: load_suite(p))
            chunk, count = timed(lambda p=path: first_chunk(p))
            cached, again = timed(lambda p=path: load_suite(p))
            assert again == suite and len(again.cases) == n
            text = path.read_text(encoding="utf-8")
            ref, _ = timed(lambda t=text: yaml.load(t, Loader=yaml.CSafeLoader))
            slow, slow_suite = timed(lambda p=path: yaml_reader_only(p))
            assert slow_suite == suite
            print(f"{n:,} cases ({size_mb:.1f} MB); before: {before}, after: {load()}")
            print(f"  first load (parse + store cache)   {first}   {first.cpu / ref.cpu:5.2f}x ref")
            print(f"  first chunk ({count:,} cases)        {chunk}")
            print(
                f"  cached load                        {cached}   {cached.cpu / ref.cpu:5.2f}x ref"
            )
            print(
                f"  first load, YAML reader only       {slow}   {first.cpu / slow.cpu:5.2f}x this"
            )
            print(f"  yaml.load(CSafeLoader) reference   {ref}")
            print("  (ratios of CPU seconds)")
            if n >= 100_000:
                verdict = "met" if first.wall <= 3.0 else "missed"
                print(f"  target: first load <= 3 s for 100,000 cases: {verdict}")


if __name__ == "__main__":
    main()
