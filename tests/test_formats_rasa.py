"""Rasa NLU YAML: training data for engines, import as a suite, export back, round trips."""

from __future__ import annotations

import string
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import dataset
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nlu_tui.errors import InputError
from nlu_tui.formats import rasa_yaml
from nlu_tui.formats.native import dump_suite, parse_suite
from nlu_tui.formats.rasa_markup import format_example, parse_example
from nlu_tui.formats.rasa_yaml import (
    dump_training_yaml,
    load_training_data,
    suite_from_training_data,
    training_data_from_suite,
)
from nlu_tui.formats.registry import detect_format, export_suite, import_suite
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    Suite,
    TestCase,
    ValueKind,
)

FIXTURES = Path(__file__).parent / "fixtures" / "rasa"


def write(tmp_path: Path, text: str, name: str = "nlu.yml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- the real financial demo ----------------------------------------------------------------


def test_financial_demo_counts() -> None:
    data = load_training_data(dataset("rasa-financial-demo", "nlu.yml"))
    assert len(data.intents) == 17
    assert len(data.examples) == 578
    assert data.entity_names == [
        "PERSON",
        "account_type",
        "amount-of-money",
        "credit_card",
        "vendor_name",
    ]
    assert list(data.synonym_blocks) == ["credit", "emblem", "current balance"]
    assert data.warnings == []
    assert data.digest and len(data.digest) == 64


def test_financial_demo_annotations_and_lines() -> None:
    path = dataset("rasa-financial-demo", "nlu.yml")
    data = load_training_data(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    for example in data.examples:
        # every example's line is the source line that holds it
        assert example.line is not None
        source = lines[example.line - 1]
        assert source.strip().startswith("- ")
        for entity in example.entities:
            assert entity.start is not None and entity.end is not None
            assert example.text[entity.start : entity.end] == entity.text
    inline = [
        e for ex in data.examples if ex.text == "check my credit card balance" for e in ex.entities
    ]
    assert [(e.name, e.value, e.text, e.start, e.end) for e in inline] == [
        ("account_type", "credit", "credit card", 9, 20),
        ("amount-of-money", "balance", "balance", 21, 28),
    ]
    # the inline value joins the declared block, as Rasa's synonym mapper sees it
    assert "credit card" in data.synonyms["credit"]


def test_financial_demo_imports_and_round_trips(tmp_path: Path) -> None:
    path = dataset("rasa-financial-demo", "nlu.yml")
    assert detect_format(path) == "rasa"
    suite = import_suite(path).suite
    assert suite.name == "rasa-financial-demo"
    assert len(suite.cases) == 578
    assert len({c.id for c in suite.cases}) == 578
    assert import_suite(path).suite.cases[100].id == suite.cases[100].id  # stable ids
    assert set(suite.training) == {"synonyms"}
    out = tmp_path / "out.yml"
    assert export_suite(suite, out, "rasa") == []
    again = load_training_data(out)
    original = load_training_data(path)
    assert [(e.intent, e.text, e.entities) for e in again.examples] == [
        (e.intent, e.text, e.entities) for e in original.examples
    ]
    assert again.synonym_blocks == original.synonym_blocks


# --- annotations ------------------------------------------------------------------------------


def test_every_annotation_form() -> None:
    data = load_training_data(FIXTURES / "all_features.yml")
    by_text = {e.text: e for e in data.examples}
    fly = by_text["fly from Berlin to LA"].entities
    assert [(e.name, e.value, e.text, e.start, e.end, e.role) for e in fly] == [
        ("city", "Berlin", "Berlin", 9, 15, "departure"),
        ("city", "Los Angeles", "LA", 19, 21, "destination"),
    ]
    pizza = by_text["a large pizza with pepperoni"].entities
    assert [(e.name, e.group) for e in pizza] == [("size", None), ("topping", "1")]
    legacy = by_text["I want NYC please"].entities
    assert [(e.name, e.value, e.text) for e in legacy] == [("city", "New York City", "NYC")]
    listed = by_text["ten tickets for Tuesday"].entities
    assert [(e.name, e.value, e.start, e.end) for e in listed] == [
        ("number", "10", 0, 3),
        ("date", "Tuesday", 16, 23),
        ("weekday", "tue", 16, 23),
    ]
    assert data.synonyms["New York City"] == ["NYC", "the big apple"]
    assert data.synonyms["Los Angeles"] == ["LA"]
    assert data.synonym_blocks == {"New York City": ["NYC", "the big apple"]}
    assert data.regexes == {"flight_number": [r"[A-Z]{2}\d{3,4}"]}
    assert data.lookups == {"city": ["Berlin", "Paris"]}
    assert data.synonym_lookup()["the big apple"] == "New York City"


def test_metadata_kinds_parents_and_example_metadata() -> None:
    data = load_training_data(FIXTURES / "all_features.yml")
    assert data.intent_kind("greet") is IntentKind.SMALL_TALK
    assert data.intent_kind("book_flight") is IntentKind.DIALOG
    assert data.intent_kind("faq/ask_baggage") is IntentKind.FAQ  # retrieval intent default
    assert data.intent_kind("change_seat") is None
    assert data.parent_path("pick_meal") == ["book_flight", "change_seat"]
    assert data.parent_path("book_flight") == []
    assert data.follow_ups("book_flight") == ["change_seat"]
    seat = [e for e in data.examples if e.intent == "change_seat"]
    assert [(e.text, e.metadata, e.line) for e in seat] == [
        ("a window seat please", {"sentiment": "neutral"}, 30),
        ("aisle instead", None, 34),
    ]
    suite = suite_from_training_data(data)
    by_text = {c.utterance: c for c in suite.cases}
    meal = by_text["vegetarian"]
    assert meal.parent_intents == ["book_flight", "change_seat"]
    assert meal.intents == [ExpectedIntent("pick_meal")]
    assert by_text["hey"].intents == [ExpectedIntent("greet", IntentKind.SMALL_TALK)]
    assert by_text["a window seat please"].extra == {"rasa_metadata": {"sentiment": "neutral"}}
    assert suite.training["intent_metadata"] == {"book_flight": {"owner": "travel-team"}}


def test_stories_rules_responses_and_version_are_ignored(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'version: "2.0"\nrules:\n- rule: x\n  steps: []\nnlu:\n- intent: yes\n  examples: |\n'
        "    - yes\n    - no\n",
    )
    data = load_training_data(path)
    # scalars are taken as written: an intent named "yes" stays the string "yes"
    assert [(e.intent, e.text) for e in data.examples] == [("yes", "yes"), ("yes", "no")]


def test_example_without_dash_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path, "nlu:\n- intent: greet\n  examples: |\n    - hi\n    hello\n")
    data = load_training_data(path)
    assert [e.text for e in data.examples] == ["hi"]
    assert len(data.warnings) == 1 and "line 5" in data.warnings[0]


@pytest.mark.parametrize(
    ("text", "line", "field", "needle"),
    [
        ("nlu:\n- intent: a\n  examples: |\n    - [x]{bad}\n", 4, "examples", "invalid JSON"),
        (
            'nlu:\n- intent: a\n  examples: |\n    - [x]{"value": "y"}\n',
            4,
            "examples",
            "no 'entity'",
        ),
        (
            "nlu:\n- intent: a\n  metadata: {kind: chit_chat}\n  examples: |\n    - hi\n",
            3,
            "metadata.kind",
            "chit_chat",
        ),
        ("nlu:\n- regex: n\n  examples: |\n    - a(b\n", 4, "regex 'n'", "invalid regular"),
        ("nlu:\n- intent: a\n  synonym: b\n", 2, "nlu", "exactly one"),
        ("nlu: {intent: a}\n", 1, "nlu", "must be a list"),
        ("nlu:\n- intent: a\n  examples: |\n    - \n    - []( )\n", None, None, None),
        ("- intent: a\n", 1, None, "mapping"),
        ("version: '3.1'\nstories: []\n", None, None, "no 'nlu:' section"),
        ("nlu:\n- intent: a\n\texamples: |\n", 3, None, "tab"),
    ],
)
def test_bad_input_names_line_and_field(
    tmp_path: Path, text: str, line: int | None, field: str | None, needle: str | None
) -> None:
    path = write(tmp_path, text)
    if needle is None:  # an empty example line is skipped; "[]( )" is plain text to Rasa
        data = load_training_data(path)
        assert [e.text for e in data.examples] == ["[]( )"]
        assert data.warnings == [f"{path}: line 4: empty example skipped"]
        return
    with pytest.raises(InputError) as info:
        load_training_data(path)
    err = info.value
    assert err.path == path
    assert err.line == line
    assert err.field == field
    assert needle in str(err)


def test_fixture_errors() -> None:
    with pytest.raises(InputError) as info:
        load_training_data(FIXTURES / "bad_annotation.yml")
    assert (info.value.line, info.value.field) == (6, "examples")
    with pytest.raises(InputError) as info:
        load_training_data(FIXTURES / "tab_error.yml")
    assert info.value.line == 6 and "tab" in info.value.message


def test_parent_cycle_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "nlu:\n- intent: a\n  metadata: {parent: b}\n  examples: |\n    - x\n"
        "- intent: b\n  metadata: {parent: a}\n  examples: |\n    - y\n",
    )
    with pytest.raises(InputError, match="cycle"):
        load_training_data(path)


