"""The bridge: our cases and predictions scored the NLU.DevOps way, gated by the same file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nlu_tui.cli.main import run
from nlu_tui.compare.bridge import (
    actual_json,
    check_gates,
    decisions_from_run,
    expected_json,
    load_settings,
    load_statistics,
    result_json,
    save_statistics,
    statistics_from_run,
)
from nlu_tui.compare.decisions import ResultKind, TargetKind
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    PredictedEntity,
    Prediction,
    TestCase,
)

CASES = [
    TestCase(
        "send 200 dollars to Leo",
        [ExpectedIntent("transfer")],
        id="c1",
        entities=[ExpectedEntity("amount", text="200 dollars", json_value={"amount": 200})],
    ),
    TestCase(
        "what's my balance", [ExpectedIntent("balance"), ExpectedIntent("statement")], id="c2"
    ),
    TestCase("hello there", [], id="c3"),
    TestCase(
        "pay Leo and Leo",
        [ExpectedIntent("transfer")],
        id="c4",
        entities=[ExpectedEntity("payee", "Leo", start=12, end=15)],
    ),
    TestCase("block my card", [ExpectedIntent("block_card")], id="c5"),
]
PREDICTIONS = [
    Prediction(
        "transfer",
        0.9,
        entities=[
            PredictedEntity(
                "amount", {"amount": 200, "currency": "USD"}, text="200 dollars", start=5, end=16
            )
        ],
    ),
    Prediction("statement", 0.7),  # an acceptable alternative
    Prediction("None", 0.4),
    Prediction("balance", 0.6, entities=[PredictedEntity("payee", "Leo", start=4, end=7)]),
    Prediction(error="timeout"),  # engine errors are left out
]


def test_statistics_from_run() -> None:
    settings_stats = statistics_from_run(CASES, PREDICTIONS)
    # c1 TP, c2 TP (statement accepted), c3 FP(None), c4 FN(transfer)+FP(balance); c5 skipped
    assert settings_stats.intent.as_list() == [2, 0, 2, 1]
    assert settings_stats.by_intent["statement"].as_list() == [1, 0, 0, 0]
    # c1 amount TP (span text) + value contained; c4 payee expected 2nd "Leo", got the 1st
    assert settings_stats.entity.as_list() == [1, 2, 1, 1]  # c2, c3: TN
    assert settings_stats.totals[TargetKind.ENTITY_VALUE].as_list() == [1, 0, 0, 0]


def test_true_negative_intent_from_the_settings_file(tmp_path: Path) -> None:
    path = tmp_path / "t.yml"
    path.write_text("trueNegativeIntent: None\nthresholds:\n  - type: intent\n    group: '*'\n")
    settings = load_settings(path)
    stats = statistics_from_run(CASES, PREDICTIONS, settings)
    assert stats.intent.as_list() == [2, 1, 1, 1]
    ids = {d.utterance_id for d in decisions_from_run(CASES, PREDICTIONS, settings)}
    assert ids == {"c1", "c2", "c3", "c4"}


def _compare_cli(tmp_path: Path, settings: Path | None = None) -> dict[str, object]:
    """`nlu-tui compare` on the files `export -f nludevops` and `show -f nludevops` write for
    CASES and PREDICTIONS (every case: engine errors included); its statistics.json."""
    (tmp_path / "e.json").write_text(json.dumps([expected_json(c) for c in CASES]))
    answers = [result_json(c, p) for c, p in zip(CASES, PREDICTIONS, strict=True)]
    (tmp_path / "a.json").write_text(json.dumps(answers))
    args = ["compare", "-e", str(tmp_path / "e.json"), "-a", str(tmp_path / "a.json")]
    args += ["-o", str(tmp_path / "out")]
    if settings is not None:
        args += ["-t", str(settings)]
    assert run(args) == 0
    return dict(json.loads((tmp_path / "out" / "statistics.json").read_text()))


def test_same_numbers_as_the_compare_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bridge statistics equal what `nlu-tui compare` computes from the exported files: c2's
    acceptable alternative is read from nluTui.intents, c5's engine error (nluTui.error) is
    left out, as the gates do, and the console says so."""
    from_cli = _compare_cli(tmp_path)
    assert "left out 1 of 5 utterances whose answer is an engine error" in capsys.readouterr().out
    assert statistics_from_run(CASES, PREDICTIONS).to_json() == from_cli
    assert from_cli["intent"] == [2, 0, 2, 1]
    spec = json.loads((tmp_path / "out" / "metric_spec.json").read_text())
    assert spec["definition"] == "NLU.DevOps `compare`"
    assert "ownFields: read" in spec["settings"]["several_intents"]


