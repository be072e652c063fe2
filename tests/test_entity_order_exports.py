"""A wrong entity order is visible in every export: the engine's real order and the verdict.

Issue 10, item 19: the JSON said "actual order" = the expected one and JUnit said
``expected time>loc, actual time>loc`` while the engine returned ``loc`` first.
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from nlu_tui.cli.run_output import summary_text
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    PredictedEntity,
    Prediction,
    RunStatus,
    TestCase,
)
from nlu_tui.reports import RunMeta, write_reports
from nlu_tui.reports.common import ResultRow
from nlu_tui.reports.kore_csv import COLUMNS
from nlu_tui.scoring.case import score_case
from nlu_tui.store.records import RunRecord

META = RunMeta(
    id="run1",
    suite="order",
    engine="e",
    version="development",
    status="success",
    reason=None,
    started_at=1_700_000_000.0,
    finished_at=1_700_000_001.0,
    note="",
    engine_settings={},
)


def _rows() -> list[ResultRow]:
    """Case w: order time>loc, the engine returns loc first; case r: order kept; case n: none."""
    entities = [ExpectedEntity("time", "7pm"), ExpectedEntity("loc", "Paris")]
    wrong = TestCase(
        "Paris at 7pm", intents=[ExpectedIntent("book")], entities=entities,
        entity_order=["time", "loc"], id="w",
    )  # fmt: skip
    swapped = Prediction(
        "book",
        confidence=0.9,
        entities=[
            PredictedEntity("loc", "Paris", start=0),
            PredictedEntity("time", "7pm", start=9),
        ],
    )
    right = TestCase(
        "7pm in Paris", intents=[ExpectedIntent("book")], entities=list(entities),
        entity_order=["time", "loc"], id="r",
    )  # fmt: skip
    kept = Prediction(
        "book",
        confidence=0.9,
        entities=[
            PredictedEntity("time", "7pm", start=0),
            PredictedEntity("loc", "Paris", start=7),
        ],
    )
    plain = TestCase("hello", intents=[ExpectedIntent("greet")], id="n")
    hello = Prediction("greet", confidence=0.8)
    return [(c, p, score_case(c, p)) for c, p in ((wrong, swapped), (right, kept), (plain, hello))]


def test_scoring_gives_the_engines_order_not_the_expected_one() -> None:
    (_c, _p, wrong), (_c2, _p2, right), (_c3, _p3, plain) = _rows()
    assert wrong.expected_entity_order == ["time", "loc"]
    assert wrong.actual_entity_order == ["loc", "time"] and wrong.entity_order_ok is False
    assert right.actual_entity_order == ["time", "loc"] and right.entity_order_ok is True
    assert plain.actual_entity_order == [] and plain.entity_order_ok is None


@pytest.mark.parametrize("processes", [1, 2])
def test_every_export_states_the_actual_order_and_the_verdict(
    tmp_path: Path, processes: int
) -> None:
    targets = {
        "json": tmp_path / "r.json",
        "csv": tmp_path / "r.csv",
        "junit": tmp_path / "r.xml",
    }
    write_reports(targets, META, _rows(), processes=processes)

    doc = json.loads(targets["json"].read_text(encoding="utf-8"))
    by_id = {r["case_id"]: r for r in doc["results"]}
    assert by_id["w"]["expected_entity_order"] == ["time", "loc"]
    assert by_id["w"]["actual_entity_order"] == ["loc", "time"]
    assert by_id["w"]["entity_order_ok"] is False
    assert by_id["r"]["actual_entity_order"] == ["time", "loc"]
    assert by_id["r"]["entity_order_ok"] is True
    assert by_id["n"]["entity_order_ok"] is None
    assert doc["summary"]["entity_order_checked"] == 2
    assert doc["summary"]["entity_order_ok"] == 1

    text = targets["csv"].read_text(encoding="utf-8-sig")
    table = list(csv.reader(io.StringIO(text, newline="")))
    start = table.index(list(COLUMNS))
    body = [dict(zip(COLUMNS, r, strict=True)) for r in table[start + 1 :]]
    first = {r["Case Id"]: r for r in body if r["Case Id"]}
    assert first["w"]["Expected Entity Order"] == "time>loc"
    assert first["w"]["Actual Entity Order"] == "loc>time"
    assert first["w"]["Entity Order Result"] == "False"
    assert first["r"]["Actual Entity Order"] == "time>loc"
    assert first["r"]["Entity Order Result"] == "True"
    assert first["n"]["Entity Order Result"] == ""

    cases = {tc.get("name"): tc for tc in ET.parse(targets["junit"]).getroot().iter("testcase")}
    failure = cases["Paris at 7pm [w]"].find("failure")
    assert failure is not None
    assert "entity order: expected time>loc, actual loc>time" in (failure.text or "")
    assert cases["7pm in Paris [r]"].find("failure") is None


def test_show_summary_states_the_order_verdict_and_the_actual_order() -> None:
    run = RunRecord(
        id="run1", suite_name="order", suite_path=None, suite_hash="h", engine_name="e",
        engine_profile={}, stage="development", status=RunStatus.SUCCESS, reason=None, note="",
        total=3, done=3, tp=3, tn=0, fp=0, fn=0, errors=0, started_at=1_700_000_000.0,
        finished_at=1_700_000_001.0,
    )  # fmt: skip
    text = summary_text(run, _rows())
    assert "order      1/2 entity orders right" in text
    assert "wrong order in w: expected time>loc, actual loc>time" in text
