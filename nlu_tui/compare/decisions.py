"""The decision list: what NLU.DevOps ``compare`` concludes about each (expected, actual) pair.

One row per decision (intent, entity, entityValue or text; TP/TN/FP/FN). Every table, every
statistic and every NUnit test case is a view of this list, so it is the only thing computed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from nlu_tui.compare.netdates import as_dotnet_string
from nlu_tui.compare.normalize import (
    JsonRules,
    contains_subtree,
    equals_normalized,
    equals_normalized_json,
)
from nlu_tui.compare.utterances import Entity, Utterance
from nlu_tui.errors import InputError


class TargetKind(StrEnum):
    INTENT = "intent"
    ENTITY = "entity"
    ENTITY_VALUE = "entityValue"
    TEXT = "text"


class ResultKind(StrEnum):
    TP = "truePositive"
    TN = "trueNegative"
    FP = "falsePositive"
    FN = "falseNegative"

    @property
    def pascal(self) -> str:
        return self.value[0].upper() + self.value[1:]

    @property
    def passed(self) -> bool:
        return self in (ResultKind.TP, ResultKind.TN)


_TARGET_TITLE = {
    TargetKind.INTENT: "Intent",
    TargetKind.ENTITY: "Entity",
    TargetKind.ENTITY_VALUE: "EntityValue",
    TargetKind.TEXT: "Text",
}


@dataclass
class CompareSettings:
    """``trueNegativeIntent``, ``strictEntities`` and ``ignoreEntities`` of a test settings file."""

    true_negative_intent: str | None = None
    strict_entities: list[str] = field(default_factory=list)
    ignore_entities: list[str] = field(default_factory=list)
    unit_test: bool = False
    json_rules: JsonRules = field(default_factory=JsonRules)
    """How entity values compare (``nluTui`` options of the settings file; upstream's default)."""
    own_fields: str = "read"
    """``read``: honour the ``nluTui`` object of nlu-tui's own files, so ``compare`` on them
    counts what ``nlu-tui run --thresholds`` counts: an expected utterance's
    ``nluTui.intents`` are all acceptable (an actual intent among them is the expected one),
    and a pair whose actual utterance has ``nluTui.error`` (an engine error) is left out.
    ``ignore``: read the files as ``dotnet nlu compare`` does (the first intent only; an
    engine error is an answer without intent). Files NLU.DevOps writes have no ``nluTui``
    object, so on them both choices are upstream's behaviour."""

    @property
    def reads_own_fields(self) -> bool:
        return self.own_fields == "read"


@dataclass
class Decision:
    utterance_id: str
    target_kind: TargetKind
    result_kind: ResultKind
    group: str | None
    because: str
    score: float | None
    args: list[str]
    expected: Utterance = field(repr=False)
    actual: Utterance = field(repr=False)

    @property
    def test_name(self) -> str:
        """E.g. ``FalseNegativeIntent('PlayMusic', 'None', 'listen to hip hop')``."""
        quoted = ", ".join(f"'{a}'" for a in self.args)
        return f"{self.result_kind.pascal}{_TARGET_TITLE[self.target_kind]}({quoted})"

    @property
    def categories(self) -> list[str]:
        # NLU.DevOps never adds the group category (its Append result is discarded); we match.
        return [_TARGET_TITLE[self.target_kind], self.result_kind.pascal]

    def to_json(self) -> dict[str, Any]:
        return {
            "utteranceId": self.utterance_id,
            "group": self.group,
            "resultKind": self.result_kind.value,
            "targetKind": self.target_kind.value,
            "expectedUtterance": self.expected.raw,
            "actualUtterance": self.actual.raw,
            "score": self.score,
            "testName": self.test_name,
            "because": self.because,
            "categories": self.categories,
        }


def _s(value: str | None) -> str:
    """A test-name argument: .NET's ``string.Join`` writes null as nothing (``''``), and Azure
    DevOps keys test history by name (TestCaseSource.cs ``CreateTestCase``)."""
    return "" if value is None else value


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class _Pair:
    """One (expected, actual) pair and the decisions made about it."""

    def __init__(self, uid: str, expected: Utterance, actual: Utterance, settings: CompareSettings):
        self.uid, self.expected, self.actual, self.settings = uid, expected, actual, settings
        self.out: list[Decision] = []

    def emit(
        self,
        target: TargetKind,
        result: ResultKind,
        group: str | None,
        because: str,
        score: float | None,
        *args: str | None,
    ) -> None:
        self.out.append(
            Decision(
                self.uid,
                target,
                result,
                group,
                because,
                score,
                [_s(a) for a in args],
                self.expected,
                self.actual,
            )
        )


def _is_none(intent: str | None, settings: CompareSettings) -> bool:
    return intent is None or intent == settings.true_negative_intent


def _intent_decisions(p: _Pair) -> None:
    exp, act = p.expected.intent, p.actual.intent
    text, score = p.expected.text, p.actual.score
    st = p.settings
    if st.reads_own_fields and act is not None and act in p.expected.acceptable_intents:
        exp = act  # one of the case's acceptable intents: the one the engine gave is expected
    if _is_none(exp, st) and _is_none(act, st):
        p.emit(TargetKind.INTENT, ResultKind.TN, None, "Both intents are negative.", score, text)
        return
    if exp == act:
        p.emit(
            TargetKind.INTENT,
            ResultKind.TP,
            exp,
            "Utterances have matching intent.",
            score,
            exp,
            text,
        )
        return
    because = f"Expected intent '{_s(exp)}', actual intent '{_s(act)}'."
    if not _is_none(exp, st):
        p.emit(TargetKind.INTENT, ResultKind.FN, exp, because, score, exp, act, text)
    if not _is_none(act, st) and (not st.unit_test or p.expected.has_intent):
        p.emit(TargetKind.INTENT, ResultKind.FP, act, because, score, exp, act, text)


def _read_text(text: str | None, rules: JsonRules) -> str | None:
    """``matchText`` as NLU.DevOps holds it (a date-like string is read as a date first)."""
    return as_dotnet_string(text) if rules.dates == "newtonsoft" else text


def _entity_match(e: Entity, a: Entity, rules: JsonRules) -> bool:
    if e.entity_type != a.entity_type:
        return False
    expected_text = _read_text(e.match_text, rules)
    if (
        expected_text is not None
        and equals_normalized(expected_text, _read_text(a.match_text, rules))
        and e.match_index == a.match_index
    ):
        return True
    # Providers without matched text (Lex, Dialogflow) are matched on the value.
    return a.match_text is None and (
        equals_normalized_json(e.entity_value, a.entity_value, rules)
        or equals_normalized_json(expected_text, a.entity_value, rules)
    )


def _is_strict(entity_type: str, p: _Pair) -> bool:
    local_strict = p.expected.string_list("strictEntities")
    local_ignore = p.expected.string_list("ignoreEntities")
    st = p.settings
    if st.unit_test:
        return (entity_type in local_strict or entity_type in st.strict_entities) and (
            entity_type not in local_ignore
        )
    ignored = entity_type in local_ignore or entity_type in st.ignore_entities
    return not ignored or entity_type in local_strict


def _entity_decisions(p: _Pair) -> None:
    expected = p.expected.entities or []
    actual = p.actual.entities or []
    text = p.expected.text
    rules = p.settings.json_rules
    if not expected and not actual:
        p.emit(TargetKind.ENTITY, ResultKind.TN, None, "Neither utterance has entities.", 0.0, text)
        return
    for e in expected:
        shown = _read_text(e.match_text, rules) if e.match_text is not None else e.entity_value
        formatted = _compact(shown)
        label = shown if isinstance(shown, str) else formatted
        matched = next((a for a in actual if _entity_match(e, a, rules)), None)
        score = matched.score if matched is not None else None
        if matched is None:
            p.emit(
                TargetKind.ENTITY,
                ResultKind.FN,
                e.entity_type,
                f"Actual utterance does not have entity matching '{label}'.",
                score,
                e.entity_type,
                formatted,
                text,
            )
            continue
        p.emit(
            TargetKind.ENTITY,
            ResultKind.TP,
            e.entity_type,
            f"Both utterances have entity '{label}'.",
            score,
            e.entity_type,
            formatted,
            text,
        )
        if e.entity_value is not None:
            value = _compact(e.entity_value)
            if contains_subtree(e.entity_value, matched.entity_value, rules):
                p.emit(
                    TargetKind.ENTITY_VALUE,
                    ResultKind.TP,
                    e.entity_type,
                    f"Both utterances have entity value '{value}'.",
                    score,
                    e.entity_type,
                    value,
                    text,
                )
            else:
                p.emit(
                    TargetKind.ENTITY_VALUE,
                    ResultKind.FN,
                    e.entity_type,
                    f"Actual utterance does not have entity value matching '{value}'.",
                    score,
                    e.entity_type,
                    value,
                    text,
                )
    for a in actual:
        if any(_entity_match(e, a, rules) for e in expected) or not _is_strict(a.entity_type, p):
            continue
        shown = _read_text(a.match_text, rules) if a.match_text is not None else a.entity_value
        label = shown if isinstance(shown, str) else _compact(shown)
        p.emit(
            TargetKind.ENTITY,
            ResultKind.FP,
            a.entity_type,
            f"Expected utterance does not have entity matching '{label}'.",
            a.score,
            a.entity_type,
            _compact(shown),
            text,
        )


def _text_decisions(p: _Pair) -> None:
    if p.expected.prop("speechFile") is None:
        return
    exp, act = p.expected.text, p.actual.text
    score = p.actual.text_score
    if exp is None and act is None:
        p.emit(TargetKind.TEXT, ResultKind.TN, None, "Both utterances are 'null'.", score)
    elif act is None:
        p.emit(
            TargetKind.TEXT,
            ResultKind.FN,
            None,
            f"Actual text is 'null', expected '{exp}'",
            score,
            exp,
        )
    elif equals_normalized(exp, act):
        p.emit(TargetKind.TEXT, ResultKind.TP, None, "Utterances have matching text.", score, exp)
    elif not p.settings.unit_test or "text" in p.expected.raw or "query" in p.expected.raw:
        p.emit(
            TargetKind.TEXT,
            ResultKind.FP,
            None,
            f"Expected text '{_s(exp)}', actual text '{act}'.",
            score,
            exp,
            act,
        )


def compare(
    expected: Sequence[Utterance],
    actual: Sequence[Utterance],
    settings: CompareSettings | None = None,
) -> list[Decision]:
    """All decisions for two equally long utterance lists matched by position.

    Order follows NLU.DevOps: every intent decision, then every entity decision, then text.
    With ``settings.own_fields == "read"`` (the default) the pairs :func:`left_out` names make
    no decision.
    """
    settings = settings or CompareSettings()
    if len(expected) != len(actual):
        raise InputError(
            f"expected and actual must hold the same number of utterances "
            f"({len(expected)} expected, {len(actual)} actual)"
        )
    skipped = set(left_out(actual, settings))
    pairs = [
        _Pair(e.utterance_id or str(i), e, a, settings)
        for i, (e, a) in enumerate(zip(expected, actual, strict=True))
        if i not in skipped
    ]
    decisions: list[Decision] = []
    for step in (_intent_decisions, _entity_decisions, _text_decisions):
        for p in pairs:
            p.out = []
            step(p)
            decisions.extend(p.out)
    return decisions


def left_out(actual: Sequence[Utterance], settings: CompareSettings | None = None) -> list[int]:
    """Positions of the pairs ``compare`` leaves out: those whose actual utterance is an engine
    error (``nluTui.error``), as a run's own gates and summary leave ERROR cases out; none
    when the settings say ``ownFields: ignore``."""
    settings = settings or CompareSettings()
    if not settings.reads_own_fields:
        return []
    return [i for i, a in enumerate(actual) if a.engine_error is not None]
