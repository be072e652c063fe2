"""Cross-validation speed: the embedded engine on CLINC150, and nlu-tui against ``rasa test nlu``.

    .venv/bin/python bench/bench_cross_validation.py [--part embedded|financial|rasa|all] [--jobs N]

- **embedded**: 5-fold ``test nlu --cross-validation`` of the embedded engine on CLINC150's
  15,000 training examples (``../shared/datasets/clinc150/data_full.json``, converted to Rasa
  YAML in a temporary folder), trained in ``--jobs`` processes with an empty model cache; then
  the same evaluation again, which re-trains nothing (models come from the cache). Ratio: cold
  over cached. Target: cold <= 60 s.
- **financial**: the embedded engine's 5-fold cross-validation of the financial demo, cold, next
  to ``rasa test nlu --cross-validation`` on the same folds (the ``rasa`` part's figure, measured
  once and kept in :data:`RASA_FINANCIAL_SECONDS`; ``--rasa-seconds`` gives another). Target:
  Rasa's time / ours >= 6. Also prints the entity figures per extractor (mean over the folds).
- **rasa**: 5-fold cross-validation of the financial demo against a real Rasa 3.6
  (``tests/peers/setup_rasa.sh``) with one small pipeline: nlu-tui training it over HTTP
  (``rasa run --enable-api``, ``POST /model/train``; server start-up not counted), next to
  ``rasa test nlu --cross-validation --folds 5`` with the same config, both timed here. Ratio:
  Rasa's time over ours. The machine is shared: run this part once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATASETS = Path(os.environ.get("NLU_TUI_DATASETS") or REPO.parent / "shared" / "datasets")
CLINC = DATASETS / "clinc150" / "data_full.json"
FINANCIAL = DATASETS / "rasa-financial-demo" / "nlu.yml"
RASA = Path(os.environ.get("NLU_TUI_PEERS_DIR", Path.home() / ".cache" / "nlu-tui-peers")) / (
    "rasa310/bin/rasa"
)
RASA_FINANCIAL_SECONDS = 44.1
"""``rasa test nlu --cross-validation --folds 5`` on the financial demo (Rasa 3.6.21, the
``LogisticRegressionClassifier`` pipeline below), measured by ``--part rasa`` (bench/README.md)."""
CV_TARGET_SECONDS = 60.0
RASA_RATIO_TARGET = 6.0
RASA_CONFIG = """recipe: default.v1
assistant_id: bench-cv
language: en
pipeline:
  - name: WhitespaceTokenizer
  - name: CountVectorsFeaturizer
  - name: CountVectorsFeaturizer
    analyzer: char_wb
    min_ngram: 1
    max_ngram: 4
  - name: LogisticRegressionClassifier
  - name: EntitySynonymMapper