def test_own_fields_ignore_reads_the_files_as_dotnet_nlu_compare(tmp_path: Path) -> None:
    """`nluTui: {ownFields: ignore}`: only the first intent is expected (c2's `statement` is
    FN(balance) + FP(statement)) and the engine error is an answer without intent (c5
    FN(block_card)), in the gates and in `compare` alike."""
    path = tmp_path / "t.yml"
    path.write_text("nluTui: {ownFields: ignore}\n")
    settings = load_settings(path)
    stats = statistics_from_run(CASES, PREDICTIONS, settings)
    assert stats.intent.as_list() == [1, 0, 3, 3]
    assert stats.by_intent["balance"].as_list() == [0, 0, 1, 1]
    assert stats.by_intent["block_card"].as_list() == [0, 0, 0, 1]
    assert _compare_cli(tmp_path, path) == stats.to_json()


def test_gates_against_a_saved_baseline(tmp_path: Path) -> None:
    baseline_path = tmp_path / "baseline" / "statistics.json"
    perfect = [
        Prediction(
            "transfer",
            1.0,
            entities=[
                PredictedEntity("amount", {"amount": 200}, text="200 dollars", start=5, end=16)
            ],
        ),
        Prediction("balance"),
        Prediction(None),
        Prediction("transfer", entities=[PredictedEntity("payee", "Leo", start=12, end=15)]),
        Prediction("block_card"),
    ]
    save_statistics(statistics_from_run(CASES, perfect), baseline_path)
    baseline = load_statistics(baseline_path)
    assert baseline.intent.as_list() == [4, 1, 0, 0]
    settings_path = tmp_path / "t.json"
    settings_path.write_text(
        json.dumps(
            {
                "thresholds": [
                    {"type": "intent", "threshold": 0.2},
                    {"type": "intent", "group": "transfer"},
                    {
                        "type": "entity",
                        "comparison": "absolute",
                        "threshold": 0.5,
                        "metric": "recall",
                    },
                ]
            }
        )
    )
    settings = load_settings(settings_path)
    gates = check_gates(
        statistics_from_run(CASES, PREDICTIONS, settings), baseline, settings.thresholds
    )
    # intent F1 1.0 → 0.571: a 0.43 drop fails; transfer recall 1 → 0.5 fails; entity recall 0.5 passes
    assert [g.passed for g in gates] == [False, False, True]
    assert sum(not g.passed for g in gates) == 2


def test_expected_and_actual_json_shapes() -> None:
    case, prediction = CASES[3], PREDICTIONS[3]
    exp = expected_json(case)
    assert exp["entities"][0]["matchText"] == "Leo" and exp["entities"][0]["matchIndex"] == 1
    act = actual_json(case, prediction)
    assert act["entities"][0] == {
        "entityType": "payee",
        "matchText": "Leo",
        "matchIndex": 0,
        "entityValue": "Leo",
    }
    decisions = decisions_from_run([case], [prediction])
    assert [(d.target_kind, d.result_kind) for d in decisions] == [
        (TargetKind.INTENT, ResultKind.FN),
        (TargetKind.INTENT, ResultKind.FP),
        (TargetKind.ENTITY, ResultKind.FN),
        (TargetKind.ENTITY, ResultKind.FP),
    ]


def test_empty_predicted_intent_is_no_intent() -> None:
    case = TestCase("hello", [], id="h")
    stats = statistics_from_run([case], [Prediction("")])
    assert stats.intent.as_list() == [0, 1, 0, 0]


def test_value_only_entities_are_matched_by_value() -> None:
    """Kore.ai-style cases give entities a value but no text: the gate compares values."""
    from nlu_tui.model import ExpectedEntity, ExpectedIntent, PredictedEntity, Prediction, TestCase

    case = TestCase(
        "send 200 dollars to Leonardo",
        intents=[ExpectedIntent("transfer")],
        entities=[ExpectedEntity("payee", "Leonardo"), ExpectedEntity("amount", "200 USD")],
    )
    right = Prediction(
        intent="transfer",
        entities=[
            PredictedEntity("payee", "Leonardo", text="Leonardo", start=20, end=28),
            PredictedEntity("amount", "200 USD", text="200 dollars", start=5, end=16),
        ],
    )
    wrong = Prediction(
        intent="transfer",
        entities=[PredictedEntity("payee", "Donatello", text="Leonardo", start=20, end=28)],
    )
    good = statistics_from_run([case], [right])
    bad = statistics_from_run([case], [wrong])
    assert (good.entity.tp, good.entity.fp, good.entity.fn) == (2, 0, 0)
    assert (bad.entity.tp, bad.entity.fp, bad.entity.fn) == (0, 1, 2)
