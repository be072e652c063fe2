"""JSON, Kore.ai CSV and JUnit exports of the hand-checked Kore.ai fixture, read back and checked."""

from __future__ import annotations

import csv
import io
import json
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from scoring_fixture import scored

from nlu_tui.errors import InputError
from nlu_tui.model import CaseResult, Prediction, ResultType, RunStatus, TestCase
from nlu_tui.reports import REPORT_FORMATS, RunMeta, write_report
from nlu_tui.reports.common import ResultRow
from nlu_tui.reports.json_report import SCHEMA_VERSION
from nlu_tui.reports.kore_csv import COLUMNS
from nlu_tui.store.records import RunRecord

META = RunMeta(
    id="run1",
    suite="Kore fixture",
    engine="kore-dev",
    version="development",
    status="success_with_warning",
    reason="1 case failed: HTTP 500",
    started_at=1_700_000_000.0,
    finished_at=1_700_000_060.0,
    note="nightly",
    engine_settings={"minThreshold": 0.3, "mode": "ml", "token": "not-a-threshold"},
)


def rows() -> list[ResultRow]:
    return [(c, p, r) for c, p, _k, r in scored()]


def test_json_report_schema_and_numbers(tmp_path: Path) -> None:
    out = tmp_path / "r" / "report.json"
    assert write_report("json", out, META, rows()) == [out]
    assert [p.name for p in out.parent.iterdir()] == ["report.json"]  # no temp file left
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert list(doc) == [
        "schema_version", "run", "summary", "intent_report", "slices", "metric_spec", "results",
    ]  # fmt: skip
    spec = doc["metric_spec"]  # which definitions the numbers follow, and the settings
    assert spec["definition"] == "Kore.ai Batch Testing"
    assert spec["settings"]["negative_intents"] == ["None"]
    assert spec["settings"]["entity_synonym_groups"] == 0
    assert doc["schema_version"] == SCHEMA_VERSION == 1
    assert doc["run"] == {
        "id": "run1",
        "suite": "Kore fixture",
        "engine": "kore-dev",
        "version": "development",
        "status": "success_with_warning",
        "reason": "1 case failed: HTTP 500",
        "started_at": "2023-11-14T22:13:20Z",
        "finished_at": "2023-11-14T22:14:20Z",
        "note": "nightly",
    }
    s = doc["summary"]
    assert list(s) == [
        "cases", "errors", "tp", "tn", "fp", "fn", "precision", "recall", "f1",
        "intent_success", "entity_success", "entity_order_checked", "entity_order_ok",
        "latency_p50_ms", "latency_p90_ms", "latency_p99_ms",
    ]  # fmt: skip
    assert (s["cases"], s["errors"], s["tp"], s["tn"], s["fp"], s["fn"]) == (21, 1, 8, 2, 7, 3)
    assert s["precision"] == pytest.approx(8 / 15) and s["f1"] == pytest.approx(16 / 26)
    assert s["entity_success"] == pytest.approx(0.8) and s["latency_p50_ms"] == 100.0
    assert len(doc["results"]) == 21
    first = doc["results"][1]
    assert list(first) == [
        "case_id", "utterance", "expected_intents", "parent_intents", "matched_intent",
        "confidence", "ranking", "result", "entities", "expected_entity_order",
        "actual_entity_order", "entity_order_ok", "latency_ms", "error", "traits", "matched_bot",
    ]  # fmt: skip
    assert first["expected_intents"] == ["pay_bill", "setup_auto_pay", "transfer_funds"]
    assert first["ranking"] == [
        {"name": "greet", "confidence": 0.6},
        {"name": "pay_bill", "confidence": 0.3},
    ]
    assert first["result"] == "FP"
    order = doc["results"][13]
    assert order["entities"][0] == {
        "name": "amount",
        "expected": "10 USD",
        "matched": "10 USD",
        "ok": True,
    }
    assert order["expected_entity_order"] == ["payee", "amount"]
    assert doc["results"][20]["result"] == "ERROR" and doc["results"][20]["error"] == "HTTP 500"

    from sklearn.metrics import classification_report

    from nlu_tui.scoring.intent_report import label_sequences

    yt, yp = label_sequences([(c, r) for c, _p, r in rows()])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = classification_report(yt, yp, output_dict=True, zero_division=0)
    assert _close(doc["intent_report"], expected)


def _close(a: dict, b: dict) -> bool:
    assert list(a) == list(b)
    for k, v in b.items():
        if isinstance(v, dict):
            for m, x in v.items():
                assert a[k][m] == pytest.approx(x, abs=1e-12), (k, m)
        else:
            assert a[k] == pytest.approx(v, abs=1e-12)
    return True


