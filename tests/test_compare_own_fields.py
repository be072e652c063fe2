"""``compare`` on nlu-tui's own files: the ``nluTui`` object (``ownFields: read | ignore``).

A case may accept several intents and a run may hold engine errors; NLU.DevOps can say neither.
nlu-tui writes them under ``nluTui`` (``export -f nludevops``: ``nluTui.intents``; ``show -f
nludevops``: ``nluTui.error``). By default ``compare`` reads them as the run's own gates count
them; ``ownFields: ignore`` reads the files as ``dotnet nlu compare`` does.
"""

from __future__ import annotations

from typing import Any

import pytest

from nlu_tui.compare.decisions import CompareSettings, ResultKind, TargetKind, compare, left_out
from nlu_tui.compare.settings import parse_settings
from nlu_tui.compare.statistics import Statistics
from nlu_tui.compare.utterances import parse_utterance
from nlu_tui.errors import InputError

SEVERAL = {
    "text": "what's my balance",
    "intent": "balance",
    "nluTui": {"intents": [{"name": "balance"}, {"name": "statement"}, {"name": "summary"}]},
}


def _intents(expected: dict[str, Any], actual: dict[str, Any], own: str = "read") -> list[Any]:
    decisions = compare(
        [parse_utterance(expected)],
        [parse_utterance(actual)],
        CompareSettings(own_fields=own),
    )
    return [(d.result_kind, d.group) for d in decisions if d.target_kind is TargetKind.INTENT]


def test_an_acceptable_alternative_is_the_expected_intent() -> None:
    third = {"text": "what's my balance", "intent": "summary"}
    assert _intents(SEVERAL, third) == [(ResultKind.TP, "summary")]
    assert _intents(SEVERAL, {**third, "intent": "balance"}) == [(ResultKind.TP, "balance")]
    wrong = {**third, "intent": "transfer"}
    assert _intents(SEVERAL, wrong) == [(ResultKind.FN, "balance"), (ResultKind.FP, "transfer")]
    assert _intents(SEVERAL, {**third, "intent": None}) == [(ResultKind.FN, "balance")]


def test_ignore_reads_only_the_first_intent_as_dotnet_nlu_compare() -> None:
    third = {"text": "what's my balance", "intent": "summary"}
    assert _intents(SEVERAL, third, "ignore") == [
        (ResultKind.FN, "balance"),
        (ResultKind.FP, "summary"),
    ]


def test_a_list_not_starting_with_the_intent_is_not_read() -> None:
    """As the suite reader (``formats.nludevops.case_from_json``) ignores it."""
    odd = {**SEVERAL, "nluTui": {"intents": [{"name": "statement"}, {"name": "balance"}]}}
    actual = {"text": "what's my balance", "intent": "statement"}
    assert _intents(odd, actual) == [(ResultKind.FN, "balance"), (ResultKind.FP, "statement")]
    assert parse_utterance({"text": "x", "intent": "a", "nluTui": []}).acceptable_intents == []


def test_an_engine_error_is_left_out_unless_ignored() -> None:
    expected = [parse_utterance({"text": "a", "intent": "A"}), parse_utterance(SEVERAL)]
    actual = [
        parse_utterance({"text": "a", "intent": None, "nluTui": {"error": "timeout"}}),
        parse_utterance({"text": "what's my balance", "intent": "balance"}),
    ]
    assert left_out(actual) == [0]
    read = Statistics.from_decisions(compare(expected, actual))
    assert read.intent.as_list() == [1, 0, 0, 0]
    assert read.entity.as_list() == [0, 1, 0, 0]  # one TN: the error made no decision at all
    ignored = CompareSettings(own_fields="ignore")
    assert left_out(actual, ignored) == []
    counted = Statistics.from_decisions(compare(expected, actual, ignored))
    assert counted.intent.as_list() == [1, 0, 0, 1]


def test_the_option_is_read_from_the_settings_file() -> None:
    assert parse_settings({}).compare.own_fields == "read"
    assert parse_settings({"nluTui": {"ownFields": "ignore"}}).compare.own_fields == "ignore"
    with pytest.raises(InputError, match=r"NLU\.DevOps' behaviour: ignore"):
        parse_settings({"nluTui": {"ownFields": "maybe"}})
    with pytest.raises(InputError, match=r"NLU\.DevOps' behaviour: token"):
        parse_settings({"nluTui": {"numbers": "maybe"}})
