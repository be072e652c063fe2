"""Fast suite loading: the cheap resolver, the parsed-suite cache and progressive chunks.

Every path must give exactly what a plain whole-file parse gives: equal suites, the same ids and
line numbers, and the same error (message, line, field) for a broken file.
"""

from __future__ import annotations

import datetime
import itertools
import os
import pickle
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_formats_native import TRICKY, suite_st

from nlu_tui.errors import InputError
from nlu_tui.formats import native_reader, suite_cache
from nlu_tui.formats.native import (
    SuiteChunk,
    dump_suite,
    iter_suite_chunks,
    load_suite,
    parse_suite,
)
from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase


def same(a: Suite, b: Suite) -> None:
    """Equal, and equal in what equality skips: ids and source lines of every case."""
    assert a == b
    assert a.name == b.name
    assert [(c.id, c.line) for c in a.cases] == [(c.id, c.line) for c in b.cases]


def big_suite(n: int) -> Suite:
    cases = [
        TestCase(
            f"utterance {i}",
            [ExpectedIntent(f"intent_{i % 7}")],
            entities=[ExpectedEntity("amount", f"{i} USD")] if i % 2 else [],
            entity_order=["amount"] if i % 2 else [],
            tags=["smoke"],
            id=f"{i:012d}",
        )
        for i in range(n)
    ]
    return Suite("big", cases=cases, training={"synonym": {"USD": ["dollars"]}})


def entries() -> list[Path]:
    return sorted(suite_cache.cache_dir().glob("*.pickle"))


# --- the resolver -------------------------------------------------------------------------


scalar_st = st.sampled_from(TRICKY) | st.text(max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(scalar_st, min_size=1, max_size=6))
def test_suite_loader_resolves_plain_scalars_like_the_safe_loader(values: list[str]) -> None:
    text = "".join(f"- {yaml.safe_dump(v, default_style=None).split(chr(10))[0]}\n" for v in values)
    text += "".join(f"- {v}\n" for v in values if v and "\n" not in v and v[0] not in "#|>")
    try:
        expected = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return
    assert shape(native_reader.SuiteLoader(text).get_single_node()) == shape(expected)


def shape(node: yaml.Node) -> object:
    """A node tree as plain tuples of (tag, value), for comparing two loaders' output."""
    if isinstance(node, yaml.ScalarNode):
        return (node.tag, node.value)
    if isinstance(node, yaml.MappingNode):
        return (node.tag, [(shape(k), shape(v)) for k, v in node.value])
    return (node.tag, [shape(item) for item in node.value])


def test_yaml_typed_free_form_data_keeps_its_types(tmp_path: Path) -> None:
    path = tmp_path / "t.suite.yaml"
    path.write_text(
        "name: t\ncases:\n  - utterance: a\n    extra: {on: yes, n: 200, d: 2018-07-06, x: ~}\n",
        encoding="utf-8",
    )
    extra = load_suite(path).cases[0].extra
    assert extra == {"True": True, "n": 200, "d": datetime.date(2018, 7, 6), "x": None}


# --- the cache -----------------------------------------------------------------------------


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(suite_st)
def test_cached_load_is_identical_to_a_fresh_parse(tmp_path: Path, suite: Suite) -> None:
    path = tmp_path / "h.suite.yaml"
    data = dump_suite(suite).encode("utf-8")
    path.write_bytes(data)
    fresh = parse_suite(data, path)
    first = load_suite(path, use_cache=True)  # a miss: parses and stores
    assert suite_cache.entry_path(first.loaded_digest or "").exists()
    second = load_suite(path, use_cache=True)  # a hit
    same(first, fresh)
    same(second, fresh)
    assert second.path == path and second.loaded_digest == first.loaded_digest


def test_cache_is_keyed_by_content_so_an_edit_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "e.suite.yaml"
    path.write_text(dump_suite(big_suite(3)), encoding="utf-8")
    load_suite(path, use_cache=True)
    text = path.read_text(encoding="utf-8").replace("utterance 1", "edited on disk")
    path.write_text(text, encoding="utf-8")
    again = load_suite(path, use_cache=True)
    assert again.cases[1].utterance == "edited on disk"
    same(again, parse_suite(path.read_bytes(), path))
    assert len(entries()) == 2


