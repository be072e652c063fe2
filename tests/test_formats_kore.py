"""Kore.ai JSON and CSV suites: the seed document's own examples, one test per rule, errors, and
round trips through each format."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nlu_tui.errors import InputError
from nlu_tui.formats import kore_csv, kore_json
from nlu_tui.formats.kore_common import parse_intent_field, parse_parent_field
from nlu_tui.formats.native import dump_suite, parse_suite
from nlu_tui.formats.registry import detect_format
from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase, ValueKind

FIXTURES = Path(__file__).parent / "fixtures" / "formats"


def summary(suite: Suite) -> list[tuple[object, ...]]:
    """Each case as (utterance, intents, traits, parents, entities, order) for exact comparison."""
    return [
        (
            c.utterance,
            [(i.name, i.bot) if i.bot else i.name for i in c.intents],
            c.traits,
            c.parent_intents,
            [(e.name, e.value, *e.alternatives) for e in c.entities],
            c.entity_order,
        )
        for c in suite.cases
    ]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- the seed document's examples -----------------------------------------------------------


def test_seed_json_example_yields_the_documented_cases() -> None:
    suite, warnings = kore_json.load(FIXTURES / "seed_kore.json")
    assert warnings == []
    many = "How many people can you speak to at once?"
    assert summary(suite) == [
        (
            "Send 200 dollars to Leonardo",
            ["Transfer Funds"],
            [],
            [],
            [("TransferAmount", "200 USD"), ("PayeeName", "Leonardo")],
            ["TransferAmount", "PayeeName"],
        ),
        (
            "What is the balance in my checking account",
            ["Show Balance"],
            [],
            ["Transfer Funds"],
            [],
            [],
        ),
        ("Repeat this transfer every month", ["Setup Auto Pay"], [], ["Transfer Funds"], [], []),
        (
            "Show my past 20 transactions",
            ["Show Account Statement"],
            [],
            [],
            [("HistorySize", "20")],
            [],
        ),
        ("Pay my credit card dues", ["Pay Bill"], [], [], [], []),
        (
            "I need to pay my monthly credit card bill",
            ["Pay Bill", "Setup Auto Pay", "Transfer Funds"],
            [],
            [],
            [],
            [],
        ),
        ("Open an account for me", ["Open Account", "How to Open Account?"], [], [], [], []),
        (
            "looks like something is wrong in my statement",
            [],
            ["Account Statement", "Issue", "Account Type"],
            [],
            [],
            [],
        ),
        ("How are you doing today", ["emohowzit"], [], [], [], []),
        ("Thank you", ["thank~you"], [], [], [], []),
        ("I understand", ["i_understand"], [], [], [], []),
        ("That's great", ["~positiveackwords"], [], [], [], []),
        (many, [many], [], [], [], []),
        ("That's sweet", ["That's sweet"], [], [many], [], []),
        ("What else can you do?", ["What else can you do?"], [], [many, "That's sweet"], [], []),
        ("What else can you do?", ["What else"], [], [], [], []),
        ("What's your age?", ["How old are you?"], [], [], [], []),
        ("Who created you?", ["Who made you?"], [], [], [], []),
        ("How many people talk to you?", [many], [], [], [], []),
        ("What's your name?", ["What is your name?"], [], [], [], []),
        ("What are you called?", ["What ~you called?"], [], [], [], []),
    ]
    assert [c.line for c in suite.cases[:3]] == [3, 18, 23]
    assert len({c.id for c in suite.cases}) == len(suite.cases)


def test_seed_json_multi_item_and_composite_example() -> None:
    """The sample pastes curly quotes, a trailing comma and a missing ']': read, with warnings."""
    suite, warnings = kore_json.load(FIXTURES / "seed_kore_multi_composite.json")
    assert summary(suite) == [
        ("Add cart to Apples , Grapes", ["Add to cart"], [], [], [("LOV", "Apples||Grapes")], []),
        (
            "I booked a ticket from Hyderabad on July 6th, 2018 and it costed me Rs. 1200",
            ["Book a flight"],
            [],
            [],
            # kept as written: the sample's '}' typo is inside a JSON string
            [("Composite5", "City:Hyderabad|Date:2018-07-06}Curr:1200 INR")],
            [],
        ),
    ]
    assert suite.cases[0].entities[0].kind is ValueKind.AUTO
    text = "\n".join(warnings)
    assert "line 16: curly quotes" in text
    assert "trailing comma" in text
    assert "']' missing before '}'" in text


def test_seed_universal_bot_example_pairs_bots_with_intents() -> None:
    suite, _ = kore_json.load(FIXTURES / "seed_kore_universal.json")
    assert suite.cases[0].intents == [
        ExpectedIntent("Age Predictor", bot="Check Bot"),
        ExpectedIntent("IVRnode", bot="XOP211"),
        ExpectedIntent("Check Rephase", bot="Check Rephase"),
    ]


def test_seed_csv_example_yields_the_documented_cases() -> None:
    suite, warnings = kore_csv.load(FIXTURES / "seed_kore.csv")
    assert warnings == []
    assert summary(suite) == [
        (
            "Send 200 dollars to Leonardo",
            ["Transfer Funds"],
            [],
            [],
            [("TransferAmount", "200 USD"), ("PayeeName", "Leonardo")],
            ["TransferAmount", "PayeeName"],
        ),
        (
            "What is the balance in my checking account",
            ["Show Balance"],
            [],
            ["Transfer Funds"],
            [],
            [],
        ),
        ("Repeat this transfer every month", ["Setup Auto Pay"], [], ["Transfer Funds"], [], []),
        (
            "Show my past 20 transactions",
            ["Show Account Statement"],
            [],
            [],
            [("HistorySize", "20")],
            [],
        ),
        ("Pay my credit card dues", ["Pay Bill"], [], [], [], []),
    ]
    assert [c.line for c in suite.cases] == [2, 4, 5, 6, 7]


def test_seed_csv_multi_item_and_composite_example() -> None:
    """Curly-quoted fields with commas, a missing parentIntent column, a stray curly quote."""
    suite, warnings = kore_csv.load(FIXTURES / "seed_kore_multi_composite.csv")
    assert summary(suite) == [
        ("Add cart to Apples , Grapes", ["Add to cart"], [], [], [("LOV", "Apples||Grapes")], []),
        (
            "I booked a ticket from hyderabad on July 6th, 2018 and it cost me Rs. 1200",
            ["Composite Test"],
            [],
            [],
            [("Composite55", "City5:Hyderabad|Date5:2018-07-06|Curr5:1200 INR")],
            [],
        ),
    ]
    text = "\n".join(warnings)
    assert "row 2: entityName without entityValue" in text
    assert "row 3, field 'entityValue': stray curly quote removed" in text


def test_format_detection() -> None:
    assert detect_format(FIXTURES / "seed_kore.json") == "kore-json"
    assert detect_format(FIXTURES / "seed_kore_universal.json") == "kore-json"
    assert detect_format(FIXTURES / "seed_kore.csv") == "kore-csv"
    assert detect_format(FIXTURES / "seed_kore_multi_composite.csv") == "kore-csv"


# --- one test per rule ------------------------------------------------------------------------


def test_up_to_three_intents_separated_by_bar_spaces_allowed() -> None:
    assert parse_intent_field("Pay Bill | Setup Auto Pay|Transfer Funds ").intents == [
        ExpectedIntent("Pay Bill"),
        ExpectedIntent("Setup Auto Pay"),
        ExpectedIntent("Transfer Funds"),
    ]


@pytest.mark.parametrize("field", ["trait: A||B", "Trait: A|| B", "TRAIT :A ||B", "  trait:A||B||"])
def test_trait_prefix_any_case_with_double_bar(field: str) -> None:
    parsed = parse_intent_field(field)
    assert parsed.traits == ["A", "B"] and parsed.intents == []


@pytest.mark.parametrize("field", ["A||B", "A >> B", " A>>B ", "A || B"])
def test_parent_intent_levels_with_bars_or_chevrons(field: str) -> None:
    assert parse_parent_field(field) == ["A", "B"]


def test_bot_names_pair_with_intents_by_position(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "u.csv",
        "input,intent,botName\nhello,Greet | Hi,Bot 1|Bot 2\nbye,Leave,Bot 3\n",
    )
    suite, _ = kore_csv.load(path)
    assert suite.cases[0].intents == [
        ExpectedIntent("Greet", bot="Bot 1"),
        ExpectedIntent("Hi", bot="Bot 2"),
    ]
    assert suite.cases[1].intents == [ExpectedIntent("Leave", bot="Bot 3")]
    bad = write(
        tmp_path, "b.json", '{"testCases": [{"input": "x", "intent": "a|b|c", "botName": "p|q"}]}'
    )
    with pytest.raises(InputError) as err:
        kore_json.load(bad)
    assert err.value.field == "botName" and err.value.line == 1


def test_csv_continuation_rows_add_entities_and_may_carry_the_order(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "c.csv",
        "input,intent,parentIntent,entityName,entityValue,entityOrder\n"
        "Fly from Paris to Rome,Book,,from,Paris,\n"
        ",,,to,Rome,\n"
        ",,,,,to > from\n"
        "Next one,Other,,,,\n",
    )
    suite, _ = kore_csv.load(path)
    assert summary(suite)[0][4:] == ([("from", "Paris"), ("to", "Rome")], ["to", "from"])
    assert len(suite.cases) == 2


def test_csv_continuation_with_an_intent_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path, "c.csv", "input,intent,entityName,entityValue\nhi,Greet,a,1\n,Other,b,2\n"
    )
    with pytest.raises(InputError) as err:
        kore_csv.load(path)
    assert (err.value.line, err.value.kind, err.value.field) == (3, "row", "intent")


def test_same_utterance_different_values_of_one_entity_is_one_case_accepting_either(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        "c.csv",
        "input,intent,parentIntent,entityName,entityValue,entityOrder\n"
        "Pay 20 dollars,Pay,,amount,20 USD,\n"
        "Pay 20 dollars,Pay,,amount,20.00 USD,\n"
        "Pay 20 dollars,Pay,,amount,USD 20,\n",
    )
    suite, _ = kore_csv.load(path)
    assert len(suite.cases) == 1
    assert suite.cases[0].entities == [
        ExpectedEntity("amount", "20 USD", alternatives=["20.00 USD", "USD 20"])
    ]
    # the same rule for JSON test cases
    json_path = write(
        tmp_path,
        "c.json",
        '{"testCases": ['
        '{"input": "Pay 20", "intent": "Pay", "entities": [{"entityName": "a", "entityValue": "20"}]},'
        '{"input": "Pay 20", "intent": "Pay", "entities": [{"entityName": "a", "entityValue": "twenty"}]}'
        "]}",
    )
    json_suite, _ = kore_json.load(json_path)
    assert json_suite.cases[0].entities == [ExpectedEntity("a", "20", alternatives=["twenty"])]


def test_same_utterance_different_entity_names_is_one_case_with_both(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "c.csv",
        "input,intent,entityName,entityValue\nFly to Rome,Book,to,Rome\nFly to Rome,Book,class,economy\n",
    )
    suite, _ = kore_csv.load(path)
    assert summary(suite) == [
        ("Fly to Rome", ["Book"], [], [], [("to", "Rome"), ("class", "economy")], [])
    ]


def test_same_utterance_with_another_intent_stays_two_cases(tmp_path: Path) -> None:
    path = write(tmp_path, "c.csv", "input,intent\nhi,Greet\nhi,Smalltalk\nhi,Greet\n")
    suite, _ = kore_csv.load(path)
    assert [c.intent_names for c in suite.cases] == [["Greet"], ["Smalltalk"], ["Greet"]]


def test_multi_item_and_composite_values_are_kept_as_written(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "c.csv",
        "input,intent,entityName,entityValue\n"
        '"Add apples, grapes",Add,fruit,Apples||Grapes\n'
        "Book it,Book,trip,City:Hyderabad|Date:2018-07-06|Curr:1200 INR\n",
    )
    suite, _ = kore_csv.load(path)
    assert [e.value for c in suite.cases for e in c.entities] == [
        "Apples||Grapes",
        "City:Hyderabad|Date:2018-07-06|Curr:1200 INR",
    ]
    assert all(e.kind is ValueKind.AUTO for c in suite.cases for e in c.entities)


def test_curly_quotes_and_stray_spaces_are_tolerated(tmp_path: Path) -> None:
    csv_path = write(
        tmp_path,
        "c.csv",
        " input , intent ,entityName, entityValue\n“Hello, there” ,  Greet  , who , “Ann”\n",
    )
    suite, _ = kore_csv.load(csv_path)
    assert summary(suite) == [("Hello, there", ["Greet"], [], [], [("who", "Ann")], [])]
    json_path = write(
        tmp_path, "c.json", "{“testCases”: [{“input”: “ Hello ”, ‘intent’: “ Greet ”}]}"
    )
    suite, warnings = kore_json.load(json_path)
    assert summary(suite) == [("Hello", ["Greet"], [], [], [], [])]
    assert "curly quotes" in warnings[0]


def test_entity_order_array_in_json(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "o.json",
        '{"testCases": [{"input": "x", "intent": "I", "entities": ['
        '{"entityName": "a", "entityValue": "1"}, {"entityName": "b", "entityValue": "2"}],'
        ' "entityOrder": ["b", "a"]}]}',
    )
    assert kore_json.load(path)[0].cases[0].entity_order == ["b", "a"]


def test_utterance_over_3000_characters_rejects_the_file(tmp_path: Path) -> None:
    long = "a" * 3001
    csv_path = write(tmp_path, "l.csv", f"input,intent\nok,I\n{long},I\n")
    with pytest.raises(InputError) as err:
        kore_csv.load(csv_path)
    assert (err.value.line, err.value.kind, err.value.field) == (3, "row", "input")
    assert "3,001 characters" in str(err.value)
    json_path = write(
        tmp_path, "l.json", f'{{"testCases": [\n{{"input": "ok"}},\n{{"input": "{long}"}}]}}'
    )
    with pytest.raises(InputError) as err:
        kore_json.load(json_path)
    assert err.value.line == 3 and str(json_path) in str(err.value)
    exactly = write(tmp_path, "e.csv", f"input,intent\n{'a' * 3000},I\n")
    assert len(kore_csv.load(exactly)[0].cases[0].utterance) == 3000


def test_more_than_a_thousand_utterances_is_accepted_with_a_warning(tmp_path: Path) -> None:
    """Seed 000's current page: "a maximum of 1000 utterances" (older releases said 10,000)."""
    rows = "".join(f"utterance {i},I\n" for i in range(1_001))
    suite, warnings = kore_csv.load(write(tmp_path, "big.csv", "input,intent\n" + rows))
    assert len(suite.cases) == 1_001
    assert any(
        "1,001 utterances" in w and "1,000 Kore.ai accepts" in w and "10,000" in w for w in warnings
    )
    ok, ok_warnings = kore_csv.load(
        write(tmp_path, "ok.csv", "input,intent\n" + rows[: rows.index("utterance 1000")])
    )
    assert len(ok.cases) == 1_000 and ok_warnings == []


