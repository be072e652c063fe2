"""``compare`` follows NLU.DevOps to the letter where it used to differ (issue 11, part 2).

Each test names the upstream file (microsoft/NLU.DevOps, ``src/...``) and the test or line
it follows; each failed on the code before the change. Small data examples come from
upstream's docs and tests (MIT licence, Copyright (c) Microsoft Corporation).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from nlu_tui.cli.main import run as cli
from nlu_tui.compare.decisions import CompareSettings, Decision, TargetKind, compare
from nlu_tui.compare.normalize import JsonRules
from nlu_tui.compare.settings import parse_settings
from nlu_tui.compare.statistics import Counts, Statistics
from nlu_tui.compare.thresholds import check_gates
from nlu_tui.compare.utterances import parse_utterance
from nlu_tui.errors import InputError


def _decide(
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


def _value_counts(exp: Any, act: Any, rules: JsonRules | None = None) -> list[int]:
    """entityValue [TP, TN, FP, FN] of one entity matched by text (as upstream's
    ``ToEntityTestCasesWithEntityValue`` builds it: same type, text and index)."""
    e = {
        "text": "at foo",
        "entities": [{"entityType": "T", "matchText": "foo", "entityValue": exp}],
    }
    a = {
        "text": "at foo",
        "entities": [{"entityType": "T", "matchText": "foo", "entityValue": act}],
    }
    settings = CompareSettings(json_rules=rules or JsonRules())
    _, stats = _decide([e], [a], settings)
    assert stats.counts(TargetKind.ENTITY).as_list() == [1, 0, 0, 0]
    return stats.counts(TargetKind.ENTITY_VALUE).as_list()


def _stats(total: list[int], groups: dict[str, list[int]]) -> Statistics:
    stats = Statistics()
    stats.totals[TargetKind.INTENT] = Counts(*total)
    stats.groups[TargetKind.INTENT] = {k: Counts(*v) for k, v in groups.items()}
    return stats


# 1 ---------------------------------------------------------------------------------------
def test_star_group_is_one_gate_on_the_overall_counts() -> None:
    """ModelPerformance/NLUAccuracy.cs ``CheckThreshold``: ``Group == null || Group == "*"``
    reads ``statistics.Intent`` (the overall counts): one gate, not one per intent."""
    base = _stats([10, 0, 0, 0], {"A": [5, 0, 0, 0], "B": [5, 0, 0, 0]})
    cur = _stats([9, 0, 1, 0], {"A": [5, 0, 0, 0], "B": [4, 0, 1, 0]})
    settings = parse_settings({"thresholds": [{"type": "intent", "group": "*", "threshold": 0.1}]})
    gates = check_gates(cur, base, settings.thresholds)
    assert len(gates) == 1
    assert gates[0].passed  # overall F1 1.0 → 0.947; intent B alone drops by 0.11
    assert gates[0].description.startswith("PASS all intents: F1 0.9474")
    each = parse_settings(
        {
            "nluTui": {"starGroups": "each"},
            "thresholds": [{"type": "intent", "group": "*", "threshold": 0.1}],
        }
    )
    per_intent = check_gates(cur, base, each.thresholds)
    assert {g.group: g.passed for g in per_intent} == {"A": True, "B": False}


# 2 ---------------------------------------------------------------------------------------
def test_integer_and_float_entity_values_are_different_tokens() -> None:
    """ModelPerformance/TestCaseSource.cs ``ContainsSubtree`` ends in ``JToken.DeepEquals``,
    whose ``JValue.ValuesEquals`` needs the same token type (Integer ≠ Float); floats compare
    with Newtonsoft's ``MathUtils.ApproxEquals``. Vectors in the shape of upstream's
    ``TestCaseSourceTests.ToEntityTestCasesWithEntityValue``."""
    assert _value_counts(2, 2.0) == [0, 0, 0, 1]
    assert _value_counts({"n": 2}, {"n": 2.0, "x": 1}) == [0, 0, 0, 1]
    assert _value_counts([2], [1, 2.0]) == [0, 0, 0, 1]
    assert _value_counts(2, 2) == [1, 0, 0, 0]
    assert _value_counts(0.3, 0.1 + 0.2) == [1, 0, 0, 0]  # ApproxEquals, not ==
    assert _value_counts(2, 2.0, JsonRules(numbers="value")) == [1, 0, 0, 0]


# 3 ---------------------------------------------------------------------------------------
def test_null_inside_an_expected_value_needs_null_in_the_actual() -> None:
    """ModelPerformance/TestCaseSource.cs ``ContainsSubtree``: a JSON null inside the expected
    value is a ``JValue`` (not C# null), so it must ``DeepEquals`` the actual token, and a
    missing actual property fails; a top-level null value is never checked
    (``TestCaseSourceTests.ToEntityTestCasesWithNullExpectedEntityValue``)."""
    assert _value_counts({"a": None}, {"a": 1}) == [0, 0, 0, 1]
    assert _value_counts({"a": None}, {"b": 1}) == [0, 0, 0, 1]
    assert _value_counts({"a": None}, {"a": None, "b": 1}) == [1, 0, 0, 0]
    assert _value_counts([None], [1, None]) == [1, 0, 0, 0]
    assert _value_counts(None, 42) == [0, 0, 0, 0]
    assert _value_counts({"a": None}, {"a": 1}, JsonRules(expected_null="any")) == [1, 0, 0, 0]


# 4 ---------------------------------------------------------------------------------------
@pytest.fixture
def utc_machine(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Newtonsoft converts a date with an offset to the machine's local time: pin it."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_iso_date_strings_compare_as_newtonsoft_dates(utc_machine: None) -> None:
    """CommandLine/Serializer.cs and ModelPerformance/TestCaseSource.cs ``Read`` use
    ``JsonSerializer.CreateDefault()``: ``DateParseHandling.DateTime`` turns ISO strings into
    ``DateTime`` tokens (Newtonsoft ``DateTimeUtils.TryParseDateTime``), and ``JValue.Compare``
    compares ``DateTime`` ticks whatever their kind."""
    assert _value_counts("2020-01-01T10:00:00", "2020-01-01T10:00:00Z") == [1, 0, 0, 0]
    assert _value_counts("2020-01-01T10:00:00Z", "2020-01-01T10:00:00.0000000") == [1, 0, 0, 0]
    assert _value_counts({"at": "2020-01-01T12:00:00+02:00"}, {"at": "2020-01-01T10:00:00Z"}) == [
        1,
        0,
        0,
        0,
    ]
    assert _value_counts("2020-01-01T10:00:00", "/Date(1577872800000)/") == [1, 0, 0, 0]
    assert _value_counts("2020-01-01T24:00:00", "2020-01-02T00:00:00") == [1, 0, 0, 0]
    assert _value_counts("2020-01-01T10:00:00", "2020-01-01T10:00:01") == [0, 0, 0, 1]
    assert _value_counts("2020-02-30T10:00:00", "2020-02-30T10:00:00Z") == [0, 0, 0, 1]  # no date
    # A date token is not a string: the by-value match of EqualsNormalizedJson fails.
    e = {"text": "x", "entities": [{"entityType": "T", "entityValue": "2020-01-01T10:00:00"}]}
    a = {"text": "x", "entities": [{"entityType": "T", "entityValue": "2020-01-01T10:00:00"}]}
    _, stats = _decide([e], [a])
    assert stats.counts(TargetKind.ENTITY).as_list() == [0, 0, 1, 1]
    text_rules = JsonRules(dates="text")
    assert _value_counts("2020-01-01T10:00:00", "2020-01-01T10:00:00Z", text_rules) == [0, 0, 0, 1]


# 5 ---------------------------------------------------------------------------------------
def test_positions_with_match_index_are_an_error_naming_file_and_entity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Core/EntityConverter.cs ``ReadJson``: after converting ``startPos``/``endPos`` it calls
    ``jsonObject.Add("matchIndex", …)``, which throws when the entity already has one."""
    bad = [
        {
            "text": "fly to paris",
            "entities": [{"entityType": "city", "startPos": 7, "endPos": 11, "matchIndex": 0}],
        }
    ]
    expected = tmp_path / "expected.json"
    expected.write_text(json.dumps(bad), encoding="utf-8")
    actual = tmp_path / "actual.json"
    actual.write_text(json.dumps([{"text": "fly to paris"}]), encoding="utf-8")
    out = tmp_path / "out"
    assert cli(["compare", "-e", str(expected), "-a", str(actual), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nlu-tui: error: ") and err.count("\n") == 1
    assert str(expected) in err and "'city'" in err and "matchIndex" in err
    assert not out.exists()


# 6 ---------------------------------------------------------------------------------------
def test_comparison_and_metric_are_bound_as_dotnet_binds_them() -> None:
    """ModelPerformance/TestSettings.cs ``GetThresholds`` binds ``NLUThreshold`` with .NET's
    configuration binder (keys in any case; ``NLUThresholdKind`` through ``EnumConverter``:
    names in any case, numbers); NLUAccuracy.cs ``GetMetric``: ``precision``/``recall``
    compared with ``==``, ``f`` in any case plus ``double.TryParse`` (so ``f0``, ``f-1``)."""
    counts = Counts(2, 0, 2, 6)  # P 0.5, R 0.25
    cur = Statistics()
    cur.totals[TargetKind.INTENT] = counts
    raw = yaml.safe_load(
        """
        thresholds:
          - {type: intent, comparison: Absolute, threshold: 0.3}
          - {Type: intent, COMPARISON: ABSOLUTE, Metric: f0, Threshold: '0.49'}
          - {type: intent, comparison: 1, metric: f-1, threshold: 0.33}
          - {type: intent, comparison: ' relative ', metric: F1, threshold: 1e-1}
        """
    )
    settings = parse_settings(raw)
    assert [t.comparison for t in settings.thresholds] == [
        "absolute",
        "absolute",
        "absolute",
        "relative",
    ]
    gates = check_gates(cur, None, settings.thresholds)
    assert [g.passed for g in gates] == [True, True, True, True]
    assert gates[1].current == 0.5  # f0 is the precision
    assert gates[2].current == counts.f_beta(1.0)  # β = -1: β² = 1
    assert settings.thresholds[3].threshold == 0.1  # a string, read as .NET reads it
    for metric in ("Precision", "RECALL", "f", "fx", "accuracy"):
        with pytest.raises(InputError, match="unknown metric"):
            parse_settings({"thresholds": [{"type": "intent", "metric": metric}]})
    with pytest.raises(InputError, match="'comparison'"):
        parse_settings({"thresholds": [{"type": "intent", "comparison": "absolut"}]})


# 7 ---------------------------------------------------------------------------------------
def test_a_null_argument_is_empty_in_the_test_name() -> None:
    """ModelPerformance/TestCaseSource.cs ``CreateTestCase``: the name is
    ``$"{resultKind}{targetKind}('{string.Join("', '", args)}')"`` and ``string.Join`` writes
    null as nothing (cf. ``TestCaseSourceTests.TestToIntentTestCaseExpectingNoneActualDayTime``)."""
    decisions, _ = _decide(
        [{"text": "FOO", "intent": None}], [{"text": "FOO", "intent": "DayTime"}]
    )
    intent = [d for d in decisions if d.target_kind is TargetKind.INTENT]
    assert [d.test_name for d in intent] == ["FalsePositiveIntent('', 'DayTime', 'FOO')"]
    assert intent[0].because == "Expected intent '', actual intent 'DayTime'."


# 8 ---------------------------------------------------------------------------------------
ANALYZE_MD_EXAMPLES = [
    # docs/Analyze.md, "Performance Regression Thresholds"
    "thresholds:\n- type: intent\n  threshold: 0.05\n- type: intent\n  group: PlayMusic\n"
    "- type: entity\n  group: '*'\n  threshold: 0.1\n",
    # docs/Analyze.md, "Example": what its `echo -e "thresholds:\n- type: intent\n- threshold:
    # 0.1\n"` writes (the second item has no type)
    "thresholds:\n- type: intent\n- threshold: 0.1\n",
]


@pytest.mark.parametrize("text", ANALYZE_MD_EXAMPLES, ids=["yaml-block", "echo-example"])
def test_analyze_md_example_threshold_files_are_accepted(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/Analyze.md's threshold files work as with ``dotnet nlu compare``: a threshold
    without ``type`` gates all-zero counts (NLUAccuracy.cs ``CheckThreshold`` returns null
    for it, so a relative gate passes), with a warning here."""
    utterances = [
        {
            "text": "play jazz",
            "intent": "PlayMusic",
            "entities": [{"entityType": "genre", "matchText": "jazz"}],
        },
        {"text": "stop", "intent": "Stop"},
    ]
    files = {}
    for name in ("expected", "actual"):
        files[name] = tmp_path / f"{name}.json"
        files[name].write_text(json.dumps(utterances), encoding="utf-8")
    settings = tmp_path / "thresholds.yml"
    settings.write_text(text, encoding="utf-8")
    base = ["compare", "-e", str(files["expected"]), "-a", str(files["actual"])]
    assert cli([*base, "-o", str(tmp_path / "baseline")]) == 0
    code = cli(
        [
            *base,
            "-o",
            str(tmp_path / "latest"),
            "-b",
            str(tmp_path / "baseline" / "statistics.json"),
            "-t",
            str(settings),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.count("PASS ") == text.count("- ")  # one gate per item, '*' included
    assert "FAIL" not in captured.out
    if "- threshold: 0.1" in text:
        assert "nlu-tui: warning:" in captured.err and "thresholds[1]" in captured.err
        strict = tmp_path / "strict.yml"
        strict.write_text("nluTui: {strict: true}\n" + text, encoding="utf-8")
        assert cli([*base, "-o", str(tmp_path / "s"), "-t", str(strict)]) == 2


def test_a_date_like_match_text_is_read_as_dotnet_prints_the_date(utc_machine: None) -> None:
    """Core/EntityConverter.cs reads ``jsonObject.Value<string>("matchText")``: a date token
    converted to a string is ``DateTime.ToString(InvariantCulture)``, without zone or fraction,
    so these two texts match and the test name shows the converted text."""
    e = {"text": "x", "entities": [{"entityType": "T", "matchText": "2020-01-01T10:00:00"}]}
    a = {"text": "x", "entities": [{"entityType": "T", "matchText": "2020-01-01T10:00:00.5Z"}]}
    decisions, stats = _decide([e], [a])
    assert stats.counts(TargetKind.ENTITY).as_list() == [1, 0, 0, 0]
    entity = [d for d in decisions if d.target_kind is TargetKind.ENTITY]
    assert entity[0].test_name == "TruePositiveEntity('T', '\"01/01/2020 10:00:00\"', 'x')"