def test_directory_of_files(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    write(tmp_path / "data", "nlu:\n- intent: a\n  examples: |\n    - x\n", "a.yml")
    write(tmp_path / "data", "nlu:\n- intent: b\n  examples: |\n    - y\n", "b.yaml")
    write(tmp_path / "data", "stories: []\n", "stories.yml")
    data = load_training_data(tmp_path / "data")
    assert [(e.intent, e.text) for e in data.examples] == [("a", "x"), ("b", "y")]
    before = data.digest
    write(tmp_path / "data", "nlu:\n- intent: b\n  examples: |\n    - z\n", "b.yaml")
    assert load_training_data(tmp_path / "data").digest != before


# --- detection -------------------------------------------------------------------------------


def test_sniff_claims_only_rasa_nlu_files(tmp_path: Path) -> None:
    assert rasa_yaml.sniff(Path("nlu.yml"), 'version: "3.1"\nnlu:\n- intent: a\n')
    assert not rasa_yaml.sniff(Path("x.suite.yaml"), "nlu:\n")
    assert not rasa_yaml.sniff(Path("domain.yml"), "intents:\n  - greet\n")
    assert not rasa_yaml.sniff(Path("nlu.json"), "nlu:\n")
    assert not rasa_yaml.sniff(Path("a.yml"), "stories:\n- story: nlu: x\n")
    native = tmp_path / "t.suite.yaml"
    native.write_text("nlu_tui_suite: 1\nname: t\ncases: []\n", encoding="utf-8")
    assert detect_format(native) == "native"


# --- export -------------------------------------------------------------------------------


def _case(utterance: str, intents: list[str], **kw: Any) -> TestCase:
    return TestCase(utterance=utterance, intents=[ExpectedIntent(n) for n in intents], **kw)


def test_export_markup_metadata_and_sections(tmp_path: Path) -> None:
    suite = Suite(
        name="s",
        cases=[
            _case(
                "send 200 dollars to Leo",
                ["transfer"],
                entities=[
                    ExpectedEntity("amount", "200 USD", text="200 dollars"),
                    ExpectedEntity("payee", "Leo"),
                ],
            ),
            _case(
                "yes",
                ["confirm"],
                parent_intents=["transfer"],
            ),
            _case("express", ["delivery"], parent_intents=["transfer", "confirm"]),
            TestCase("hi", [ExpectedIntent("greet", IntentKind.SMALL_TALK)]),
            TestCase("fees?", [ExpectedIntent("faq/fees", IntentKind.FAQ)]),
        ],
        training={"synonyms": {"checking": ["current"]}, "regexes": {"n": [r"\d+"]}},
    )
    out = tmp_path / "out.yml"
    assert export_suite(suite, out, "rasa") == []
    text = out.read_text(encoding="utf-8")
    assert text.startswith('version: "3.1"\n')
    assert '- send [200 dollars]{"entity": "amount", "value": "200 USD"} to [Leo](payee)' in text
    assert '  metadata: {"parent": "transfer"}' in text
    assert '  metadata: {"kind": "small_talk"}' in text
    assert "faq/fees\n  examples" in text  # the FAQ default needs no metadata
    assert "- synonym: checking\n  examples: |\n    - current\n" in text
    assert "- regex: n\n  examples: |\n    - \\d+\n" in text
    plain = yaml.safe_load(text)
    assert [item.get("intent") for item in plain["nlu"]][:5] == [
        "transfer",
        "confirm",
        "delivery",
        "greet",
        "faq/fees",
    ]
    back = import_suite(out).suite
    assert [c.parent_intents for c in back.cases] == [
        [],
        ["transfer"],
        ["transfer", "confirm"],
        [],
        [],
    ]
    assert back.cases[0].entities[0] == ExpectedEntity(
        "amount", "200 USD", text="200 dollars", start=5, end=16
    )


def test_export_warns_about_what_rasa_cannot_express(tmp_path: Path) -> None:
    suite = Suite(
        name="s",
        cases=[
            _case("what's the weather", [], id="oos"),
            _case("pay rent", ["pay_bill", "transfer"], id="multi"),
            TestCase("I'm upset", traits=["Complaint"], id="trait"),
            _case(
                "send it to Leonardo",
                ["transfer"],
                id="regex",
                entities=[ExpectedEntity("payee", "Leo.*", kind=ValueKind.REGEX)],
            ),
            _case("send it", ["transfer"], id="lost", entities=[ExpectedEntity("payee", "Bob")]),
            _case("pay [x](y)", ["pay_bill"], id="brackets"),
            _case("a\nb", ["pay_bill"], id="newline"),
            _case("tagged", ["pay_bill"], id="tagged", tags=["smoke"]),
        ],
    )
    out = tmp_path / "out.yml"
    warnings = export_suite(suite, out, "rasa")
    joined = "\n".join(warnings)
    for needle in (
        "case oos: no intent",
        "case multi: 2 acceptable intents",
        "case regex: entity 'payee': the regular expression 'Leo.*' is written as the text it matches, 'Leonardo'",
        "case lost: entity 'payee'",
        "case brackets: utterance",
        "case newline: utterance",
        "case trait: expects traits only (Complaint)",
        "1 case(s) have tags",
    ):
        assert needle in joined
    data = load_training_data(out)
    assert [(e.intent, e.text) for e in data.examples] == [
        ("pay_bill", "pay rent"),
        ("pay_bill", "tagged"),
        ("transfer", "send it to Leonardo"),
        ("transfer", "send it"),
    ]


def test_training_data_from_suite() -> None:
    original = load_training_data(FIXTURES / "all_features.yml")
    data = training_data_from_suite(suite_from_training_data(original))
    assert [(e.text, e.intent, e.entities) for e in data.examples] == [
        (e.text, e.intent, e.entities) for e in original.examples
    ]
    assert data.intent_metadata["pick_meal"] == {"parent": "change_seat"}
    assert data.parent_path("pick_meal") == ["book_flight", "change_seat"]
    assert data.synonyms["Los Angeles"] == ["LA"]
    assert data.lookups == {"city": ["Berlin", "Paris"]}


def test_format_example_refuses_what_would_misread() -> None:
    ok = format_example("to LA", [(3, 5, ExpectedEntity("city", "Los Angeles"))])
    assert ok == 'to [LA]{"entity": "city", "value": "Los Angeles"}'
    assert format_example("[a](b) c", []) is None
    assert format_example("x y", [(0, 1, ExpectedEntity("e", "a}b"))]) is None
    assert parse_example("no entities").entities == []


# --- round trips (hypothesis) ---------------------------------------------------------------

WORDS = st.text(alphabet=string.ascii_letters + string.digits + "'?!,.$-", min_size=1, max_size=8)
VALUE = (
    st.text(alphabet=string.ascii_letters + " .'-éü", min_size=1, max_size=10)
    .map(str.strip)
    .filter(bool)
)
NAME = st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True)


