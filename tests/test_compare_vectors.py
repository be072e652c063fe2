"""Every NLU.DevOps test vector of metric-semantics.md §4.9, plus the rules of §4.4–§4.8."""

from __future__ import annotations

from typing import Any

import pytest

from nlu_tui.compare.decisions import (
    CompareSettings,
    Decision,
    ResultKind,
    TargetKind,
    compare,
)
from nlu_tui.compare.statistics import Counts, Statistics
from nlu_tui.compare.thresholds import Threshold, check_gates
from nlu_tui.compare.utterances import parse_utterance

_ABSENT = object()


def utt(intent: Any = _ABSENT, entities: Any = None, **extra: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"text": extra.pop("text", "some text")}
    if intent is not _ABSENT:
        obj["intent"] = intent
    if entities is not None:
        obj["entities"] = entities
    obj.update(extra)
    return obj


def run(
    expected: list[dict[str, Any]],
    actual: list[dict[str, Any]],
    settings: CompareSettings | None = None,
) -> tuple[list[Decision], Statistics]:
    decisions = compare(
        [parse_utterance(e, index=i) for i, e in enumerate(expected)],
        [parse_utterance(a, index=i) for i, a in enumerate(actual)],
        settings,
    )
    return decisions, Statistics.from_decisions(decisions)


def ent(
    kind: str, text: str | None, value: Any = None, index: int = 0, **extra: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"entityType": kind, "matchText": text, "matchIndex": index}
    if value is not None:
        out["entityValue"] = value
    out.update(extra)
    return out


# --- §4.4 intents, performance mode, trueNegativeIntent: None ------------------------------

PERFORMANCE = [
    ("foo", "foo", [1, 0, 0, 0]),
    (None, None, [0, 1, 0, 0]),
    (None, "None", [0, 1, 0, 0]),
    ("None", None, [0, 1, 0, 0]),
    (None, "foo", [0, 0, 1, 0]),
    ("None", "foo", [0, 0, 1, 0]),
    ("foo", "bar", [0, 0, 1, 1]),
    ("foo", None, [0, 0, 0, 1]),
    ("foo", "None", [0, 0, 0, 1]),
]


@pytest.mark.parametrize(("exp", "act", "counts"), PERFORMANCE)
def test_intent_performance_mode(exp: str | None, act: str | None, counts: list[int]) -> None:
    _, stats = run([utt(exp)], [utt(act)], CompareSettings(true_negative_intent="None"))
    assert stats.intent.as_list() == counts
    if exp not in (None, "None"):
        assert stats.by_intent[exp].tp == counts[0]
        assert stats.by_intent[exp].fn == counts[3]
    elif act not in (None, "None"):
        assert stats.by_intent[act].fp == counts[2]


def test_misclassification_counts_twice_fn_for_expected_fp_for_actual() -> None:
    decisions, stats = run([utt("foo")], [utt("bar")], CompareSettings(true_negative_intent="None"))
    assert [(d.result_kind, d.group) for d in decisions if d.target_kind is TargetKind.INTENT] == [
        (ResultKind.FN, "foo"),
        (ResultKind.FP, "bar"),
    ]
    assert stats.by_intent["foo"].as_list() == [0, 0, 0, 1]
    assert stats.by_intent["bar"].as_list() == [0, 0, 1, 0]


TRUE_NEGATIVE_FOO = [
    (None, "None", [0, 0, 1, 0]),
    ("None", None, [0, 0, 0, 1]),
    (None, "foo", [0, 1, 0, 0]),
    ("None", "foo", [0, 0, 0, 1]),
    ("foo", "bar", [0, 0, 1, 0]),
    ("foo", None, [0, 1, 0, 0]),
    ("foo", "None", [0, 0, 1, 0]),
]


@pytest.mark.parametrize(("exp", "act", "counts"), TRUE_NEGATIVE_FOO)
def test_intent_true_negative_intent_foo(
    exp: str | None, act: str | None, counts: list[int]
) -> None:
    _, stats = run([utt(exp)], [utt(act)], CompareSettings(true_negative_intent="foo"))
    assert stats.intent.as_list() == counts


def test_without_true_negative_intent_only_null_is_negative() -> None:
    _, stats = run([utt(None)], [utt("None")])
    assert stats.intent.as_list() == [0, 0, 1, 0]


