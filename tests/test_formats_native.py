"""The native suite file: schema, line numbers, errors, deterministic output, safe saving."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_strategies import cases, intents

from nlu_tui.errors import ConflictError, InputError
from nlu_tui.formats import native
from nlu_tui.formats.native import dump_suite, load_suite, parse_suite, save_suite
from nlu_tui.formats.registry import detect_format
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    Suite,
    TestCase,
    ValueKind,
)

BRIEF_EXAMPLE = """\
nlu_tui_suite: 1                 # format version
name: Banking bot
description: Regression suite for the banking assistant
cases:
  - id: 9f1c2a7b3d4e             # stable; generated when missing
    utterance: Send 200 dollars to Leonardo
    intents: [transfer_money]
    parent_intents: [check_balance]
    traits: [Account Statement, Issue]
    entities:
      - {name: amount, value: 200 USD}
      - {name: payee, value: "Leo.*", kind: regex, alternatives: [Leonardo]}
    entity_order: [amount, payee]
    tags: [smoke]
    extra: {source: kore}
  - utterance: What's the weather like on Mars
  - utterance: Pay the gas bill
    intents:
      - {name: pay_bill, kind: dialog, bot: Payments}
      - faq_bills
    entities:
      - name: amount
        value: 200
        start: 4
        end: 7
        role: total
training:
  synonym: {USD: [dollars, bucks]}
