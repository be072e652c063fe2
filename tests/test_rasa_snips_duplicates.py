"""SNIPS-2017 validate, 700 examples of which 3 repeat an earlier one: ``rasa test nlu`` reports
support 697, since Rasa's reader drops duplicates (``TrainingData.sanitize_examples``); so must
the Rasa reports of nlu-tui (issue 11: "On SNIPS-2017 validate, Rasa drops the 3 duplicate test
examples when it reads the file (support 697 vs 700)").

The SNIPS JSON is written as Rasa YAML here (chunks with an ``entity`` become ``[text](slot)``).
Oracles: the duplicates counted by hand in this file, and Rasa's own reader (the peer venv of
``tests/peers/setup_rasa.sh``; that test is skipped without it).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from nlu_tui.formats.registry import import_suite
from nlu_tui.model import Prediction
from nlu_tui.reports import RunMeta, write_reports
from nlu_tui.reports.rasa_report import RasaOptions, rasa_examples
from nlu_tui.scoring.case import score_case
from nlu_tui.scoring.rasa_reader import duplicate_rows
from tests.conftest import DATASETS

SNIPS = DATASETS / "snips2017"
PEER_PYTHON = (
    Path(os.environ.get("NLU_TUI_PEERS_DIR", Path.home() / ".cache" / "nlu-tui-peers"))
    / "rasa310"
    / "bin"
    / "python"
)
REPEATED = {
    ("GetWeather", "Tell me the weather forecast here"),
    ("RateBook", "Give Wilco: Learning How to Die a rating of four points."),
    ("RateBook", "Rate this saga two out of 6."),
}
"""The three examples that occur twice with the same slots, found by hand."""


def _snips_validate() -> list[tuple[str, list[dict[str, str]]]]:
    if not SNIPS.is_dir():
        pytest.skip(f"dataset not available: {SNIPS}")
    out = []
    for path in sorted(SNIPS.glob("*/validate_*.json")):
        for intent, examples in json.loads(path.read_text(encoding="utf-8")).items():
            out += [(intent, example["data"]) for example in examples]
    return out


def _as_rasa_yaml(path: Path) -> Path:
    lines = ['version: "3.1"', "nlu:"]
    current = None
    for intent, chunks in _snips_validate():
        if intent != current:
            lines += [f"- intent: {intent}", "  examples: |"]
            current = intent
        # one chunk holds a line break: a YAML block line cannot
        text = "".join(
            f"[{c['text']}]({c['entity']})" if c.get("entity") else c["text"] for c in chunks
        ).replace("\n", " ")
        lines.append(f"    - {text}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_counted_duplicates() -> None:
    keys = Counter(
        (intent, "".join(c["text"] for c in chunks), tuple(
            (c["entity"], c["text"]) for c in chunks if c.get("entity")
        ))
        for intent, chunks in _snips_validate()
    )  # fmt: skip
    assert sum(keys.values()) == 700
    assert {(intent, text) for (intent, text, _e), n in keys.items() if n == 2} == REPEATED
    assert all(n <= 2 for n in keys.values())


def test_rasa_reports_of_snips_validate_have_support_697(tmp_path: Path) -> None:
    suite = import_suite(_as_rasa_yaml(tmp_path / "validate.yml")).suite
    assert len(suite.cases) == 700
    rows = []
    for case in suite.cases:  # an engine that answers every expected intent
        prediction = Prediction(intent=case.intents[0].name, confidence=0.9)
        rows.append((case, prediction, score_case(case, prediction)))
    dropped = duplicate_rows(rows)
    assert {(suite.cases[i].intents[0].name, suite.cases[i].utterance) for i in dropped} == (
        REPEATED
    )
    assert len(rasa_examples(rows)) == 697
    write_reports({"rasa": tmp_path / "rasa"}, RunMeta("r", "snips", "e"), rows,
                  rasa=RasaOptions(plots=False))  # fmt: skip
    report = json.loads((tmp_path / "rasa" / "intent_report.json").read_text())
    assert report["macro avg"]["support"] == 697
    assert report["RateBook"]["support"] == 98 and report["GetWeather"]["support"] == 99


READ = """
import json, sys
from rasa.shared.nlu.training_data.loading import load_data
data = load_data(sys.argv[1])
print(json.dumps([[m.get("intent"), m.get("text")] for m in data.intent_examples]))
"""


@pytest.mark.rasa
def test_rasas_reader_keeps_the_examples_we_keep(tmp_path: Path) -> None:
    if not PEER_PYTHON.exists():
        pytest.skip(f"no Rasa peer at {PEER_PYTHON}: run tests/peers/setup_rasa.sh")
    path = _as_rasa_yaml(tmp_path / "validate.yml")
    done = subprocess.run(
        [str(PEER_PYTHON), "-c", READ, str(path)],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "RASA_TELEMETRY_ENABLED": "false"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = Counter(tuple(pair) for pair in json.loads(done.stdout.strip().splitlines()[-1]))
    assert sum(theirs.values()) == 697
    suite = import_suite(path).suite
    rows = [(case, None, None) for case in suite.cases]
    dropped = duplicate_rows(rows)
    ours = Counter(
        (case.intents[0].name, case.utterance)
        for i, case in enumerate(suite.cases)
        if i not in dropped
    )
    assert ours == theirs
