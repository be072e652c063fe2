"""``nlu-tui run --rasa DIR`` against ``rasa test nlu`` itself (issue 11 part 1, real-peers.md §1).

Two real Rasa 3.6.21 pipelines, each trained on the 80 % of the financial demo that
``rasa data split nlu --random-seed 42`` gives: CRFEntityExtractor + EntitySynonymMapper +
FallbackClassifier, and DIETClassifier + ResponseSelector (with three ``faq/...`` retrieval
intents added to the data). ``rasa test nlu --successes`` on the 20 % test split writes its
files; the same model served over HTTP and run by nlu-tui on the same split must write equal
ones (numbers to 1e-9; where Rasa writes no file for an empty list, ours must be ``[]``) and
the same PNG plots. Three examples of the split are repeated, which both must drop as duplicates.
Needs the peer venv of ``tests/peers/setup_rasa.sh``; skipped with the reason otherwise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.rasa_peer import project, rasa, served

pytestmark = [pytest.mark.rasa, pytest.mark.slow]

CONFIG_CRF = """recipe: default.v1
assistant_id: peers-eval
language: en
pipeline:
  - name: WhitespaceTokenizer
  - name: LexicalSyntacticFeaturizer
  - name: CountVectorsFeaturizer
  - name: CountVectorsFeaturizer
    analyzer: char_wb
    min_ngram: 1
    max_ngram: 4
  - name: LogisticRegressionClassifier
  - name: CRFEntityExtractor
  - name: EntitySynonymMapper
  - name: FallbackClassifier
    threshold: 0.7
policies: []
"""
CONFIG_DIET = """recipe: default.v1
assistant_id: peers-eval-rs
language: en
pipeline:
  - name: WhitespaceTokenizer
  - name: CountVectorsFeaturizer
  - name: CountVectorsFeaturizer
    analyzer: char_wb
    min_ngram: 1
    max_ngram: 4
  - name: DIETClassifier
    epochs: 10
  - name: EntitySynonymMapper
  - name: ResponseSelector
    epochs: 10
    retrieval_intent: faq
