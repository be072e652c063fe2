"""The fast path for native suites (``formats.native_fast``) reads what the YAML reader reads.

The oracle is the YAML reader itself (libyaml composing nodes, ``SuiteReader``): every file is
loaded twice, once as it ships (fast path first) and once with the fast path switched off, and
the two suites (cases, ids, line numbers) or the two errors must be equal. Files are written by
the writer from generated suites, then edited the ways people edit YAML by hand.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_strategies import cases, intents

from nlu_tui.errors import InputError
from nlu_tui.formats import native, native_fast
from nlu_tui.formats.native_writer import dump_suite
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    Suite,
    TestCase,
    ValueKind,
)

CHUNK = 3


@contextmanager
def yaml_only() -> Iterator[None]:
    """The fast path switched off: every chunk goes through the YAML reader."""
    original = native_fast.FastReader.cases

    def refuse(self: native_fast.FastReader, *args: object) -> list[TestCase]:
        raise native_fast.NotCanonical

    native_fast.FastReader.cases = refuse  # type: ignore[method-assign]
    try:
        yield
    finally:
        native_fast.FastReader.cases = original  # type: ignore[method-assign]


@contextmanager
def counting() -> Iterator[list[int]]:
    """How many chunks the fast path read ([0]) and gave up on ([1])."""
    original = native_fast.FastReader.cases
    counts = [0, 0]

    def counted(self: native_fast.FastReader, *args: object) -> list[TestCase]:
        try:
            found = original(self, *args)  # type: ignore[arg-type]
        except native_fast.NotCanonical:
            counts[1] += 1
            raise
        counts[0] += 1
        return found

    native_fast.FastReader.cases = counted  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        native_fast.FastReader.cases = original  # type: ignore[method-assign]


def load_both(text: str) -> tuple[object, object]:
    """(fast-path result, YAML-only result): a Suite with its cases' lines, or the error."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.suite.yaml"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        results = []
        for mode in ("fast", "yaml"):
            try:
                if mode == "fast":
                    suite = native.load_suite(path, use_cache=False, chunk_size=CHUNK)
                else:
                    with yaml_only():
                        suite = native.load_suite(path, use_cache=False, chunk_size=CHUNK)
                results.append((suite, [c.line for c in suite.cases]))
            except InputError as exc:
                results.append(("error", str(exc)))  # type: ignore[arg-type]
        return results[0], results[1]


_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=14)
_word = st.sampled_from(
    ["pay", "yes", "no", "null", "~", "1.5", "0x1f", "2024-01-01", "a b", "Ünïcode", "trail ",
     "-dash", "@at", "x:y", "a, b", "[x]", "{y}", "#c", "'q'", '"dq"', "\\back", "\t", "é"]
)  # fmt: skip
_any = _text | _word
_check = st.sampled_from(["$.intent.name == greet", "$.text", "$.a >= 0.5", "intent == x", "$["])
_entity = st.builds(
    ExpectedEntity,
    name=_any.filter(lambda s: s != ""),
    value=_any,
    kind=st.sampled_from(list(ValueKind)),
    alternatives=st.lists(_any, max_size=2),
    start=st.none() | st.integers(0, 40),
    role=st.none() | _any,
)
_case = cases(
    _any,
    _any,
    intents(_any.filter(lambda s: s != ""), _any),
    _entity,
    st.text(alphabet="0123456789abcdef", min_size=0, max_size=12),
    max_intents=3,
    max_entity_order=2,
    max_tags=3,
    raw_checks=st.lists(_check, max_size=2),
    origin=st.none() | _any,
)
_suite = st.builds(Suite, name=st.just("s"), cases=st.lists(_case, min_size=CHUNK + 1, max_size=9))

EDITS = [
    lambda line: line + "  # a comment",
    lambda line: line.replace(", ", ","),
    lambda line: line.replace(": ", ":  ", 1),
    lambda line: line.replace('"', "'"),
    lambda line: line.replace("[", "[ ").replace("]", " ]"),
    lambda line: line.rstrip() + " ",
    lambda line: line.replace("  ", "\t", 1),
    lambda line: line.replace("intents:", "intent:"),
    lambda line: line.replace("id:", "extra: {a: 1}\n    id:"),
    lambda line: line + "\n",
    lambda line: line.replace("tags:", "tags: yes\n    tags:"),
    lambda line: line.replace("utterance:", "utterance: |\n      folded\n    x:"),
    lambda line: line.replace("- {", "- {json_value: 3, ", 1),
    lambda line: line.replace('"', '"\\ud83d\\ude00', 1),
    lambda line: line.replace("start: ", "start: -", 1),
]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(suite=_suite, seed=st.integers(0, 2**32 - 1))
def test_the_fast_path_reads_what_yaml_reads(suite: Suite, seed: int) -> None:
    text = dump_suite(suite)
    fast, slow = load_both(text)
    assert fast == slow
    # ... and the same after hand edits: equal suites, or the same error
    rng = random.Random(seed)
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(3, len(lines) - 1)
        lines[i] = rng.choice(EDITS)(lines[i])
    fast, slow = load_both("\n".join(lines))
    assert fast == slow