def test_unit_mode_expected_without_intent_key_gives_no_intent_decision() -> None:
    decisions, stats = run([utt()], [utt("foo")], CompareSettings(unit_test=True))
    assert [d for d in decisions if d.target_kind is TargetKind.INTENT] == []
    assert stats.intent.as_list() == [0, 0, 0, 0]


def test_unit_mode_expected_with_null_intent_gives_fp() -> None:
    _, stats = run([utt(None)], [utt("foo")], CompareSettings(unit_test=True))
    assert stats.intent.as_list() == [0, 0, 1, 0]


def test_unit_mode_explicit_negative_intent_gives_fp() -> None:
    _, stats = run(
        [utt("None")],
        [utt("PlayMusic")],
        CompareSettings(true_negative_intent="None", unit_test=True),
    )
    assert stats.intent.as_list() == [0, 0, 1, 0]


def test_performance_mode_expected_without_intent_key_still_gives_fp() -> None:
    _, stats = run([utt()], [utt("foo")])
    assert stats.intent.as_list() == [0, 0, 1, 0]


def test_intent_names_are_case_sensitive() -> None:
    _, stats = run([utt("Foo")], [utt("foo")])
    assert stats.intent.as_list() == [0, 0, 1, 1]


# --- §4.5 entities ---------------------------------------------------------------------------

ENTITY_VECTORS = [
    ("foo", "foo", [1, 0, 0, 0]),
    (None, None, [0, 1, 0, 0]),
    (None, "foo", [0, 0, 1, 0]),
    ("foo", "bar", [0, 0, 1, 1]),
    ("foo", None, [0, 0, 0, 1]),
]


@pytest.mark.parametrize(("exp", "act", "counts"), ENTITY_VECTORS)
def test_entity_statistics(exp: str | None, act: str | None, counts: list[int]) -> None:
    expected = [ent("T", exp)] if exp is not None else None
    actual = [ent("T", act)] if act is not None else None
    _, stats = run([utt("i", expected)], [utt("i", actual)])
    assert stats.entity.as_list() == counts
    if exp is not None or act is not None:
        assert stats.by_entity_type["T"].as_list() == counts


def test_entity_tn_has_null_group_and_score_zero() -> None:
    decisions, _ = run([utt("i")], [utt("i")])
    tn = [d for d in decisions if d.target_kind is TargetKind.ENTITY]
    assert len(tn) == 1 and tn[0].group is None and tn[0].score == 0
    assert tn[0].result_kind is ResultKind.TN


def test_entity_different_type_same_text() -> None:
    _, stats = run([utt("i", [ent("A", "same")])], [utt("i", [ent("B", "same")])])
    assert stats.entity.as_list() == [0, 0, 1, 1]
    assert stats.by_entity_type["A"].as_list() == [0, 0, 0, 1]
    assert stats.by_entity_type["B"].as_list() == [0, 0, 1, 0]


def test_entity_wrong_match_index() -> None:
    decisions, stats = run(
        [utt("i", [ent("T", "differentMatchedText", index=2)])],
        [utt("i", [ent("T", "differentMatchedText", "EntityValue", index=1)])],
    )
    assert stats.entity.as_list() == [0, 0, 1, 1]
    assert len([d for d in decisions if d.target_kind is TargetKind.ENTITY]) == 2


def test_entity_null_actual_match_text_matches_on_value() -> None:
    decisions, stats = run([utt("i", [ent("T", "foo")])], [utt("i", [ent("T", None, "foo")])])
    assert stats.entity.as_list() == [1, 0, 0, 0]
    assert len(decisions) == 2  # the intent TP and the entity TP: nothing else


def test_entity_null_actual_match_text_matches_expected_value() -> None:
    _, stats = run([utt("i", [ent("T", "foo", "bar")])], [utt("i", [ent("T", None, "bar")])])
    assert stats.entity.as_list() == [1, 0, 0, 0]
    assert stats.totals[TargetKind.ENTITY_VALUE].as_list() == [1, 0, 0, 0]


def test_entity_same_value_different_match_text() -> None:
    _, stats = run([utt("i", [ent("T", "foo", "bar")])], [utt("i", [ent("T", "bar", "bar")])])
    assert stats.entity.as_list() == [0, 0, 1, 1]