policies: []
"""
FAQ = {
    "ask_fees": [
        "what are your fees", "how much do you charge", "is there a monthly fee",
        "do you charge for transfers", "what does an account cost", "are there any hidden fees",
        "how expensive is the account", "what is the fee for a wire",
        "do I pay anything for the card", "fees please", "tell me about charges",
        "how much is the annual fee",
    ],
    "ask_hours": [
        "when are you open", "what are your opening hours", "are you open on sunday",
        "what time do branches close", "when does the bank open", "opening times please",
        "are you open today", "what hours is support available", "can I visit on saturday",
        "until when are you open", "what time do you open tomorrow",
        "is the branch open at night",
    ],
    "ask_contact": [
        "how can I contact you", "what is your phone number", "give me your email address",
        "how do I reach support", "can I call someone", "where can I write to you",
        "customer service number please", "how to get in touch", "is there a hotline",
        "contact details", "I need to speak to a person", "who do I call for help",
    ],
}  # fmt: skip
PIPELINES = {
    # name: (config, retrieval intents and a domain with their responses, files Rasa must write)
    "crf-fallback": (
        CONFIG_CRF,
        False,
        {"intent_report.json", "intent_errors.json", "CRFEntityExtractor_report.json",
         "CRFEntityExtractor_errors.json"},
    ),
    "diet-responseselector": (
        CONFIG_DIET,
        True,
        {"intent_report.json", "intent_errors.json", "DIETClassifier_report.json",
         "DIETClassifier_errors.json", "response_selection_report.json"},
    ),
}  # fmt: skip


def _add_duplicates(test_data: Path) -> None:
    """Repeat the first three examples of the test split in a block of their own: Rasa's reader
    drops such duplicates (``TrainingData.sanitize_examples``), so must nlu-tui."""
    lines = test_data.read_text().splitlines()
    intent = ""
    repeated: list[str] = []
    for line in lines:
        if line.startswith("- intent: "):
            intent = line.removeprefix("- intent: ")
        elif line.startswith("    - ") and len(repeated) < 9:
            repeated += [f"- intent: {intent}", "  examples: |", line]
    assert len(repeated) == 9
    test_data.write_text("\n".join([*lines, *repeated]) + "\n")


def _add_faq(work: Path) -> None:
    with (work / "data" / "nlu.yml").open("a") as f:
        for key, examples in FAQ.items():
            f.write(f"\n- intent: faq/{key}\n  examples: |\n")
            f.writelines(f"    - {e}\n" for e in examples)
    domain = 'version: "3.1"\nintents:\n  - faq\nresponses:\n'
    domain += "".join(f"  utter_faq/{k}:\n  - text: about {k}\n" for k in FAQ)
    (work / "domain.yml").write_text(domain)


@pytest.fixture(scope="module", params=list(PIPELINES))
def peer(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, str, set[str]]]:
    """(work folder with the split and Rasa's results, URL of the same model served, the
    files Rasa must have written) for one pipeline."""
    config, faq, files = PIPELINES[request.param]
    work = tmp_path_factory.mktemp("rasa-eval")
    env = project(work, config)
    domain: list[str] = []
    if faq:
        _add_faq(work)
        domain = ["--domain", "domain.yml"]
    split = "train_test_split"
    rasa(work, env, "data", "split", "nlu", "-u", "data/nlu.yml", "--random-seed", "42")
    _add_duplicates(work / split / "test_data.yml")
    rasa(
        work, env, "train", "nlu", "--config", "config.yml", "--nlu",
        f"{split}/training_data.yml", "--out", "models", "--fixed-model-name", "eval", *domain,
    )  # fmt: skip
    rasa(
        work, env, "test", "nlu", "--nlu", f"{split}/test_data.yml", "-m",
        "models/eval.tar.gz", "--out", "rasa_results", "--successes", *domain,
    )  # fmt: skip
    with served(work, env, "models/eval.tar.gz") as url:
        yield work, url, files


def _synonym_groups(path: Path) -> tuple[tuple[str, ...], ...]:
    from nlu_tui.formats.registry import import_suite
    from nlu_tui.scoring.case import suite_synonyms

    return suite_synonyms(import_suite(path).suite)


def assert_same(ours: Any, theirs: Any, where: str) -> None:
    """Equal JSON, numbers to 1e-9."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and set(ours) == set(theirs), where
        for key, value in theirs.items():
            assert_same(ours[key], value, f"{where}.{key}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(theirs, float) or isinstance(ours, float):
        assert isinstance(ours, int | float) and abs(ours - theirs) <= 1e-9, where
    else:
        assert ours == theirs, where


def test_run_rasa_writes_what_rasa_test_nlu_writes(
    peer: tuple[Path, str, set[str]], tmp_path: Path
) -> None:
    work, url, files = peer
    ours = tmp_path / "ours"
    env = {
        **os.environ,
        "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
    }
    done = subprocess.run(
        [
            sys.executable, "-m", "nlu_tui", "run",
            str(work / "train_test_split" / "test_data.yml"),
            "--engine", f"rasa:{url}", "--rasa", str(ours), "--rasa-successes",
            "--json", str(tmp_path / "ours.json"),
        ],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-2000:]
    theirs = work / "rasa_results"
    their_files = {p.name for p in theirs.glob("*.json")}
    assert files <= their_files
    # the same images (intent, response selection and per-extractor confusion matrices and
    # histograms): the numbers drawn are checked against Rasa's code in test_rasa_plots.py
    their_plots = {p.name for p in theirs.glob("*.png")}
    assert "intent_confusion_matrix.png" in their_plots
    assert {p.name for p in ours.glob("*.png")} == their_plots
    assert json.loads((ours / "metric_spec.json").read_text())["settings"]["fallback"]
    for name in sorted({p.name for p in ours.glob("*.json")} - {"metric_spec.json"} | their_files):
        mine = json.loads((ours / name).read_text())
        if name not in their_files:  # Rasa writes no file for an empty list; we write []
            assert mine == [], name
            continue
        assert_same(mine, json.loads((theirs / name).read_text()), name)
    # The Kore.ai-style entity metric beside them applies the split's synonyms, as the
    # pipeline's EntitySynonymMapper does: no failure is a value the mapper renamed.
    from nlu_tui.scoring.case import ScoringOptions

    suite_synonyms = _synonym_groups(work / "train_test_split" / "test_data.yml")
    options = ScoringOptions(entity_synonyms=suite_synonyms)
    report = json.loads((tmp_path / "ours.json").read_text())
    failures = [e for r in report["results"] for e in r["entities"] if not e["ok"]]
    renamed = [
        e for e in failures if e["matched"] and e["matched"] in options.synonyms_of(e["expected"])
    ]
    assert suite_synonyms and renamed == []
    print(
        f"Kore-style entity success {report['summary']['entity_success']}, {len(failures)} failed"
    )
    if "CRFEntityExtractor_report.json" in files:
        # The pipeline's fallback fired (so undoing it mattered) and entities were scored.
        listed = [
            *json.loads((theirs / "intent_errors.json").read_text()),
            *json.loads((theirs / "intent_successes.json").read_text()),
        ]
        assert any(e["intent_prediction"]["confidence"] < 0.7 for e in listed)
        assert json.loads((theirs / "CRFEntityExtractor_report.json").read_text())
