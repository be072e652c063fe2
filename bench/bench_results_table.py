"""Benchmark: the results table with 100,000 results (open, sort, filter), printing the times.

Builds 100,000 scored results in memory (no engine), mounts the results table in a headless
Textual app and times:

- open: rows -> Arrow table (done in a worker thread by the results pane) and the first paint
  of the table on the UI thread (what opening a run's results costs once they are loaded);
- sort: by confidence (descending) and by utterance, each until the table has repainted
  (the filter and sort run in a worker; "UI thread blocked" is the part the app is frozen);
- filter: FP only, and a text search.

Targets (issue 6): open under 0.5 s, sort under 0.3 s. Run: ``.venv/bin/python bench/bench_results_table.py``.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import time
from typing import Any

N = 100_000
REPEAT = 3


def build(n: int) -> tuple[dict[str, Any], list[Any]]:
    from nlu_tui.model import CaseResult, EntityResult, ExpectedIntent, ResultType, TestCase

    rnd = random.Random(7)
    intents = [f"intent_{i:02d}" for i in range(60)]
    words = [
        "send",
        "pay",
        "block",
        "card",
        "balance",
        "savings",
        "transfer",
        "money",
        "please",
        "now",
        "my",
        "the",
        "to",
    ]
    kinds = [ResultType.TP] * 7 + [ResultType.TN, ResultType.FP, ResultType.FN]
    cases: dict[str, Any] = {}
    results: list[Any] = []
    for i in range(n):
        expected = rnd.choice(intents)
        case = TestCase(
            " ".join(rnd.choice(words) for _ in range(rnd.randint(3, 14))) + f" #{i}",
            [ExpectedIntent(expected)],
            id=f"c{i:06d}",
        )
        cases[case.id] = case
        kind = rnd.choice(kinds)
        matched = expected if kind is ResultType.TP else rnd.choice(intents)
        results.append(
            CaseResult(
                case.id,
                kind,
                None if kind in (ResultType.TN, ResultType.FN) else matched,
                rnd.random(),
                [EntityResult("amount", "20", "20", True)],
                latency_ms=rnd.uniform(1, 400),
            )
        )
    return cases, results


async def measure(cases: dict[str, Any], results: list[Any]) -> dict[str, float]:
    from textual.app import App, ComposeResult

    from nlu_tui.ui.widgets.results_table import ResultsTable
    from nlu_tui.views.result_columns import ResultColumns, ResultFilter

    class Bench(App[None]):
        def compose(self) -> ComposeResult:
            yield ResultsTable()

    app = Bench()
    times: dict[str, float] = {}
    async with app.run_test(size=(160, 45)) as pilot:
        table = app.query_one(ResultsTable)
        await pilot.pause()

        async def timed(name: str, action: Any) -> None:
            shown = table.views_shown
            start = time.perf_counter()
            action()
            times[f"  {name}: UI thread blocked"] = time.perf_counter() - start
            while table.views_shown == shown:  # the view is computed in a worker
                await asyncio.sleep(0.002)
            await pilot.pause()  # until the table has been repainted
            times[name] = time.perf_counter() - start

        start = time.perf_counter()
        rows = ResultColumns()
        rows.extend(cases, results)
        arrow = rows.to_arrow()
        times["open: prepare rows (worker thread)"] = time.perf_counter() - start
        await timed("open: show (UI thread)", lambda: table.load_prepared(rows, arrow))
        times["open: total"] = (
            times["open: prepare rows (worker thread)"] + times["open: show (UI thread)"]
        )
        assert table.view_count == len(results)
        await timed("sort confidence desc", lambda: table.sort_by("confidence", True))
        await timed("sort utterance", lambda: table.sort_by("utterance"))
        await timed("sort latency", lambda: table.sort_by("latency_ms"))
        await timed("filter FP only", lambda: table.set_filter(ResultFilter(frozenset({"FP"}))))
        await timed("filter text 'savings'", lambda: table.set_filter(ResultFilter(text="savings")))
        await timed("clear filter", lambda: table.set_filter(ResultFilter()))
    return times


def main() -> int:
    print(f"results table benchmark: {N:,} results, best and median of {REPEAT} runs")
    start = time.perf_counter()
    cases, results = build(N)
    print(f"  (building the results in memory took {time.perf_counter() - start:.2f} s)")
    runs = [asyncio.run(measure(cases, results)) for _ in range(REPEAT)]
    targets = {
        "open: total": 0.5,
        "sort confidence desc": 0.3,
        "sort utterance": 0.3,
        "sort latency": 0.3,
    }
    ok = True
    for name in runs[0]:
        values = [r[name] for r in runs]
        best, median = min(values), statistics.median(values)
        target = targets.get(name)
        verdict = ""
        if target is not None:
            passed = median < target
            ok &= passed
            verdict = f"  target < {target:.1f} s: {'ok' if passed else 'MISSED'}"
        print(f"  {name:<36} best {best * 1000:7.1f} ms  median {median * 1000:7.1f} ms{verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