def test_the_writers_layout_is_read_by_the_fast_path() -> None:
    """The fast path is taken (not just correct by falling back) for what the writer writes."""
    cases = [
        TestCase(
            f"case {i}: move {i} dollars",
            [ExpectedIntent("transfer"), ExpectedIntent("pay", IntentKind.FAQ, "child")],
            parent_intents=["banking", "payments"],
            entities=[
                ExpectedEntity("amount", f"{i} USD", start=5, end=9),
                ExpectedEntity("payee", "Leo.*", ValueKind.REGEX, alternatives=["Leo", "L, eo"]),
                ExpectedEntity("long", "x" * 100, role="r"),
            ],
            entity_order=["amount", "payee"],
            tags=["smoke", "t 1", "Ünï"],
            id=f"{i:012d}",
        )
        for i in range(10)
    ]
    text = dump_suite(Suite("s", cases=cases))
    with counting() as counts:
        fast, slow = load_both(text)
    assert counts == [4, 0]  # every chunk of 3 (and the last of 1) read by the fast path
    assert fast == slow


def test_an_error_in_a_chunk_is_the_yaml_readers_error() -> None:
    text = dump_suite(
        Suite("s", cases=[TestCase(f"u{i}", [ExpectedIntent("a")]) for i in range(8)])
    )
    broken = text.replace("    intents: [a]", "    intents: [a]\n    colour: red", 1)
    fast, slow = load_both(broken)
    assert fast == slow and fast[0] == "error" and "unknown key 'colour'" in str(fast[1])


@pytest.mark.parametrize(
    "line",
    [
        '    utterance: "a\\/b"',  # not every YAML reader's escape
        '    utterance: "\\ud83d\\ude00"',  # JSON joins the pair, YAML keeps two
        "    utterance: 0.5",  # a float to YAML
        "    utterance: on",  # a bool to YAML 1.1
        "    tags: [a,b]",
        "    tags: [a, ]",
    ],
)
def test_what_json_and_yaml_might_read_apart_is_left_to_yaml(line: str) -> None:
    text = dump_suite(Suite("s", cases=[TestCase(f"u{i}", tags=["t"]) for i in range(8)]))
    key = line.split(":")[0]
    lines = text.split("\n")
    at = next(i for i, text_line in enumerate(lines) if text_line.startswith(key + ":"))
    lines[at] = line
    edited = "\n".join(lines)
    with counting() as counts:
        fast, slow = load_both(edited)
    assert fast == slow
    assert counts[1] >= 1  # the chunk holding the line was handed to YAML


def test_origin_and_raw_checks_are_read_by_the_fast_path() -> None:
    """``origin`` and ``raw`` were once read by the fast path and then dropped."""
    cases = [
        TestCase(
            f"u{i}",
            [ExpectedIntent("a")],
            raw_checks=["$.intent.name == a", "$.text"] if i % 2 else [],
            origin=f"{i:012d}" if i % 3 else None,
        )
        for i in range(8)
    ]
    text = dump_suite(Suite("s", cases=cases))
    with counting() as counts:
        fast, slow = load_both(text)
    assert counts == [3, 0]
    assert fast == slow
    suite = fast[0]
    assert isinstance(suite, Suite)
    assert suite.cases[1].raw_checks == ["$.intent.name == a", "$.text"]
    assert suite.cases[1].origin == "000000000001" and suite.cases[3].origin is None


def test_a_raw_check_that_does_not_compile_is_the_yaml_readers_error() -> None:
    cases = [TestCase(f"u{i}", raw_checks=["$.text"]) for i in range(8)]
    text = dump_suite(Suite("s", cases=cases)).replace("$.text", "$[", 1)
    fast, slow = load_both(text)
    assert fast == slow and fast[0] == "error" and "does not parse" in str(fast[1])


@contextmanager
def layout_counts() -> Iterator[list[int]]:
    """How many chunks the one-match-a-case reader took ([0]) and left to the line reader ([1])."""
    original = native_fast.FastReader._layout_cases
    counts = [0, 0]

    def counted(self: native_fast.FastReader, *args: object) -> list[TestCase] | None:
        found = original(self, *args)  # type: ignore[arg-type]
        counts[0 if found is not None else 1] += 1
        return found

    native_fast.FastReader._layout_cases = counted  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        native_fast.FastReader._layout_cases = original  # type: ignore[method-assign]


def _every_key(i: int) -> TestCase:
    return TestCase(
        f"case {i}: move {i} dollars" if i % 2 else f"plain {i}",
        [ExpectedIntent("transfer"), ExpectedIntent("pay")] if i % 3 else [],
        traits=["polite"] if i % 4 == 0 else [],
        parent_intents=["banking"] if i % 2 else [],
        entities=[
            ExpectedEntity("amount", f"{i} USD", start=5, end=9),
            ExpectedEntity("payee", "Leo.*", ValueKind.REGEX, alternatives=["Leo", "L, eo"]),
        ]
        if i % 2
        else [],
        entity_order=["amount", "payee"] if i % 2 else [],
        tags=["smoke", "t 1", "Ünï"],
        id=f"{i:012d}" if i % 5 else "",
        origin=f"o{i}" if i % 3 == 0 else None,
    )