policies: []
"""


def clinc_yaml(target: Path) -> int:
    data = json.loads(CLINC.read_text())
    by_intent: dict[str, list[str]] = {}
    for text, intent in data["train"]:
        by_intent.setdefault(intent, []).append(text)
    lines = ['version: "3.1"', "", "nlu:"]
    for intent, texts in by_intent.items():
        lines += [f"- intent: {intent}", "  examples: |"]
        lines += [f"    - {t.replace(chr(10), ' ')}" for t in texts]
    target.write_text("\n".join(lines) + "\n")
    return len(data["train"])


def cross_validate(
    nlu: Path, engine: str, config: Path | None, jobs: int, out: Path
) -> tuple[float, object]:
    from nlu_tui.evaluation import service
    from nlu_tui.store.runstore import RunStore

    request = service.EvalRequest(
        nlu=nlu,
        engine=engine,
        mode=service.CROSS_VALIDATION,
        configs=[config] if config else [],
        folds=5,
        seed=1,
        jobs=jobs,
        out=out,
        plots=False,  # as `rasa test nlu --no-plot` below: training and testing are measured
    )
    started = time.perf_counter()
    plan = service.plan(request)
    store = RunStore()
    try:
        outcome = asyncio.run(service.evaluate(plan, store))
    finally:
        store.close()
    return time.perf_counter() - started, outcome


def test_f1(outcome: object) -> str:
    from nlu_tui.evaluation.metrics import summarise

    folds = [f.test for f in outcome.folds if f.test]  # type: ignore[attr-defined]
    mean, std = summarise(folds)["F1-score"]
    return f"{mean:.3f} ± {std:.3f}"


def part_embedded(work: Path, jobs: int) -> None:
    if not CLINC.exists():
        print(f"skipped: no {CLINC}")
        return
    nlu = work / "clinc150.nlu.yml"
    n = clinc_yaml(nlu)
    cold, outcome = cross_validate(nlu, "embedded", None, jobs, work / "cold")
    warm, again = cross_validate(nlu, "embedded", None, jobs, work / "warm")
    met = "met" if cold <= CV_TARGET_SECONDS else "NOT met"
    print(f"embedded, CLINC150 train ({n} examples, 150 intents), 5 folds, --jobs {jobs}")
    print(
        f"  cold (trains 5 models): {cold:8.1f} s   test F1 {test_f1(outcome)}"
        f"   (target <= {CV_TARGET_SECONDS:.0f} s: {met})"
    )
    print(f"  again (model cache):    {warm:8.1f} s   test F1 {test_f1(again)}")
    print(f"  ratio cold/cached: {cold / warm:.1f}x")
    print(f"  training per fold: {train_seconds(outcome)}")


def train_seconds(outcome: object) -> str:
    seconds = [f.train_seconds for f in outcome.folds]  # type: ignore[attr-defined]
    return ", ".join(f"{s:.1f}" for s in seconds) + " s"


def entity_f1(outcome: object) -> str:
    from nlu_tui.evaluation.metrics import summarise_entities

    folds = [f.test_entities or {} for f in outcome.folds]  # type: ignore[attr-defined]
    figures = summarise_entities(folds)
    return ", ".join(
        f"{name} F1 {stats['F1-score'][0]:.3f} ± {stats['F1-score'][1]:.3f}"
        for name, stats in figures.items()
    )


def part_financial(work: Path, jobs: int, rasa_seconds: float) -> None:
    if not FINANCIAL.exists():
        print(f"skipped: no {FINANCIAL}")
        return
    ours, outcome = cross_validate(FINANCIAL, "embedded", None, jobs, work / "financial")
    ratio = rasa_seconds / ours
    met = "met" if ratio >= RASA_RATIO_TARGET else "NOT met"
    print(f"embedded, financial demo, 5 folds, --jobs {jobs}, cold")
    print(f"  nlu-tui test nlu --cross-validation:   {ours:8.1f} s   test F1 {test_f1(outcome)}")
    print(f"  rasa test nlu --cross-validation:      {rasa_seconds:8.1f} s   (bench/README.md)")
    print(f"  ratio rasa/nlu-tui: {ratio:.1f}x (target >= {RASA_RATIO_TARGET:.0f}x: {met})")
    print(f"  entities (test folds): {entity_f1(outcome)}")
    print(f"  training per fold: {train_seconds(outcome)}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def part_rasa(work: Path) -> None:
    import httpx

    if not RASA.exists() or not FINANCIAL.exists():
        print(f"skipped: needs {RASA} and {FINANCIAL}")
        return
    project = work / "rasa"
    (project / "data").mkdir(parents=True)
    shutil.copy(FINANCIAL, project / "data" / "nlu.yml")
    config = project / "config.yml"
    config.write_text(RASA_CONFIG)
    env = {**os.environ, "RASA_TELEMETRY_ENABLED": "false", "HOME": str(project),
           "SQLALCHEMY_SILENCE_UBER_WARNING": "1"}  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(
        [str(RASA), "test", "nlu", "--nlu", "data/nlu.yml", "--config", "config.yml",
         "--cross-validation", "--folds", "5", "--out", "rasa_results", "--no-plot"],
        cwd=project, env=env, capture_output=True, text=True, timeout=3600,
    )  # fmt: skip
    rasa_s = time.perf_counter() - started
    if done.returncode != 0:
        print(done.stdout[-2000:] + done.stderr[-2000:])
        return
    port = _free_port()
    log = (project / "server.log").open("w")
    server = subprocess.Popen(
        [str(RASA), "run", "--enable-api", "-i", "127.0.0.1", "-p", str(port)],
        cwd=project, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                if httpx.get(f"{url}/version", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                print("rasa run did not start")
                return
            time.sleep(0.5)
        ours_s, outcome = cross_validate(FINANCIAL, f"rasa:{url}", config, 1, work / "ours")
        again_s, _ = cross_validate(FINANCIAL, f"rasa:{url}", config, 1, work / "again")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    print("real Rasa 3.6, financial demo, 5 folds, LogisticRegressionClassifier pipeline")
    print(f"  rasa test nlu --cross-validation:       {rasa_s:8.1f} s")
    print(f"  nlu-tui test nlu --cross-validation:    {ours_s:8.1f} s   test F1 {test_f1(outcome)}")
    print(f"  nlu-tui again (models loaded, cached):  {again_s:8.1f} s")
    print(
        f"  ratio rasa/nlu-tui: {rasa_s / ours_s:.2f}x, rasa/nlu-tui cached: {rasa_s / again_s:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("embedded", "financial", "rasa", "all"), default="all")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--rasa-seconds",
        type=float,
        default=RASA_FINANCIAL_SECONDS,
        help="rasa test nlu's cross-validation time to compare the financial part with",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cv-") as tmp:
        work = Path(tmp)
        os.environ["NLU_TUI_DATA_DIR"] = str(work / "data")  # an empty model cache and store
        if args.part in ("embedded", "all"):
            part_embedded(work, args.jobs)
        if args.part in ("financial", "all"):
            part_financial(work, args.jobs, args.rasa_seconds)
        if args.part in ("rasa", "all"):
            part_rasa(work)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
