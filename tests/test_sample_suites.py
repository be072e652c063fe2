"""The sample banking bot: what a new user sees first must be valid, complete and consistent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SAMPLES

from nlu_tui.engines.base import ParseContext
from nlu_tui.engines.embedded.engine import EmbeddedEngine
from nlu_tui.formats import kore_csv, kore_json
from nlu_tui.formats.native import load_suite
from nlu_tui.formats.rasa_yaml import load_training_data
from nlu_tui.formats.registry import detect_format, import_suite
from nlu_tui.model import IntentKind, Suite, TestCase
from nlu_tui.scoring import DEFAULT_OPTIONS, score_case, summarize
from nlu_tui.validation import validate_suite

NLU = SAMPLES / "banking_bot.nlu.yml"
SUITE = SAMPLES / "banking_bot.suite.yaml"
KORE_JSON = SAMPLES / "banking_bot.kore.json"
KORE_CSV = SAMPLES / "banking_bot.kore.csv"


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(SUITE)


def test_every_sample_file_is_detected() -> None:
    assert detect_format(NLU) == "rasa"
    assert detect_format(SUITE) == "native"
    assert detect_format(KORE_JSON) == "kore-json"
    assert detect_format(KORE_CSV) == "kore-csv"
    assert (SAMPLES / "README.md").is_file()


def test_training_data_covers_every_kind_of_intent_and_entity() -> None:
    data = load_training_data(NLU)
    assert data.warnings == []
    assert 12 <= len(data.intents) <= 20
    counts = {i: sum(e.intent == i for e in data.examples) for i in data.intents}
    assert min(counts.values()) >= 10, counts  # enough for a TF-IDF classifier to learn
    kinds = {i: data.intent_kind(i) for i in data.intents}
    assert set(kinds.values()) == {IntentKind.DIALOG, IntentKind.FAQ, IntentKind.SMALL_TALK}
    assert {"check_balance", "transfer_money", "pay_bill", "block_card", "open_account"} <= set(
        data.intents
    )
    assert data.parent_path("confirm_transfer") == ["transfer_money"]
    assert data.parent_path("choose_delivery") == ["block_card", "request_replacement_card"]
    assert data.lookups["account_type"] and data.lookups["payee"]
    assert {"account_number", "amount"} <= set(data.regexes)
    assert "current" in data.synonyms["checking"]
    for patterns in data.regexes.values():
        for pattern in patterns:
            re.compile(pattern)


def test_suite_uses_every_feature(suite: Suite) -> None:
    assert 40 <= len(suite.cases) <= 60
    assert validate_suite(suite) == []
    cases = suite.cases
    assert any(len(c.intents) == 2 for c in cases)
    assert any(len(c.intents) == 3 for c in cases)
    assert any(c.traits for c in cases)
    assert any(len(c.parent_intents) == 1 for c in cases)
    assert any(len(c.parent_intents) == 2 for c in cases)
    values = [e.value for c in cases for e in c.entities]
    assert any("||" in v for v in values)  # multi-item
    assert any(re.fullmatch(r"[^:|]+:[^|]+(\|[^:|]+:[^|]+)+", v) for v in values)  # composite
    assert any(re.search(r"\\[d$]", v) for v in values)  # regular expressions
    assert any(e.alternatives for c in cases for e in c.entities)
    assert any(c.entity_order for c in cases)
    assert any(c.tags for c in cases)
    assert sum(not c.expects_intent for c in cases) >= 4  # out of scope: no intent expected
    assert {i.kind for c in cases for i in c.intents} >= {IntentKind.FAQ, IntentKind.SMALL_TALK}


def test_suite_agrees_with_the_training_data(suite: Suite) -> None:
    data = load_training_data(NLU)
    known = set(data.intents)
    entity_names = set(data.entity_names) | set(data.regexes) | set(data.lookups)
    training_texts = {e.text.casefold() for e in data.examples}
    for case in suite.cases:
        assert case.utterance.casefold() not in training_texts, case.utterance  # a test set
        for intent in case.intents:
            assert intent.name in known, intent.name
            assert case.parent_intents == data.parent_path(intent.name), case.utterance
            assert intent.kind in (None, data.intent_kind(intent.name)), case.utterance
        for entity in case.entities:
            if entity.name != "payment":  # the composite entity the sample bot lacks on purpose
                assert entity.name in entity_names, entity.name


def _kore_view(case: TestCase) -> tuple[object, ...]:
    """What a Kore.ai file can say about a case (no ids, tags or intent kinds)."""
    return (
        case.utterance,
        [(i.name, i.bot) for i in case.intents],
        case.traits,
        case.parent_intents,
        [(e.name, e.value, e.kind, e.alternatives) for e in case.entities],
        case.entity_order,
    )


@pytest.mark.parametrize("path", [KORE_JSON, KORE_CSV], ids=["json", "csv"])
def test_kore_files_hold_the_same_cases(suite: Suite, path: Path) -> None:
    imported = import_suite(path).suite
    assert [_kore_view(c) for c in imported.cases] == [_kore_view(c) for c in suite.cases]


@pytest.mark.parametrize(
    ("path", "module"), [(KORE_JSON, kore_json), (KORE_CSV, kore_csv)], ids=["json", "csv"]
)
def test_kore_files_are_up_to_date(suite: Suite, path: Path, module: object) -> None:
    """Regenerate with: nlu-tui export sample_suites/banking_bot.suite.yaml -f kore-json|kore-csv."""
    text, _ = module.dumps(suite)  # type: ignore[attr-defined]
    assert path.read_bytes().decode("utf-8") == text


async def test_sample_suite_is_answerable_by_the_embedded_engine(suite: Suite) -> None:
    """Most cases pass on a simple classifier; the hard ones are meant to fail."""
    engine = EmbeddedEngine({"nlu": str(NLU), "cache": False})
    await engine.open(None)
    options = DEFAULT_OPTIONS.for_suite(suite)
    results = []
    for case in suite.cases:
        prediction = await engine.parse(case.utterance, ParseContext(case.parent_intents))
        results.append(score_case(case, prediction, options))
    summary = summarize(results)
    assert summary.intent_success >= 0.8, summary
    assert summary.entity_success >= 0.8, summary
    hard = {c.id for c in suite.cases if "hard" in c.tags}
    failed = {r.case_id for r in results if not r.intent_ok}
    assert len(failed - hard) <= 1, failed - hard  # leeway for classifier tuning