def test_entity_text_is_normalised() -> None:
    _, stats = run([utt("i", [ent("T", "Hip  hop!")])], [utt("i", [ent("T", " hip\thop ")])])
    assert stats.entity.as_list() == [1, 0, 0, 0]


def test_entity_type_is_case_sensitive() -> None:
    _, stats = run([utt("i", [ent("genre", "rock")])], [utt("i", [ent("Genre", "rock")])])
    assert stats.entity.as_list() == [0, 0, 1, 1]


def test_entity_matching_is_not_one_to_one() -> None:
    _, stats = run([utt("i", [ent("T", "rock"), ent("T", "rock")])], [utt("i", [ent("T", "rock")])])
    assert stats.entity.as_list() == [2, 0, 0, 0]


# entityValue containment: (expected, actual) with the same text → entityValue counts
ENTITY_VALUE_VECTORS = [
    ({}, None, [0, 0, 0, 1]),
    (42, None, [0, 0, 0, 1]),
    ({"foo": 42}, {}, [0, 0, 0, 1]),
    (["foo"], [], [0, 0, 0, 1]),
    ({"foo": 42}, {"bar": 42, "foo": 42}, [1, 0, 0, 0]),
    ({"foo": 42, "bar": 42}, {"bar": 42, "foo": 42}, [1, 0, 0, 0]),
    ([2], [2, 1], [1, 0, 0, 0]),
    ([1, 2], [2, 1], [1, 0, 0, 0]),
    ("foo", "foo", [1, 0, 0, 0]),
    ("foo", "bar", [0, 0, 0, 1]),
    ("foo", "FOO", [0, 0, 0, 1]),  # scalars: deep equality, no normalisation
    (1, True, [0, 0, 0, 1]),
    (1, 1.0, [0, 0, 0, 1]),  # JToken.DeepEquals: Integer ≠ Float (nluTui.numbers: value)
]


@pytest.mark.parametrize(("exp", "act", "counts"), ENTITY_VALUE_VECTORS)
def test_entity_value_containment(exp: Any, act: Any, counts: list[int]) -> None:
    expected = {"entityType": "T", "matchText": "foo", "entityValue": exp}
    actual = {"entityType": "T", "matchText": "foo", "entityValue": act}
    _, stats = run([utt("i", [expected])], [utt("i", [actual])])
    assert stats.entity.as_list() == [1, 0, 0, 0]
    assert stats.totals[TargetKind.ENTITY_VALUE].as_list() == counts
    assert stats.groups[TargetKind.ENTITY_VALUE]["T"].as_list() == counts


@pytest.mark.parametrize("act", [None, "foo"])
def test_no_entity_value_decision_without_expected_value(act: str | None) -> None:
    _, stats = run([utt("i", [ent("T", "x")])], [utt("i", [ent("T", "x", act)])])
    assert stats.totals[TargetKind.ENTITY_VALUE].as_list() == [0, 0, 0, 0]
    assert "T" not in stats.groups[TargetKind.ENTITY_VALUE]


def test_no_entity_value_decision_when_entity_missed() -> None:
    _, stats = run([utt("i", [ent("T", "x", "v")])], [utt("i", [ent("T", "y", "v")])])
    assert stats.totals[TargetKind.ENTITY_VALUE].as_list() == [0, 0, 0, 0]


# Strict/ignore matrix: global strict [c, e], global ignore [d, f], local strict [a, f],
# local ignore [b, e]; (expected type, actual type, actual text) → (performance, unit) counts.
STRICT_MATRIX = [
    ("a", "x", "", [0, 0, 1, 1], [0, 0, 0, 1]),
    ("a", "b", "", [0, 0, 0, 1], [0, 0, 0, 1]),
    ("a", "d", "", [0, 0, 0, 1], [0, 0, 0, 1]),
    ("a", "f", "", [0, 0, 1, 1], [0, 0, 1, 1]),
    ("a", "e", "", [0, 0, 0, 1], [0, 0, 0, 1]),
    ("x", "x", "foo", [0, 0, 1, 1], [0, 0, 0, 1]),
    ("a", "a", "foo", [0, 0, 1, 1], [0, 0, 1, 1]),
    ("a", "c", "", [0, 0, 1, 1], [0, 0, 1, 1]),  # global strict applies in unit mode
]


