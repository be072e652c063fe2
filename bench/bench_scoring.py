"""Benchmark: scoring, summary, per-intent report and every export of 100,000 synthetic results.

Run: ``.venv/bin/python bench/bench_scoring.py [N]``. Prints each stage's time and, for scale,
references measured in the same run: scikit-learn's ``classification_report`` on the same
labels, a plain ``json.dumps`` of the same results, and the four exports written by one
process (``processes=1``). Target: scoring + all exports < 2 s.

Nothing is cached between stages except what the product itself shares: the exports reuse the
summary and intent report computed once (``prepare_run``). The four exports are one
``write_reports`` call, as ``nlu-tui run --json --csv --junit --rasa`` makes it: it renders
the rows in as many processes as it finds worthwhile (two on a 2-core machine), so the
"write_reports" figures are wall time and the CPU time of this process only; the children's
CPU time is printed beside them. Every file is fsynced.

The Rasa folder is timed without its PNG plots (``--rasa-no-plot``): drawing them with
matplotlib is timed apart, as a reference line, since it does not scale with the rows but with
the labels (the intent confusion matrix writes one number per cell, as Rasa's does).
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    IntentScore,
    PredictedEntity,
    Prediction,
    TestCase,
)
from nlu_tui.reports import RunMeta, prepare_run, write_reports
from nlu_tui.reports.json_report import result_dict
from nlu_tui.reports.parallel import default_processes
from nlu_tui.reports.rasa_plots import write_plots
from nlu_tui.reports.rasa_report import RasaOptions, rasa_charts, rasa_rows
from nlu_tui.scoring.bulk import score_cases
from nlu_tui.scoring.confusion import confusion_table
from nlu_tui.scoring.histogram import confidence_histogram
from nlu_tui.scoring.intent_report import build_intent_report
from nlu_tui.scoring.summary import summarize

T = TypeVar("T")


def synthetic(n: int, seed: int = 7) -> list[tuple[TestCase, Prediction]]:
    """Cases and predictions shaped like a real run: 60 intents, ~15% none, entities, ranking."""
    rng = random.Random(seed)
    intents = [f"intent_{i:02d}" for i in range(60)]
    out: list[tuple[TestCase, Prediction]] = []
    for i in range(n):
        expected = [] if rng.random() < 0.1 else [rng.choice(intents)]
        if expected and rng.random() < 0.05:
            expected.append(rng.choice(intents))
        entities = []
        predicted = []
        if rng.random() < 0.4:
            entities.append(ExpectedEntity("amount", f"{i % 90 + 10} USD"))
            amount = i % 90 + 10 if rng.random() < 0.9 else 1
            predicted.append(
                PredictedEntity("amount", [{"code": "USD", "amount": amount}], start=5)
            )
        if rng.random() < 0.2:
            entities.append(ExpectedEntity("city", "Par.*" if i % 2 else "Paris"))
            predicted.append(PredictedEntity("city", "Paris", start=20))
        roll = rng.random()
        if not expected:
            intent = None if roll < 0.8 else rng.choice(intents)
        elif roll < 0.85:
            intent = expected[0]
        elif roll < 0.95:
            intent = rng.choice(intents)
        else:
            intent = None
        conf = rng.random()
        ranking = [IntentScore(intent, conf)] if intent else []
        ranking += [IntentScore(rng.choice(intents), conf / 2) for _ in range(2)]
        case = TestCase(
            f'utterance number {i} with a few words, "quoted" & <tagged>',
            intents=[ExpectedIntent(x) for x in expected],
            entities=entities,
            entity_order=["amount"] if entities and i % 7 == 0 else [],
            id=f"{i:012x}",
        )
        pred = Prediction(
            intent=intent,
            confidence=conf,
            ranking=ranking,
            entities=predicted,
            latency_ms=rng.uniform(5, 300),
            error="HTTP 503" if rng.random() < 0.01 else None,
        )
        out.append((case, pred))
    return out


CPU: dict[str, float] = {}
CHILD_CPU: dict[str, float] = {}
EXPORTS = {"json": "r.json", "csv": "r.csv", "junit": "r.xml", "rasa": "rasa"}
NO_PLOTS = RasaOptions(plots=False)


def timed(label: str, fn: Callable[[], T], figures: dict[str, float]) -> T:
    """Wall time into ``figures``, CPU time of this process into ``CPU`` (a busy machine
    inflates wall time; CPU time shows what the code itself costs)."""
    c0, t0 = time.process_time(), time.perf_counter()
    k0 = os.times()
    value = fn()
    figures[label] = time.perf_counter() - t0
    CPU[label] = time.process_time() - c0
    k1 = os.times()
    CHILD_CPU[label] = (k1.children_user + k1.children_system) - (
        k0.children_user + k0.children_system
    )
    return value


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    data = synthetic(n)
    meta = RunMeta(id="bench", suite="bench", engine="synthetic", version="development")
    f: dict[str, float] = {}
    results = timed("score_cases (N)", lambda: score_cases(data), f)
    rows = [(c, p, r) for (c, p), r in zip(data, results, strict=True)]
    summary = timed("summarize", lambda: summarize(results), f)
    report = timed("intent report", lambda: build_intent_report(rows), f)
    labels = (report.y_true, report.y_pred)
    timed("confusion table", lambda: confusion_table(rows, labels=labels), f)
    timed("histogram", lambda: confidence_histogram(results), f)
    # Exports share what the results view already computed, as `write_reports` does.
    prepared = timed(
        "prepare exports",
        lambda: prepare_run(rows, summary=summary, intent_report=report),
        f,
    )
    processes = default_processes(len(rows))
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        targets = {fmt: base / name for fmt, name in EXPORTS.items()}
        export = partial(write_reports, targets, meta, rows, prepared=prepared, rasa=NO_PLOTS)
        timed(f"write_reports ({processes} proc)", partial(export, processes=processes), f)
        parallel_bytes = {p.name: p.read_bytes() for p in base.rglob("*") if p.is_file()}
        sizes = {name: len(data) for name, data in parallel_bytes.items()}
    total = sum(f.values())

    # References, same run, same data.
    ref: dict[str, float] = {}

    def sk() -> Any:
        from sklearn.metrics import classification_report

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return classification_report(
                report.y_true, report.y_pred, output_dict=True, zero_division=0
            )

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        targets = {fmt: base / name for fmt, name in EXPORTS.items()}
        timed(
            "write_reports (1 process)",
            partial(
                write_reports, targets, meta, rows, prepared=prepared, processes=1, rasa=NO_PLOTS
            ),
            ref,
        )
        same = {p.name: p.read_bytes() for p in base.rglob("*") if p.is_file()} == parallel_bytes
        charts = timed(
            "rasa charts (numbers)",
            lambda: rasa_charts([rasa_rows(prepared, meta, 0, len(rows))]),
            ref,
        )
        timed("rasa plots (matplotlib PNGs)", lambda: write_plots(base, charts), ref)
    if not same:
        raise SystemExit("the exports differ between 1 and several processes")
    timed("import sklearn.metrics", lambda: __import__("sklearn.metrics"), ref)
    timed("sklearn classification_report", sk, ref)
    plain = [result_dict(r) for r in rows]
    timed("json.dumps of the results", lambda: json.dumps(plain), ref)

    cpu_total = sum(CPU[k] for k in f)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"nlu-tui scoring benchmark: {n:,} results, Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs, load average {load:.2f}"
    )
    print(f"  {'stage':<24} {'wall':>9} {'cpu':>9}   (cpu: this process; children apart)")
    for label, secs in f.items():
        children = CHILD_CPU[label]
        extra = f"   +{children * 1000:.0f} ms cpu in children" if children else ""
        print(f"  {label:<24} {secs * 1000:6.0f} ms {CPU[label] * 1000:6.0f} ms{extra}")
    children_total = sum(CHILD_CPU[k] for k in f)
    verdict = "OK" if total < 2 else "MISSED"
    print(
        f"  {'TOTAL':<24} {total * 1000:6.0f} ms {cpu_total * 1000:6.0f} ms"
        f"   +{children_total * 1000:.0f} ms in children   (target: wall < 2000 ms, {verdict})"
    )
    print("references (same run):")
    for label, secs in ref.items():
        print(f"  {label:<32} {secs * 1000:6.0f} ms wall {CPU[label] * 1000:6.0f} ms cpu")
    exports = f[f"write_reports ({processes} proc)"]
    print(
        "ratios: our intent report / sklearn classification_report = "
        f"{f['intent report'] / ref['sklearn classification_report']:.2f}; "
        f"all exports, {processes} processes / 1 process = "
        f"{exports / ref['write_reports (1 process)']:.2f} (same bytes)"
    )
    print("files: " + ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in sorted(sizes.items())))


if __name__ == "__main__":
    main()