@st.composite
def expressible_suites(draw: st.DrawFn) -> Suite:
    """Suites holding only what Rasa can say: one intent per case, spans, roles, groups."""
    intents = draw(st.lists(NAME, min_size=1, max_size=4, unique=True))
    retrieval = draw(st.lists(st.booleans(), min_size=len(intents), max_size=len(intents)))
    names = [f"faq/{n}" if r else n for n, r in zip(intents, retrieval, strict=True)]
    kinds: dict[str, IntentKind | None] = {}
    parents: dict[str, list[str]] = {}
    for i, name in enumerate(names):
        if name.startswith("faq/"):
            kinds[name] = IntentKind.FAQ
        else:
            kinds[name] = draw(st.sampled_from([None, *IntentKind]))
        # a parent chain over earlier intents only (no cycles), consistent per intent
        if i and draw(st.booleans()):
            parent = names[draw(st.integers(0, i - 1))]
            parents[name] = [*parents[parent], parent]
        else:
            parents[name] = []
    cases = []
    for _ in range(draw(st.integers(1, 6))):
        intent = draw(st.sampled_from(names))
        words = draw(st.lists(WORDS, min_size=1, max_size=6))
        utterance = " ".join(words)
        entities = []
        offset = 0
        for word in words:
            if draw(st.integers(0, 3)) == 0:
                value = draw(st.one_of(st.just(word), VALUE))
                entities.append(
                    ExpectedEntity(
                        draw(NAME),
                        value,
                        kind=ValueKind.AUTO,
                        text=word,
                        start=offset,
                        end=offset + len(word),
                        role=draw(st.one_of(st.none(), NAME)),
                        group=draw(st.one_of(st.none(), st.sampled_from(["1", "2"]))),
                    )
                )
            offset += len(word) + 1
        cases.append(
            TestCase(
                utterance,
                [ExpectedIntent(intent, kinds[intent])],
                parent_intents=list(parents[intent]),
                entities=entities,
            )
        )
    training = {}
    if draw(st.booleans()):
        training["synonyms"] = draw(
            st.dictionaries(VALUE, st.lists(VALUE, min_size=1, max_size=3, unique=True), max_size=2)
        )
    if draw(st.booleans()):
        training["lookups"] = draw(
            st.dictionaries(
                NAME, st.lists(VALUE, min_size=1, max_size=3, unique=True), min_size=1, max_size=2
            )
        )
    if draw(st.booleans()):
        training["regexes"] = {"num": [r"\d{3,}", r"[A-Z]+\s?\d"]}
    return Suite(name="generated", cases=cases, training=training)