def test_fast_json_equals_the_plain_builder() -> None:
    from nlu_tui.reports.json_report import build_json_report, render_json_report

    data = rows()
    plain = json.loads(json.dumps(build_json_report(META, data)))
    assert json.loads(render_json_report(META, data)) == plain


def test_json_report_non_finite_values_become_null(tmp_path: Path) -> None:
    case = TestCase("x")
    from decimal import Decimal

    from nlu_tui.model import IntentScore

    result = CaseResult(case.id, ResultType.FP, "a", float("nan"), latency_ms=float("inf"))
    ranking = [IntentScore("a", Decimal("0.5")), IntentScore("b", float("-inf"))]  # type: ignore[arg-type]
    out = tmp_path / "r.json"
    write_report(
        "json", out, META, [(case, Prediction("a", float("nan"), ranking=ranking), result)]
    )
    doc = json.loads(out.read_text())
    first = doc["results"][0]
    assert first["confidence"] is None and first["latency_ms"] is None
    assert first["ranking"] == [{"name": "a", "confidence": 0.5}, {"name": "b", "confidence": None}]


def read_csv(path: Path) -> list[list[str]]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:])))


def test_kore_csv_report(tmp_path: Path) -> None:
    out = tmp_path / "report.csv"
    write_report("csv", out, META, rows())
    table = read_csv(out)
    header = {r[0]: r[1] for r in table[: table.index([])] if len(r) >= 2}
    assert header["Bot Name"] == "kore-dev"
    assert header["Report Name"] == "Kore fixture"
    assert header["Run Type"] == "development"
    assert header["minThreshold"] == "0.3" and header["mode"] == "ml"
    assert "token" not in header  # only Kore's threshold keys are written
    # the profile's thresholds, not the bot's: the header says where they come from
    assert header["Threshold Setting"] == "(from the nlu-tui profile, not read from the bot)"
    assert header["Last Tested"] == "2023-11-14T22:14:20Z"
    assert header["Utterance Count"] == "21"
    assert header["Success/Failure Ratio"] == f"{100 * 8 / 21:.2f}%"
    assert header["True Positive (TP)"] == "40.00%"
    assert header["True Negative (TN)"] == "10.00%"
    assert header["False Positive (FP)"] == "35.00%"
    assert header["False Negative (FN)"] == "15.00%"
    start = table.index(list(COLUMNS))
    kore = [
        "Utterances", "Expected Intent", "Matched Intent", "Parent Intent", "Task State",
        "Result Type", "Entity Name", "Expected EntityValue", "Matched EntityValue",
        "Entity Result", "Expected Entity Order", "Actual Entity Order",
        "Matched Intent's Score", "Expected Intent's Score", "Elimination Info",
    ]  # fmt: skip
    assert list(COLUMNS[: len(kore)]) == kore
    body = [dict(zip(COLUMNS, r, strict=True)) for r in table[start + 1 :]]
    # 21 utterances; the order case has two entity rows
    assert sum(1 for r in body if r["Utterances"]) == 21 and len(body) == 22
    by = {r["Utterances"]: r for r in body if r["Utterances"]}
    fp = by["pay it"]
    assert fp["Expected Intent"] == "pay_bill | setup_auto_pay | transfer_funds"
    assert fp["Matched Intent"] == "greet" and fp["Result Type"] == "FP"
    assert fp["Matched Intent's Score"] == "0.6000"
    assert fp["Expected Intent's Score"] == "pay_bill: 0.3000"
    assert fp["Elimination Info"] == "pay_bill: 0.3000 (rank 2)"
    assert fp["Task State"] == "Configured"
    tp = by["pay my bill"]
    assert tp["Matched Intent's Score"] == "" and tp["Elimination Info"] == ""
    trait = by["statement issue"]
    assert trait["Expected Intent"] == "trait: Account Statement||Issue"
    assert trait["Matched Intent"] == "trait: Issue||Account Statement||Urgent"
    parent = by["send it"]
    assert parent["Parent Intent"] == "check_balance"
    i = body.index(by["10 dollars to Leo"])
    assert body[i]["Entity Name"] == "amount" and body[i]["Entity Result"] == "True"
    assert body[i]["Expected Entity Order"] == "payee>amount"
    assert body[i]["Actual Entity Order"] == "amount>payee"  # the engine's order, not Kore's mix
    assert body[i]["Entity Order Result"] == "False"
    assert body[i + 1]["Utterances"] == "" and body[i + 1]["Entity Name"] == "payee"
    assert body[i + 1]["Matched EntityValue"] == "leo"
    assert by["Paris to Rome"]["Entity Result"] == "False"
    assert by["boom"]["Result Type"] == "ERROR" and by["boom"]["Error"] == "HTTP 500"
    assert by['bye <&> "now"']["Case Id"]