def test_corrupt_or_stale_entries_are_ignored_and_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "c.suite.yaml"
    path.write_text(dump_suite(big_suite(4)), encoding="utf-8")
    fresh = load_suite(path, use_cache=True)
    entry = suite_cache.entry_path(fresh.loaded_digest or "")
    for junk in (
        b"",
        entry.read_bytes()[:-20],  # torn
        b"nlu-tui suite cache\nold-stamp\n" + pickle.dumps(("x", False, fresh)),
        suite_cache._MAGIC + suite_cache.stamp() + pickle.dumps(os.system),  # not allowed
    ):
        entry.write_bytes(junk)
        same(load_suite(path, use_cache=True), fresh)
        assert entry.read_bytes().startswith(suite_cache._MAGIC + suite_cache.stamp())
        assert suite_cache.get(fresh.loaded_digest or "", path) is not None


def test_cache_keeps_only_the_newest_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(suite_cache, "MAX_ENTRIES", 3)
    for i in range(5):
        path = tmp_path / f"s{i}.suite.yaml"
        path.write_text(dump_suite(big_suite(i + 1)), encoding="utf-8")
        load_suite(path, use_cache=True)
        os.utime(entries()[0], (1_000_000 + i, 1_000_000 + i))  # deterministic ages
    assert len(entries()) == 3


def test_only_big_suites_are_cached_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "small.suite.yaml"
    path.write_text(dump_suite(big_suite(5)), encoding="utf-8")
    load_suite(path)
    assert entries() == []
    monkeypatch.setattr(suite_cache, "MIN_BYTES", path.stat().st_size)
    load_suite(path)
    assert len(entries()) == 1


def test_a_name_taken_from_the_file_name_follows_the_file(tmp_path: Path) -> None:
    text = "cases:\n  - utterance: hi\n"
    a, b = tmp_path / "alpha.suite.yaml", tmp_path / "beta.suite.yaml"
    a.write_text(text, encoding="utf-8")
    b.write_text(text, encoding="utf-8")
    assert load_suite(a, use_cache=True).name == "alpha"
    assert load_suite(b, use_cache=True).name == "beta"  # same bytes, same entry
    assert len(entries()) == 1


