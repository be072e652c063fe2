"""Results written to the run store per second: PostgreSQL next to SQLite (prints figures).

Usage: .venv/bin/python bench/bench_store_backends.py [N] [BATCH]   (default 20000 results,
batches of 100 as a busy run commits them). Starts a throwaway PostgreSQL server on loopback
with the machine's binaries (tests/postgres_peer.py; Debian: apt-get install postgresql), and
writes the same results into a fresh SQLite file and a fresh PostgreSQL database through
RunStore: committed batches (what a run does as answers arrive), then reading them back.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from postgres_peer import PASSWORD, postgres_server

from nlu_tui.model import (
    CaseResult,
    IntentScore,
    Prediction,
    ResultType,
    Suite,
    TestCase,
)
from nlu_tui.store import RunStore
from nlu_tui.store.runstore import ResultRow


def workload(n: int) -> tuple[Suite, list[tuple[int, Prediction, CaseResult]]]:
    cases = [TestCase(f"please move {i} dollars to savings", id=f"c{i}") for i in range(n)]
    kinds = [ResultType.TP, ResultType.TP, ResultType.TP, ResultType.FN, ResultType.FP]
    items = []
    for seq, case in enumerate(cases):
        pred = Prediction(
            intent="transfer",
            confidence=0.87,
            ranking=[IntentScore(f"intent_{k}", 0.87 / (k + 1)) for k in range(10)],
            raw={"intent": {"name": "transfer", "confidence": 0.87}},
            latency_ms=20.0,
        )
        items.append((seq, pred, CaseResult(case.id, kinds[seq % 5], "transfer", 0.87)))
    return Suite(name="bench", path=None, cases=cases), items


def measure(
    where: Path | str, suite: Suite, rows: list[ResultRow], batch: int
) -> tuple[float, float]:
    store = RunStore(where)
    run = store.create_run(suite, engine_name="bench")
    rows = [(run.id, *row[1:]) for row in rows]
    t0 = time.perf_counter()
    for start in range(0, len(rows), batch):
        store.insert_result_rows(run.id, rows[start : start + batch])
    write = time.perf_counter() - t0
    t0 = time.perf_counter()
    loaded = store.load_results(run.id)
    read = time.perf_counter() - t0
    assert len(loaded) == len(rows) == store.get_run(run.id).done
    store.close()
    return write, read


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    suite, items = workload(n)
    rows = RunStore.result_rows("x", items)
    figures = {}
    with tempfile.TemporaryDirectory() as tmp, postgres_server() as (host, port):
        import psycopg

        admin = f"postgresql://postgres:{PASSWORD}@{host}:{port}/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("CREATE DATABASE bench")
        url = f"postgresql://postgres:{PASSWORD}@{host}:{port}/bench"
        for name, where in (("sqlite", Path(tmp) / "runs.sqlite3"), ("postgresql", url)):
            figures[name] = measure(where, suite, rows, batch)
    print(f"{n} results in batches of {batch} (one transaction each), then read back:")
    for name, (write, read) in figures.items():
        print(f"  {name:<10} write {n / write:>9,.0f} results/s ({write:.2f} s)   "
              f"read {n / read:>9,.0f} results/s ({read:.2f} s)")  # fmt: skip
    ratio_w = (n / figures["postgresql"][0]) / (n / figures["sqlite"][0])
    ratio_r = (n / figures["postgresql"][1]) / (n / figures["sqlite"][1])
    print(f"  PostgreSQL / SQLite: write {ratio_w:.2f}x, read {ratio_r:.2f}x")


if __name__ == "__main__":
    main()
