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