def test_kore_csv_alternatives_take_consecutive_rows(tmp_path: Path) -> None:
    from nlu_tui.model import ExpectedEntity, ExpectedIntent, PredictedEntity
    from nlu_tui.scoring.case import score_case

    case = TestCase(
        "pay Leo, now\nplease",
        intents=[ExpectedIntent("pay")],
        entities=[ExpectedEntity("payee", "Leonardo", alternatives=["Leo"])],
    )
    pred = Prediction("pay", 0.9, entities=[PredictedEntity("payee", "Leo")])
    out = tmp_path / "alt.csv"
    write_report("csv", out, META, [(case, pred, score_case(case, pred))])
    table = read_csv(out)
    body = table[table.index(list(COLUMNS)) + 1 :]
    assert body[0][0] == "pay Leo, now\nplease"  # quoted, read back intact
    assert [(r[6], r[7], r[8], r[9]) for r in body] == [
        ("payee", "Leonardo", "Leo", "True"),
        ("payee", "Leo", "Leo", "True"),
    ]


def test_junit_report(tmp_path: Path) -> None:
    case = TestCase("ctrl \x01 char <b>", id="ctl")
    pred = Prediction("oops")
    extra: ResultRow = (case, pred, CaseResult("ctl", ResultType.FP, "oops", 0.2, latency_ms=12.0))
    out = tmp_path / "junit.xml"
    write_report("junit", out, META, [*rows(), extra])
    root = ET.parse(out).getroot()
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert len(cases) == 22
    # failures: 7 FP + 3 FN + the composite entity case + the entity order case + the extra FP
    assert (
        suite.get("failures") == "13" and suite.get("errors") == "1" and suite.get("tests") == "22"
    )
    by = {c.get("name"): c for c in cases}
    bye = next(c for n, c in by.items() if n and n.startswith('bye <&> "now"'))
    failure = bye.find("failure")
    assert failure is not None and failure.get("type") == "FP"
    assert failure.get("message") == "FP: expected intent 'greet', matched 'bye'"
    assert bye.get("classname") == "Kore fixture.greet"
    assert bye.get("time") == "0.190"
    comp = next(c for n, c in by.items() if n and n.startswith("Paris to Rome"))
    assert "entity 'trip': expected 'from:Paris|to:Rome', matched 'Paris Berlin'" in (
        comp.find("failure").text or ""  # type: ignore[union-attr]
    )
    boom = next(c for n, c in by.items() if n and n.startswith("boom"))
    assert boom.find("error") is not None and boom.find("error").get("message") == "HTTP 500"  # type: ignore[union-attr]
    ok = next(c for n, c in by.items() if n and n.startswith("pay my bill"))
    assert list(ok) == []
    assert by["ctrl \ufffd char <b> [ctl]"] is not None
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["run_id"] == "run1" and props["f1"] == f"{16 / 27:.6f}"  # the extra FP counts


def test_registry_names_and_unknown_format(tmp_path: Path) -> None:
    assert set(REPORT_FORMATS) == {"json", "csv", "junit", "rasa", "nludevops", "html", "markdown"}
    assert REPORT_FORMATS["rasa"].directory and not REPORT_FORMATS["json"].directory
    with pytest.raises(InputError, match="unknown report format 'pdf'"):
        write_report("pdf", tmp_path / "x.pdf", META, rows())
    assert not (tmp_path / "x.pdf").exists()


def test_meta_from_store_record() -> None:
    record = RunRecord(
        id="abc",
        suite_name="S",
        suite_path=None,
        suite_hash="h",
        engine_name="rasa-local",
        engine_profile={"url": "http://127.0.0.1:5005"},
        stage="published",
        status=RunStatus.SUCCESS,
        reason=None,
        note="n",
        total=1,
        done=1,
        tp=1,
        tn=0,
        fp=0,
        fn=0,
        errors=0,
        started_at=0.0,
        finished_at=1.0,
    )
    meta = RunMeta.from_record(record)
    assert meta.run_dict() == {
        "id": "abc",
        "suite": "S",
        "engine": "rasa-local",
        "version": "published",
        "status": "success",
        "reason": None,
        "started_at": "1970-01-01T00:00:00Z",
        "finished_at": "1970-01-01T00:00:01Z",
        "note": "n",
    }