def test_the_writers_one_line_layout_is_read_one_match_a_case() -> None:
    text = dump_suite(Suite("s", cases=[_every_key(i) for i in range(10)]))
    with layout_counts() as layout, counting() as counts:
        fast, slow = load_both(text)
    assert layout == [4, 0] and counts == [4, 0]
    assert fast == slow


def test_values_read_once_are_still_separate_objects() -> None:
    text = dump_suite(Suite("s", cases=[_every_key(1), _every_key(5)]))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.suite.yaml"
        path.write_text(text, encoding="utf-8")
        one, two = native.load_suite(path, use_cache=False, chunk_size=1).cases
    assert one.tags == two.tags and one.tags is not two.tags
    assert one.entities[1] == two.entities[1] and one.entities[1] is not two.entities[1]
    one.entities[1].alternatives.append("x")
    one.intents[0].name = "changed"
    assert two.entities[1].alternatives == ["Leo", "L, eo"] and two.intents[0].name == "transfer"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (  # keys in another order
            '  - id: "000000000001"\n    utterance: "case 1: move 1 dollars"\n',
            '  - utterance: "case 1: move 1 dollars"\n    id: "000000000001"\n',
        ),
        ('  - id: "000000000003"\n    utterance', "  - utterance"),  # no id
        ("    intents: [transfer, pay]", "    intents:\n      - transfer\n      - pay"),
        ("    tags: [smoke", '    raw:\n      - "$.text"\n    tags: [smoke'),
        ("      - {name: amount", "      - name: amount\n        start: 5\n      - {name: amount"),
        ("    tags: [smoke, t 1, Ünï]", "    tags: smoke"),  # one text, not a list
    ],
)
def test_other_layouts_are_left_to_the_line_reader(old: str, new: str) -> None:
    text = dump_suite(Suite("s", cases=[_every_key(i) for i in range(10)]))
    assert old in text
    edited = text.replace(old, new, 1)
    with layout_counts() as layout, counting() as counts:
        fast, slow = load_both(edited)
    assert layout[1] >= 1 and counts[1] == 0  # one chunk read line by line, none by YAML
    assert fast == slow


def test_a_last_case_without_a_line_break_is_read() -> None:
    text = dump_suite(Suite("s", cases=[_every_key(i) for i in range(10)])).rstrip("\n")
    with layout_counts() as layout:
        fast, slow = load_both(text)
    assert layout == [4, 0]
    assert fast == slow


_typed_words = st.sampled_from(
    ["1", "0x1f", "0o7", "1_000", "1:20", "1.5e3", ".inf", "-.5", "+1", "2024-01-01", "on",
     "No", "NULL", "~", "<<", "=", "yes ", "1a", "12ab34cd56ef", "007", "1e3", "0b101"]
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=1, max_size=12) | _typed_words)
def test_the_plain_word_check_types_words_as_pyyaml_does(word: str) -> None:
    from nlu_tui.formats.native_writer import _reads_as_text

    assert native_fast._untyped(word) == _reads_as_text(word)


def test_a_chunk_with_a_character_the_writer_escapes_is_left_to_yaml() -> None:
    """The writer quotes words holding a non-printable character; the fast path checks for
    those once a chunk (``_UNSAFE``), not once a word."""
    from nlu_tui.formats.native_writer import _NOT_PRINTABLE

    escaped = "".join(_NOT_PRINTABLE.findall("".join(map(chr, range(0x110000)))))
    assert escaped and native_fast._UNSAFE.sub("", escaped) == ""


def test_a_flow_line_that_is_not_tokens_is_refused_at_once() -> None:
    """An unclosed quote after a run of letters once made the token pattern try every way to
    split the letters into words (2 s for 22 letters, doubling with each one more), and a long
    flow mapping without a pair was searched for one from every position (quadratic)."""
    import time

    line = "[" + "a" * 26 + '"'
    start = time.process_time()
    with pytest.raises(native_fast.NotCanonical):
        native_fast.FastReader().value(line)
    assert time.process_time() - start < 1.0  # was about 40 s
    # a mapping of plain words with no pair in it: each position once searched to the end
    start = time.process_time()
    with pytest.raises(native_fast.NotCanonical):
        native_fast.FastReader().value("{" + "a" * 40_000 + "}")
    assert time.process_time() - start < 1.0  # was about 10 s
    text = dump_suite(Suite("s", cases=[TestCase(f"u{i}", tags=["t"]) for i in range(8)]))
    fast, slow = load_both(text.replace("    tags: [t]", f"    tags: {line}", 1))
    assert fast == slow and fast[0] == "error"