# --- malformed files ------------------------------------------------------------------------


def test_bad_json_names_the_line(tmp_path: Path) -> None:
    path = write(
        tmp_path, "b.json", '{"testCases": [\n  {"input": "a", "intent": "b"\n  {"input": "c"}\n]}'
    )
    with pytest.raises(InputError) as err:
        kore_json.load(path)
    assert err.value.line == 3 and "JSON syntax error" in str(err.value)
    unclosed = write(tmp_path, "u.json", '{"testCases": [\n {"input": "a}\n]}')
    with pytest.raises(InputError, match="not closed") as err:
        kore_json.load(unclosed)
    assert err.value.line == 2
    with pytest.raises(InputError, match="testCases"):
        kore_json.load(write(tmp_path, "n.json", '{"cases": []}'))


def test_csv_unclosed_quote_names_the_row(tmp_path: Path) -> None:
    path = write(tmp_path, "q.csv", 'input,intent\nhello,Greet\n"Send money,Transfer\nbye,Leave\n')
    with pytest.raises(InputError) as err:
        kore_csv.load(path)
    assert (err.value.line, err.value.kind, err.value.field) == (3, "row", "input")
    assert "unclosed quote" in str(err.value)
    later = write(tmp_path, "q2.csv", 'input,intent\n"Send money,Transfer\nbye,"Leave"\n')
    with pytest.raises(InputError, match="unclosed quote") as err:
        kore_csv.load(later)
    assert err.value.line == 2