@pytest.mark.parametrize(("exp_type", "act_type", "act_text", "perf", "unit"), STRICT_MATRIX)
def test_strict_ignore_matrix(
    exp_type: str, act_type: str, act_text: str, perf: list[int], unit: list[int]
) -> None:
    expected = utt("i", [ent(exp_type, "")], strictEntities=["a", "f"], ignoreEntities=["b", "e"])
    actual = utt("i", [ent(act_type, act_text)])
    for unit_test, counts in ((False, perf), (True, unit)):
        settings = CompareSettings(
            strict_entities=["c", "e"], ignore_entities=["d", "f"], unit_test=unit_test
        )
        _, stats = run([expected], [actual], settings)
        assert stats.entity.as_list() == counts, f"unit_test={unit_test}"


def test_seed_unit_mode_examples() -> None:
    """The four unit-test-mode examples of the NLU.DevOps compare documentation."""
    unit = CompareSettings(true_negative_intent="None", unit_test=True)
    _, stats = run(
        [{"text": "Play two songs", "intent": "PlayMusic"}],
        [
            {
                "text": "Play two songs",
                "intent": "PlayMusic",
                "entities": [{"entityType": "count", "matchText": "two", "entityValue": 2}],
            }
        ],
        unit,
    )
    assert stats.entity.fp == 0
    _, stats = run(
        [
            {
                "text": "Play rock music",
                "intent": "PlayMusic",
                "strictEntities": ["celebrity"],
                "entities": [{"entityType": "genre", "matchText": "rock"}],
            }
        ],
        [
            {
                "text": "Play rock music",
                "intent": "PlayMusic",
                "entities": [
                    {"entityType": "genre", "matchText": "rock"},
                    {
                        "entityType": "celebrity",
                        "matchText": "rock",
                        "entityValue": "Dwayne Johnson",
                    },
                ],
            }
        ],
        unit,
    )
    assert stats.entity.as_list() == [1, 0, 1, 0]
    assert stats.by_entity_type["celebrity"].fp == 1
    _, stats = run(
        [{"text": "What is jazz?", "entities": [{"entityType": "genre", "matchText": "jazz"}]}],
        [
            {
                "text": "What is jazz?",
                "intent": "PlayMusic",
                "entities": [{"entityType": "genre", "matchText": "jazz"}],
            }
        ],
        unit,
    )
    assert stats.intent.as_list() == [0, 0, 0, 0]
    _, stats = run(
        [{"text": "What is jazz?", "intent": "None"}],
        [{"text": "What is jazz?", "intent": "PlayMusic"}],
        unit,
    )
    assert stats.intent.as_list() == [0, 0, 1, 0]


# --- §4.6 text --------------------------------------------------------------------------------

TEXT_VECTORS = [
    ("foo", "foo", [1, 0, 0, 0]),
    ("foo", "FOO", [1, 0, 0, 0]),
    (None, None, [0, 1, 0, 0]),
    (None, "foo", [0, 0, 1, 0]),
    ("foo", "bar", [0, 0, 1, 0]),
    ("foo", None, [0, 0, 0, 1]),
]


@pytest.mark.parametrize(("exp", "act", "counts"), TEXT_VECTORS)
def test_text_statistics(exp: str | None, act: str | None, counts: list[int]) -> None:
    expected = {"text": exp, "speechFile": "a.wav"}
    _, stats = run([expected], [{"text": act}])
    assert stats.totals[TargetKind.TEXT].as_list() == counts


def test_no_text_decision_without_speech_file() -> None:
    _, stats = run([{"text": "foo"}], [{"text": "bar"}])
    assert stats.totals[TargetKind.TEXT].as_list() == [0, 0, 0, 0]


# --- §4.7 ids, names, scores --------------------------------------------------------------------


def test_utterance_id_index_or_given() -> None:
    decisions, _ = run([utt("g"), utt("g", utteranceId="abc")], [utt("g"), utt("g")])
    assert sorted({d.utterance_id for d in decisions}) == ["0", "abc"]