def _comparable(case: TestCase) -> tuple[object, ...]:
    return (case.utterance, case.intents, case.parent_intents, case.entities)


@pytest.mark.slow
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(suite=expressible_suites())
def test_round_trip_native_rasa_native(tmp_path: Path, suite: Suite) -> None:
    native_text = dump_suite(suite)
    original = parse_suite(native_text)
    out = tmp_path / "rt.yml"
    warnings = export_suite(original, out, "rasa")
    assert warnings == []
    back = import_suite(out, "rasa").suite
    reparsed = parse_suite(dump_suite(back))

    # Rasa groups examples by intent: compare per intent, in order within each intent
    def grouped(s: Suite) -> dict[str, list[tuple[object, ...]]]:
        result: dict[str, list[tuple[object, ...]]] = {}
        for c in s.cases:
            result.setdefault(c.intents[0].name, []).append(_comparable(c))
        return result

    assert grouped(reparsed) == grouped(original)
    assert {k: v for k, v in reparsed.training.items()} == {
        k: v for k, v in original.training.items() if v
    }


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=30), value=st.text(max_size=6))
def test_export_never_writes_what_reads_differently(text: str, value: str) -> None:
    """Any utterance either reads back exactly (stripped) or is skipped with a warning."""
    entities = [ExpectedEntity("e", value)] if value else []
    suite = Suite(name="x", cases=[TestCase(text, [ExpectedIntent("i")], entities=entities)])
    rendered, warnings = dump_training_yaml(suite)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "nlu.yml"
        path.write_text(rendered, encoding="utf-8")
        examples = load_training_data(path).examples
    if not examples:
        assert warnings
        return
    assert [e.text for e in examples] == [text.strip()]
    if not warnings:
        assert [e.value for e in examples[0].entities] == [e.value for e in entities]


def test_export_finds_entities_by_case_synonym_and_regex() -> None:
    suite = Suite(
        name="s",
        cases=[
            _case(
                "settle the power bill for TOM",
                ["pay_bill"],
                entities=[
                    ExpectedEntity("biller", "electricity"),
                    ExpectedEntity("payee", "Tom"),
                ],
            ),
            _case("wire to 99887766", ["transfer"], entities=[ExpectedEntity("acct", r"\d{8}")]),
        ],
        training={"synonyms": {"electricity": ["electric", "power"]}},
    )
    text, warnings = dump_training_yaml(suite)
    assert (
        '- settle the [power]{"entity": "biller", "value": "electricity"} bill for '
        '[TOM]{"entity": "payee", "value": "Tom"}'
    ) in text
    assert "- wire to [99887766](acct)" in text
    assert warnings == [
        "case "
        + suite.cases[1].id
        + r": entity 'acct': the regular expression '\\d{8}' is written as the text it"
        " matches, '99887766'"
    ]