def test_csv_errors_for_missing_header_and_extra_fields(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="header") as err:
        kore_csv.load(write(tmp_path, "h.csv", "hello,Greet\n"))
    assert err.value.line == 1
    with pytest.raises(InputError, match="quote fields that contain commas") as err:
        kore_csv.load(write(tmp_path, "x.csv", "input,intent\nhello, there,Greet\n"))
    assert err.value.line == 2


# --- export ------------------------------------------------------------------------------------


def sample_suite() -> Suite:
    return Suite(
        "Bank",
        description="d",
        cases=[
            TestCase(
                "Send 200 dollars to Leonardo",
                [ExpectedIntent("Transfer Funds")],
                parent_intents=["Accounts", "Payments"],
                entities=[
                    ExpectedEntity("amount", "200 USD", alternatives=["USD 200"]),
                    ExpectedEntity("payee", "Leo.*", kind=ValueKind.REGEX),
                ],
                entity_order=["amount", "payee"],
                tags=["smoke"],
            ),
            TestCase("statement issue", traits=["Account Statement", "Issue"]),
            TestCase("multibot", [ExpectedIntent("A", bot="B1"), ExpectedIntent("C", bot="B2")]),
            TestCase("nothing to see"),
        ],
    )


def test_json_export_writes_kore_fields_and_warns_about_losses(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    warnings = kore_json.write(sample_suite(), path)
    import json

    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["testCases"][0] == {
        "input": "Send 200 dollars to Leonardo",
        "intent": "Transfer Funds",
        "parentIntent": "Accounts||Payments",
        "entities": [
            {"entityValue": "200 USD", "entityName": "amount"},
            {"entityValue": "Leo.*", "entityName": "payee"},
        ],
        "entityOrder": ["amount", "payee"],
    }
    # the alternative value: a repeated test case, as the consecutive-row rule reads it back
    assert doc["testCases"][1]["entities"] == [{"entityValue": "USD 200", "entityName": "amount"}]
    assert doc["testCases"][2]["intent"] == "trait: Account Statement||Issue"
    assert doc["testCases"][3]["botName"] == "B1|B2"
    text = "\n".join(warnings)
    assert "case ids are not kept" in text
    assert "tags (1 case)" in text and "'regex' value kinds" in text
    assert "description" in text
    back, _ = kore_json.load(path)
    assert back.cases[0].entities[0].alternatives == ["USD 200"]


def test_csv_export_uses_continuation_rows(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    kore_csv.write(sample_suite(), path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[:4] == [
        "input,intent,parentIntent,entityName,entityValue,entityOrder,botName",
        "Send 200 dollars to Leonardo,Transfer Funds,Accounts||Payments,amount,200 USD,amount>payee,",
        ",,,payee,Leo.*,,",
        "Send 200 dollars to Leonardo,Transfer Funds,Accounts||Payments,amount,USD 200,,",
    ]
    back, _ = kore_csv.load(path)
    assert summary(back) == summary(Suite("x", cases=[*sample_suite().cases]))


# --- round trips: native -> Kore -> native keeps what Kore can express --------------------------

_plain = st.characters(
    blacklist_categories=("Cs", "Cc", "Zl", "Zp", "Zs"),
    blacklist_characters="|>“”„‟″\ufeff",
)
word = st.text(alphabet=_plain, min_size=1, max_size=6)
phrase = st.lists(word, min_size=1, max_size=3).map(" ".join)
utter_text = (
    st.text(
        alphabet=st.characters(
            blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\ufeff\u00a0\x85"
        ),
        min_size=1,
        max_size=30,
    )
    .map(str.strip)
    .filter(bool)
)


@st.composite
def kore_case(draw: st.DrawFn, index: int) -> TestCase:
    names = draw(
        st.lists(
            phrase.filter(lambda s: not s.lower().startswith("trait")), max_size=3, unique=True
        )
    )
    bots = draw(st.booleans())
    intents = [ExpectedIntent(n, bot=draw(phrase) if bots else None) for n in names]
    traits = [] if intents else draw(st.lists(phrase, max_size=2))
    entity_names = draw(st.lists(word, max_size=3, unique=True))
    entities = []
    for name in entity_names:
        values = draw(st.lists(phrase, min_size=1, max_size=3, unique=True))
        entities.append(ExpectedEntity(name, values[0], alternatives=values[1:]))
    order = draw(st.permutations(entity_names)) if draw(st.booleans()) else []
    return TestCase(
        utterance=f"{index} {draw(utter_text)}",
        intents=intents,
        traits=traits,
        parent_intents=draw(st.lists(phrase, max_size=2)),
        entities=entities,
        entity_order=list(order),
    )


@st.composite
def kore_suite(draw: st.DrawFn) -> Suite:
    count = draw(st.integers(0, 5))
    return Suite("s", cases=[draw(kore_case(i)) for i in range(count)])


def _normalised(suite: Suite) -> list[TestCase]:
    """What survives a Kore file: everything but ids (and lines, which never compare)."""
    return [TestCase(**{**c.__dict__, "id": "", "line": None}) for c in suite.cases]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kore_suite())
def test_round_trip_through_kore_json(suite: Suite) -> None:
    suite = parse_suite(dump_suite(suite))  # native -> Kore JSON -> native
    text, _ = kore_json.dumps(suite)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.json"
        path.write_text(text, encoding="utf-8")
        back, warnings = kore_json.load(path)
    assert warnings == []
    back = parse_suite(dump_suite(back))
    assert _normalised(back) == _normalised(suite)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kore_suite())
def test_round_trip_through_kore_csv(suite: Suite) -> None:
    suite = parse_suite(dump_suite(suite))  # native -> Kore CSV -> native
    text, _ = kore_csv.dumps(suite)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.csv"
        path.write_text(text, encoding="utf-8")
        back, warnings = kore_csv.load(path)
    assert warnings == []
    back = parse_suite(dump_suite(back))
    assert _normalised(back) == _normalised(suite)


def test_more_than_three_intents_is_read_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path, "m.csv", "input,intent\nhi,a|b|c|d\n")
    suite, warnings = kore_csv.load(path)
    assert suite.cases[0].intent_names == ["a", "b", "c", "d"]
    assert warnings == [f"{path}, row 2: 4 intents; Kore.ai allows at most 3"]


def test_unknown_json_properties_are_kept_for_the_way_back(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "x.json",
        '{"testCases": [{"input": "hi", "intent": "Greet", "language": "en"}], "version": 2}',
    )
    suite, _ = kore_json.load(path)
    assert suite.cases[0].extra == {"kore": {"language": "en"}}
    text, _ = kore_json.dumps(suite)
    import json

    doc = json.loads(text)
    assert doc == {
        "testCases": [{"input": "hi", "intent": "Greet", "language": "en"}],
        "version": 2,
    }