def test_test_name_and_scores() -> None:
    decisions, _ = run(
        [{"text": "listen to hip hop", "intent": "PlayMusic"}],
        [
            {
                "text": "listen to hip hop",
                "intent": "None",
                "score": 0.5,
                "entities": [{"entityType": "Genre", "matchText": "hip hop", "score": 0.25}],
            }
        ],
        CompareSettings(true_negative_intent="None"),
    )
    fn = decisions[0]
    assert fn.test_name == "FalseNegativeIntent('PlayMusic', 'None', 'listen to hip hop')"
    assert fn.score == 0.5
    fp_entity = next(d for d in decisions if d.target_kind is TargetKind.ENTITY)
    assert fp_entity.result_kind is ResultKind.FP and fp_entity.score == 0.25
    assert fp_entity.to_json()["targetKind"] == "entity"


def test_length_mismatch_is_an_error() -> None:
    from nlu_tui.errors import InputError

    with pytest.raises(InputError, match="same number"):
        run([utt("a")], [])


# --- metrics and thresholds -------------------------------------------------------------------


def test_metrics_vector() -> None:
    c = Counts(13, 0, 10, 45)
    assert round(c.precision, 4) == 0.5652
    assert round(c.recall, 4) == 0.2241
    assert round(c.f1, 4) == 0.3210
    assert round(c.f_beta(2), 4) == 0.2549
    assert c.total == 68


def test_metrics_all_zero() -> None:
    c = Counts()
    assert (c.precision, c.recall, c.f1, c.f_beta(2), c.total) == (0, 0, 0, 0, 0)


def _stats(intent: list[int], by: dict[str, list[int]] | None = None) -> Statistics:
    return Statistics.from_json({"intent": intent, "byIntent": by or {}})


def test_relative_threshold_zero() -> None:
    gate = [Threshold("intent", None, 0.0)]
    assert check_gates(_stats([1, 0, 1, 0]), _stats([0, 0, 2, 0]), gate)[0].passed
    assert not check_gates(_stats([0, 0, 2, 0]), _stats([1, 0, 1, 0]), gate)[0].passed


def test_absolute_threshold() -> None:
    gate = [Threshold("intent", None, 0.5, comparison="absolute")]
    assert check_gates(_stats([1, 0, 0, 0]), None, gate)[0].passed
    assert not check_gates(_stats([0, 0, 1, 0]), None, gate)[0].passed


def test_relative_gate_without_baseline_passes() -> None:
    gates = check_gates(_stats([0, 0, 5, 5]), None, [Threshold("intent", None, 0.0)])
    assert gates[0].passed and gates[0].baseline == 0


def test_relative_threshold_allows_the_given_drop() -> None:
    base = _stats([9, 0, 1, 0])  # P 0.9, R 1
    cur = _stats([8, 0, 2, 0])  # P 0.8
    assert check_gates(cur, base, [Threshold("intent", None, 0.11, "precision")])[0].passed
    assert not check_gates(cur, base, [Threshold("intent", None, 0.09, "precision")])[0].passed


def test_star_group_checks_each_group_and_missing_group_is_zero() -> None:
    cur = _stats([1, 0, 0, 1], {"A": [1, 0, 0, 0], "B": [0, 0, 0, 1]})
    base = _stats([2, 0, 0, 0], {"A": [1, 0, 0, 0], "B": [1, 0, 0, 0], "C": [1, 0, 0, 0]})
    gates = check_gates(cur, base, [Threshold("intent", "*", 0.0, star="each")])
    assert {g.group: g.passed for g in gates} == {"A": True, "B": False, "C": False}
    named = check_gates(cur, base, [Threshold("intent", "A", 0.0, "recall")])
    assert [(g.group, g.passed) for g in named] == [("A", True)]


def test_metric_names() -> None:
    cur = _stats([13, 0, 10, 45])
    values = {
        m: check_gates(cur, None, [Threshold("intent", None, 0.0, m, "absolute")])[0].current
        for m in ("F1", "precision", "recall", "f2", "F0.5")
    }
    assert round(values["F1"], 4) == 0.3210
    assert round(values["precision"], 4) == 0.5652
    assert round(values["recall"], 4) == 0.2241
    assert round(values["f2"], 4) == 0.2549
    assert values["F0.5"] > values["F1"]