def test_errors_are_not_cached(tmp_path: Path) -> None:
    path = tmp_path / "bad.suite.yaml"
    path.write_text("cases:\n  - utterance: a\n    intens: [b]\n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(InputError) as err:
            load_suite(path, use_cache=True)
        assert (err.value.line, err.value.field) == (3, "intens")
    assert entries() == []


# --- progressive loading --------------------------------------------------------------------


def chunks_of(path: Path, size: int) -> list[SuiteChunk]:
    return list(iter_suite_chunks(path, size, use_cache=False))


def check_chunks(path: Path, size: int) -> list[SuiteChunk]:
    got = chunks_of(path, size)
    final = got[-1].suite
    assert final is not None and all(c.suite is None for c in got[:-1])
    assert [case for chunk in got for case in chunk.cases] == final.cases
    assert [id(c) for chunk in got for c in chunk.cases] == [id(c) for c in final.cases]
    assert [c.loaded for c in got] == list(itertools.accumulate(len(c.cases) for c in got))
    assert got[-1].fraction == 1.0
    assert [c.fraction for c in got] == sorted(c.fraction for c in got)
    same(final, parse_suite(path.read_bytes(), path))
    assert final.path == path and final.loaded_digest is not None
    return got


def test_big_suite_arrives_in_chunks_equal_to_a_whole_parse(tmp_path: Path) -> None:
    path = tmp_path / "big.suite.yaml"
    path.write_text(dump_suite(big_suite(25)), encoding="utf-8")
    got = check_chunks(path, 10)
    assert [len(c.cases) for c in got] == [10, 10, 5]
    assert got[0].cases[0].line == 4 and got[1].cases[0].line > got[0].cases[-1].line
    seen: list[SuiteChunk] = []
    same(load_suite(path, on_progress=seen.append, chunk_size=10), got[-1].suite or Suite(""))
    assert len(seen) > 1


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(suite_st, st.integers(1, 3))
def test_chunked_load_matches_whole_parse_for_generated_suites(
    tmp_path: Path, suite: Suite, size: int
) -> None:
    path = tmp_path / "g.suite.yaml"
    path.write_text(dump_suite(suite), encoding="utf-8")
    check_chunks(path, size)


HAND_WRITTEN = [
    # items at column 0, comments, a trailer after the cases, generated ids
    "name: x\ncases:\n- utterance: a\n  # note\n- utterance: a\n\n- utterance: b\n"
    "# end\ntraining: {k: [1]}\n",
    # a quoted scalar running over an item-looking line (valid YAML, one case)
    'cases:\n  - utterance: "a\n  - b"\n  - utterance: c\n  - utterance: d\n',
    # 'cases:' inside a quoted description is not the key
    'description: "x\ncases:\n  - utterance: no"\ncases:\n  - utterance: a\n  - utterance: b\n',
    # anchors and aliases across cases
    "cases:\n  - utterance: a\n    tags: &t [x]\n  - utterance: b\n    tags: *t\n"
    "  - utterance: c\n",
    # a flow mapping spanning lines, and a dash line inside it
    "cases:\n  - {utterance: a,\n     tags: [x]}\n  - utterance: b\n  - utterance: c\n",
    # block scalars and a nested list item at the same column as nothing else
    "cases:\n  -\n    utterance: |\n      line one\n      - not an item\n  - utterance: b\n"
    "  - utterance: c\nextra: {z: 1}\n",
    # windows line ends
    "cases:\r\n  - utterance: a\r\n  - utterance: b\r\n  - utterance: c\r\n",
]


@pytest.mark.parametrize("text", HAND_WRITTEN)
def test_chunked_load_of_unusual_but_valid_files(tmp_path: Path, text: str) -> None:
    path = tmp_path / "u.suite.yaml"
    path.write_bytes(text.encode("utf-8"))
    check_chunks(path, 1)
    check_chunks(path, 2)


BROKEN = [
    "cases:\n  - utterance: a\n  - utterance: b\n    intens: [x]\n  - utterance: c\n"
    "  - utterance: [d\n",  # schema error first, syntax error later: the syntax error wins
    "cases:\n  - utterance: a\n  - utterance: b\n  - utterance: c\n    entities: [{name: e, kind: x}]\n",
    "cases:\n  - utterance: a\n  - utterance: b\n\tintents: [c]\n",
    "cases:\n  - utterance: a\n  - utterance: b\nkases: 1\n",
    "nlu_tui_suite: 2\ncases:\n  - utterance: a\n  - utterance: b\n  - utterance: c\n",
    "cases:\n  - utterance: a\n  - utterance: b\ncases: []\n",
    "cases:\n  - utterance: a\n  - 7\n  - utterance: c\n",
]


@pytest.mark.parametrize("text", BROKEN)
def test_chunked_load_reports_the_whole_parse_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "b.suite.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as whole:
        parse_suite(path.read_bytes(), path)
    for size in (1, 2):
        with pytest.raises(InputError) as chunked:
            chunks_of(path, size)
        assert str(chunked.value) == str(whole.value)
        assert (chunked.value.line, chunked.value.field) == (whole.value.line, whole.value.field)


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read suite"):
        load_suite(tmp_path / "nope.suite.yaml")


def test_workspace_loads_suites_in_chunks_for_the_ui(tmp_path: Path) -> None:
    from nlu_tui.workspace import Workspace

    workspace = Workspace(tmp_path)
    path = tmp_path / "w.suite.yaml"
    path.write_text(dump_suite(big_suite(5)), encoding="utf-8")
    got = list(workspace.load_chunks(path, chunk_size=2))
    assert [len(c.cases) for c in got] == [2, 2, 1]
    final = got[-1].suite
    assert final is not None
    same(final, workspace.load(path))
    seen: list[SuiteChunk] = []
    same(workspace.load(path, on_progress=seen.append), final)
    assert [c.loaded for c in seen] == [5]


def test_peek_counts_a_big_suite_without_parsing_it(tmp_path: Path) -> None:
    """The suites panel counts a big uncached suite by scanning it, so opening it streams."""
    from nlu_tui.formats.native import dump_suite, load_suite, peek_suite
    from nlu_tui.model import ExpectedIntent, Suite, TestCase
    from nlu_tui.workspace import Workspace

    cases = [
        TestCase(f"utterance number {i}", intents=[ExpectedIntent(f"intent_{i % 7}")])
        for i in range(5000)
    ]
    path = tmp_path / "big.suite.yaml"
    path.write_text(dump_suite(Suite(name="Big one", cases=cases)), encoding="utf-8")
    assert peek_suite(path) == ("Big one", 5000)
    info = Workspace(tmp_path).info(path)
    assert (info.name, info.case_count, info.partial, info.intents) == ("Big one", 5000, True, [])
    load_suite(path)  # fills the cache: from then on the full summary is cheap
    info = Workspace(tmp_path).info(path)
    assert (info.case_count, info.partial, len(info.intents)) == (5000, False, 7)


def test_an_entry_is_plain_data_in_the_models_field_order() -> None:
    """Entries store each case as a row of :data:`suite_cache.CASE_FIELDS`: a field added to the
    model must be added there too (and the stamp, which hashes the model's source, changes)."""
    import dataclasses

    assert tuple(f.name for f in dataclasses.fields(TestCase)) == suite_cache.CASE_FIELDS
    assert tuple(f.name for f in dataclasses.fields(ExpectedEntity)) == suite_cache.ENTITY_FIELDS


def test_cached_load_keeps_every_field(tmp_path: Path) -> None:
    from nlu_tui.model import IntentKind, ValueKind

    case = TestCase(
        "move it",
        [ExpectedIntent("pay", IntentKind.FAQ, "child"), ExpectedIntent("other")],
        traits=["polite"],
        parent_intents=["banking"],
        entities=[
            ExpectedEntity(
                "amount",
                "3 USD",
                ValueKind.REGEX,
                ["three"],
                "3",
                5,
                6,
                1,
                "role",
                "group",
                {"a": [1, datetime.date(2024, 1, 2)]},
            )
        ],
        entity_order=["amount"],
        tags=["smoke"],
        id="abc",
        extra={"when": datetime.datetime(2024, 1, 2, 3, 4, 5), "n": [1, None, 2.5]},
        raw_checks=["$.text"],
        origin="def",
    )
    suite = Suite("every", "described", [case], {"synonym": {"USD": ["dollars"]}}, {"x": 1})
    path = tmp_path / "every.suite.yaml"
    path.write_text(dump_suite(suite), encoding="utf-8")
    fresh = load_suite(path, use_cache=True)
    assert entries() and fresh == suite
    hit = suite_cache.get(fresh.loaded_digest or "", path)
    assert hit is not None
    same(hit, fresh)
    assert hit.cases[0].raw_checks == ["$.text"] and hit.cases[0].origin == "def"


def test_an_entry_holding_objects_is_not_loaded(tmp_path: Path) -> None:
    """Only plain data and dates are read back: not the model's classes (the old entries), not
    anything that could run code when built."""
    path = tmp_path / "p.suite.yaml"
    path.write_text(dump_suite(big_suite(4)), encoding="utf-8")
    fresh = load_suite(path, use_cache=True)
    digest = fresh.loaded_digest or ""
    entry = suite_cache.entry_path(digest)
    head = suite_cache._MAGIC + suite_cache.stamp()
    for planted in (
        pickle.dumps((digest, False, fresh)),  # a whole Suite object, as entries once were
        pickle.dumps((digest, False, ("n", "", {}, {}, [(os.getcwd,)]))),
        pickle.dumps((digest, False, ("n", "", {}, {}, [("u",) * 11]))),  # a row too short
    ):
        entry.write_bytes(head + planted)
        assert suite_cache.get(digest, path) is None
        same(load_suite(path, use_cache=True), fresh)