"""


def write(tmp_path: Path, text: str, name: str = "s.suite.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_every_field_of_the_schema(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, BRIEF_EXAMPLE))
    assert suite.name == "Banking bot"
    assert suite.description == "Regression suite for the banking assistant"
    first, second, third = suite.cases
    assert first == TestCase(
        utterance="Send 200 dollars to Leonardo",
        intents=[ExpectedIntent("transfer_money")],
        traits=["Account Statement", "Issue"],
        parent_intents=["check_balance"],
        entities=[
            ExpectedEntity("amount", "200 USD"),
            ExpectedEntity("payee", "Leo.*", kind=ValueKind.REGEX, alternatives=["Leonardo"]),
        ],
        entity_order=["amount", "payee"],
        tags=["smoke"],
        id="9f1c2a7b3d4e",
        extra={"source": "kore"},
    )
    assert (first.line, second.line, third.line) == (5, 16, 17)
    assert second.intents == [] and not second.expects_intent
    assert third.intents == [
        ExpectedIntent("pay_bill", IntentKind.DIALOG, "Payments"),
        ExpectedIntent("faq_bills"),
    ]
    # a number is kept as written, as text
    assert third.entities[0] == ExpectedEntity("amount", "200", start=4, end=7, role="total")
    assert suite.training == {"synonym": {"USD": ["dollars", "bucks"]}}
    assert suite.loaded_digest is not None and suite.path == tmp_path / "s.suite.yaml"


def test_missing_ids_are_generated_and_stable_across_loads(tmp_path: Path) -> None:
    path = write(tmp_path, "name: x\ncases:\n  - utterance: hi\n  - utterance: hi\n")
    a, b = load_suite(path), load_suite(path)
    assert [c.id for c in a.cases] == [c.id for c in b.cases]
    assert a.cases[0].id != a.cases[1].id
    assert all(len(c.id) == 12 for c in a.cases)


def test_yaml_tab_error_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "name: x\ncases:\n  - utterance: a\n\tintents: [b]\n")
    with pytest.raises(InputError) as err:
        load_suite(path)
    assert err.value.line == 4
    assert str(path) in str(err.value) and "tab" in str(err.value)


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        ("name: x\ncases:\n  - utterance: a\n    intens: [b]\n", "intens", 4),
        ("name: x\nkases: []\n", "kases", 2),
        ("cases:\n  - utterance: a\n    entities:\n      - {name: e, valeu: 1}\n", "valeu", 4),
        ("cases:\n  - utterance: a\n    intents:\n      - {name: e, knd: faq}\n", "knd", 4),
    ],
)
def test_unknown_keys_are_named_with_their_line(
    tmp_path: Path, text: str, key: str, line: int
) -> None:
    with pytest.raises(InputError) as err:
        load_suite(write(tmp_path, text))
    assert err.value.field == key and err.value.line == line
    assert f"unknown key '{key}'" in str(err.value)


def test_case_errors_say_which_case(tmp_path: Path) -> None:
    text = "cases:\n  - utterance: a\n  - intents: [b]\n"
    with pytest.raises(InputError, match="case at line 3 has no 'utterance'"):
        load_suite(write(tmp_path, text))
    with pytest.raises(InputError, match="unknown kind 'regx'"):
        load_suite(
            write(tmp_path, "cases:\n  - utterance: a\n    entities: [{name: e, kind: regx}]\n")
        )
    with pytest.raises(InputError, match="version 2 is not supported"):
        load_suite(write(tmp_path, "nlu_tui_suite: 2\ncases: []\n"))
    with pytest.raises(InputError, match="appears twice"):
        load_suite(write(tmp_path, "cases:\n  - utterance: a\n    utterance: b\n"))


def test_dump_is_deterministic_and_diff_friendly(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, BRIEF_EXAMPLE))
    text = dump_suite(suite)
    assert text == dump_suite(parse_suite(text))
    assert "  - id: 9f1c2a7b3d4e\n    utterance: Send 200 dollars to Leonardo\n" in text
    assert "    intents: [transfer_money]\n" in text
    assert "      - {name: payee, value: Leo.*, kind: regex, alternatives: [Leonardo]}\n" in text
    # a value YAML would otherwise read as a number/bool stays text
    assert (
        parse_suite(dump_suite(Suite("x", cases=[TestCase("yes", id="a")]))).cases[0].utterance
        == "yes"
    )
    assert "traits" not in dump_suite(Suite("x", cases=[TestCase("u", id="a")]))


def test_unicode_and_multiline_text_round_trip() -> None:
    case = TestCase("Überweise 200 € an “Léo”\nbitte", [ExpectedIntent("überweisen")], id="a")
    text = dump_suite(Suite("Bänk", cases=[case]))
    assert "€" in text and "Bänk" in text
    assert parse_suite(text).cases == [case]


def test_save_is_atomic_keeps_bak_and_refuses_conflicts(tmp_path: Path) -> None:
    path = write(tmp_path, BRIEF_EXAMPLE)
    suite = load_suite(path)
    suite.cases[0].tags.append("edited")
    save_suite(suite)
    assert (tmp_path / "s.suite.yaml.bak").read_text(encoding="utf-8") == BRIEF_EXAMPLE
    assert load_suite(path).cases[0].tags == ["smoke", "edited"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]

    # someone else edits the file: our save must refuse and leave their edit alone
    theirs = path.read_text(encoding="utf-8").replace("Banking bot", "Their name")
    path.write_text(theirs, encoding="utf-8")
    suite.cases[0].tags.append("mine")
    with pytest.raises(ConflictError, match="changed on disk"):
        save_suite(suite)
    assert path.read_text(encoding="utf-8") == theirs
    save_suite(suite, force=True)
    assert load_suite(path).cases[0].tags[-1] == "mine"


def test_new_suite_does_not_overwrite_an_existing_file(tmp_path: Path) -> None:
    path = write(tmp_path, BRIEF_EXAMPLE)
    fresh = Suite("new", cases=[TestCase("hello", id="x")])
    with pytest.raises(ConflictError, match="already exists"):
        save_suite(fresh, path)
    assert path.read_text(encoding="utf-8") == BRIEF_EXAMPLE
    other = tmp_path / "other.suite.yaml"
    save_suite(fresh, other)
    assert fresh.path == other and load_suite(other).cases == fresh.cases
    with pytest.raises(InputError):
        save_suite(Suite("no path"))


def test_sniff_and_detection(tmp_path: Path) -> None:
    assert detect_format(write(tmp_path, BRIEF_EXAMPLE)) == "native"
    other = write(tmp_path, "nlu_tui_suite: 1\ncases: []\n", "plain.yaml")
    assert native.sniff(other, other.read_text()) and detect_format(other) == "native"


# --- property: native -> native keeps everything ---------------------------------------------

text_st = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufeff"),
    max_size=20,
)
name_st = text_st.filter(lambda s: s.strip() != "")
entity_st = st.builds(
    ExpectedEntity,
    name=name_st,
    value=text_st,
    kind=st.sampled_from(list(ValueKind)),
    alternatives=st.lists(text_st, max_size=2),
    text=st.none() | text_st,
    start=st.none() | st.integers(0, 500),
    end=st.none() | st.integers(0, 500),
    match_index=st.none() | st.integers(0, 5),
    role=st.none() | text_st,
    group=st.none() | text_st,
    json_value=st.none() | st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)
case_st = cases(
    name_st,
    name_st,
    intents(name_st, name_st),
    entity_st,
    st.text(alphabet="0123456789abcdef", min_size=12, max_size=12),
    max_intents=4,
    max_entity_order=3,
    max_tags=2,
    extra=st.dictionaries(
        st.text(min_size=1, max_size=5), st.integers() | st.text(max_size=5), max_size=2
    ),
)
suite_st = st.builds(Suite, name=name_st, description=text_st, cases=st.lists(case_st, max_size=5))


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(suite_st)
def test_native_round_trip_keeps_everything(suite: Suite) -> None:
    text = dump_suite(suite)
    again = parse_suite(text)
    assert again == suite
    assert dump_suite(again) == text


TRICKY = [
    "yes",
    "No",
    "on",
    "null",
    "~",
    "",
    "200",
    "-5",
    "0x1F",
    "1_000",
    "1:30",
    "1e3",
    ".inf",
    "2018-07-06",
    "=",
    "<<",
    "-x",
    "? x",
    "a: b",
    "a #b",
    "[x]",
    "{x}",
    "@x",
    "`x",
    "%x",
    "!x",
    "&x",
    "*x",
    "|",
    ">",
    "x\ty",
    " lead",
    "trail ",
    "It's",
    '"q"',
    "'q'",
    "\x7f",
    "\x85",
    "\u2028",
    "\ufeff",
    "a,b",
    "Leo.*",
    "City:Hyderabad|Date:2018-07-06",
    "Apples||Grapes",
    "€ 200",
    "日本語",
    "emoji 🙂",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_scalars_read_back_unchanged(text: str) -> None:
    case = TestCase(
        utterance=text,
        intents=[ExpectedIntent(text), ExpectedIntent("x", bot=text)],
        traits=[text],
        parent_intents=[text, text],
        entities=[ExpectedEntity(text, text, alternatives=[text], role=text)],
        entity_order=[text],
        tags=[text],
        id=text or "empty",
        extra={text: text, "nested": [{text: [text, 1, 2.5e100, None, True]}, [text], {}]},
    )
    suite = Suite(text, description=text, cases=[case], training={text: [text]})
    assert parse_suite(dump_suite(suite)) == suite
