"""Entity synonyms of imported Rasa data in the Kore.ai-style entity metric (issue 11: "17 of 24
entity failures were right spans whose value Rasa's EntitySynonymMapper normalised (expected
``credit card``, engine ``credit``)").

Rasa's ``EntitySynonymMapper`` maps a value whose lower-cased text is a synonym variant to the
synonym's name (``rasa/nlu/extractors/entity_synonyms.py``, ``process``); an expected value of
such a group therefore accepts any value of the group.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.formats.registry import import_suite
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    PredictedEntity,
    Prediction,
    Suite,
    TestCase,
    ValueKind,
)
from nlu_tui.scoring.case import (
    ScoringOptions,
    score_case,
    suite_synonyms,
    synonyms_from_json,
    synonyms_json,
)
from nlu_tui.store.runstore import RunStore
from tests.conftest import DATASETS

RASA_TEST_FILE = """version: "3.1"
nlu:
- intent: check_balance
  examples: |
    - what's my [credit card](account_type) balance
    - show my [Credit Cards](account_type) please
    - what's on my [savings](account_type)
- synonym: credit
  examples: |
    - credit card
    - credit cards
    - card
"""


def _predict(value: str) -> Prediction:
    return Prediction(
        intent="check_balance",
        confidence=0.9,
        entities=[PredictedEntity("account_type", value, start=10, end=21)],
    )


def test_an_imported_rasa_file_accepts_the_synonym_name(tmp_path: Path) -> None:
    path = tmp_path / "test_data.yml"
    path.write_text(RASA_TEST_FILE)
    suite = import_suite(path).suite
    first, second, third = suite.cases
    assert first.entities[0].value == "credit card"  # the file's value, kept as written
    options = ScoringOptions().for_suite(suite)
    assert suite_synonyms(suite) == (("credit", "credit card", "credit cards", "card"),)
    # The case: a Rasa engine with EntitySynonymMapper answers "credit".
    assert score_case(first, _predict("credit")).entities[0].ok is False  # no synonyms
    assert score_case(first, _predict("credit"), options).entities[0].ok is True
    # An engine without the mapper answering the text; the lookup ignores case, as Rasa's.
    assert score_case(first, _predict("credit card"), options).entities[0].ok is True
    assert score_case(second, _predict("credit"), options).entities[0].ok is True
    assert score_case(second, _predict("CARD"), options).entities[0].ok is True
    # Outside the group: still wrong; a value in no group is unchanged.
    assert score_case(first, _predict("debit"), options).entities[0].ok is False
    assert score_case(third, _predict("credit"), options).entities[0].ok is False
    assert score_case(third, _predict("savings"), options).entities[0].ok is True
    # What the result says the expected value was: as written.
    assert score_case(first, _predict("credit"), options).entities[0].expected == "credit card"


def test_only_auto_and_exact_values_take_synonyms() -> None:
    options = ScoringOptions(entity_synonyms=(("credit", "credit card"),))
    case = TestCase(
        "my credit card",
        intents=[ExpectedIntent("x")],
        entities=[ExpectedEntity("t", "credit card", kind=ValueKind.REGEX)],
    )
    prediction = Prediction(intent="x", entities=[PredictedEntity("t", "credit")])
    assert score_case(case, prediction, options).entities[0].ok is False


def test_synonym_groups_travel_with_the_run_record() -> None:
    groups = (("credit", "credit card"), ("current balance", "balance"))
    assert synonyms_from_json(json.loads(json.dumps(synonyms_json(groups)))) == groups
    assert synonyms_from_json(None) == () and synonyms_from_json({"a": 1}) == ()
    assert suite_synonyms(Suite("s")) == ()


@pytest.mark.slow
def test_financial_demo_entities_all_right_on_its_own_training_data(tmp_path: Path) -> None:
    """The financial demo, run against the embedded engine trained on it (which maps synonyms
    as EntitySynonymMapper does): without the file's synonyms, 91 of its expected values
    (``balance`` → ``current balance``, ``credit card`` → ``credit``, …) counted as failures."""
    data = DATASETS / "rasa-financial-demo" / "nlu.yml"
    if not data.exists():
        pytest.skip(f"dataset not available: {data}")
    done = subprocess.run(
        [sys.executable, "-m", "nlu_tui", "run", str(data), "--engine", f"embedded:{data}",
         "--json", str(tmp_path / "r.json")],
        capture_output=True, text=True, timeout=300, env=dict(os.environ),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["entity_success"] == 1.0
    renamed = [
        (e["expected"], e["matched"])
        for r in report["results"]
        for e in r["entities"]
        if e["expected"].casefold() != (e["matched"] or "").casefold()
    ]
    assert ("credit card", "credit") in renamed and ("balance", "current balance") in renamed
    assert len(renamed) == 91
    (run,) = RunStore().list_runs()
    groups = run.options["entity_synonyms"]  # kept to resume the run with the same synonyms
    assert ["current balance", "balance", "full", "full balance"] in groups
    assert any(g[:3] == ["credit", "credit card", "credit cards"] for g in groups)


def test_a_resumed_run_scores_with_the_synonyms_it_started_with(tmp_path: Path) -> None:
    """The suite's training data is not stored with the run: the record keeps the groups."""
    from runner_loopback import LoopbackEngine, Resolved

    from nlu_tui.model import RunStatus
    from nlu_tui.runner.run import Run

    path = tmp_path / "test_data.yml"
    path.write_text(RASA_TEST_FILE)
    suite = import_suite(path).suite
    store = RunStore(tmp_path / "r.db")
    engine = Resolved(LoopbackEngine("http://127.0.0.1:9"))
    started = Run(suite, engine, store)
    record = started.prepare()
    store.finish_run(record.id, RunStatus.CANCELED)
    resumed = Run(Suite("placeholder"), engine, store, resume_run_id=record.id)
    resumed.prepare()
    assert resumed._scoring.entity_synonyms == started._scoring.entity_synonyms
    assert resumed._scoring.entity_synonyms == suite_synonyms(suite) != ()
