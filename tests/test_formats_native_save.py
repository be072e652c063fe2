"""Saving a hand-edited suite file keeps its comments and the layout of untouched cases.

Issue 10, item 17: one edit in the workbench used to rewrite the whole file from the model,
dropping every comment (and the ``.bak`` lost them on the second save).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_formats_native import case_st, suite_st, text_st

from nlu_tui.errors import ConflictError
from nlu_tui.formats.native import dump_suite, load_suite, save_suite
from nlu_tui.model import ExpectedIntent, Suite, TestCase

HAND_WRITTEN = """\
# Banking regression suite, kept by hand. Do not reformat.
nlu_tui_suite: 1
name: Banking   # the display name

cases:
  # --- balance -------------------------------------------------
  - id: b1
    utterance: what's my balance     # the classic
    intents: [check_balance]

  - id: b2
    utterance: how much money do I have
    intents:
      - check_balance        # block style on purpose
    tags: [smoke]

  # --- transfers -----------------------------------------------
  - {id: t1, utterance: send 20 to bob, intents: [transfer]}
  - id: t2
    utterance: |
      move money
      to savings
    # a comment inside a case
    intents: [transfer]
  - utterance: pay the gas bill   # no id: one is derived
    intents: [pay_bill]
# the end of the cases
extra:
  owner: qa-team   # who to ask
"""


def write(tmp_path: Path, text: str, name: str = "s.suite.yaml") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def case_lines(first: int, last: int) -> set[int]:
    """Line indexes (0-based) ``first``..``last`` of HAND_WRITTEN."""
    return set(range(first, last + 1))


def by_id(suite: Suite, case_id: str) -> int:
    return next(n for n, c in enumerate(suite.cases) if c.id == case_id)


def test_editing_one_case_keeps_every_other_line_byte_identical(tmp_path: Path) -> None:
    path = write(tmp_path, HAND_WRITTEN)
    suite = load_suite(path)
    n = by_id(suite, "b2")
    suite.cases[n] = replace(suite.cases[n], tags=["smoke", "edited"])
    notes: list[str] = []
    save_suite(suite, notes=notes)
    assert notes == []
    before, after = HAND_WRITTEN.splitlines(keepends=True), lines(path)
    # b2 was lines 10..14; it is written anew there, everything else is untouched
    assert after[:10] == before[:10]
    assert after[-(len(before) - 15) :] == before[15:]
    assert "tags: [smoke, edited]" in "".join(after[10 : -(len(before) - 15)])
    assert load_suite(path) == suite
    text = path.read_text(encoding="utf-8")
    for comment in ("# Banking regression", "# the display name", "# --- balance", "# the end"):
        assert comment in text


def test_adding_a_case_appends_it_and_changes_nothing_else(tmp_path: Path) -> None:
    path = write(tmp_path, HAND_WRITTEN)
    suite = load_suite(path)
    suite.cases.append(TestCase("open an account", [ExpectedIntent("open_account")], id="n1"))
    save_suite(suite)
    text = path.read_text(encoding="utf-8")
    cut = HAND_WRITTEN.index("# the end of the cases")
    assert text.startswith(HAND_WRITTEN[:cut])
    assert text.endswith(HAND_WRITTEN[cut:])
    assert text[cut : -len(HAND_WRITTEN[cut:])] == (
        "  - id: n1\n    utterance: open an account\n    intents: [open_account]\n"
    )
    assert load_suite(path) == suite


def test_deleting_a_case_removes_only_its_own_lines(tmp_path: Path) -> None:
    path = write(tmp_path, HAND_WRITTEN)
    suite = load_suite(path)
    del suite.cases[by_id(suite, "t2")]
    save_suite(suite)
    t2 = HAND_WRITTEN.index("  - id: t2")
    t2_end = HAND_WRITTEN.index("  - utterance: pay the gas bill")
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN[:t2] + HAND_WRITTEN[t2_end:]
    assert load_suite(path) == suite


def test_reordered_cases_keep_their_own_text(tmp_path: Path) -> None:
    path = write(tmp_path, HAND_WRITTEN)
    suite = load_suite(path)
    suite.cases.reverse()
    save_suite(suite)
    text = path.read_text(encoding="utf-8")
    assert load_suite(path) == suite
    for piece in (
        "  - {id: t1, utterance: send 20 to bob, intents: [transfer]}\n",
        "    utterance: |\n      move money\n      to savings\n    # a comment inside a case\n",
        "    utterance: what's my balance     # the classic\n",
        "      - check_balance        # block style on purpose\n",
        "# --- balance ---",
        "# --- transfers ---",
        "  owner: qa-team   # who to ask\n",
    ):
        assert piece in text


def test_rename_keeps_the_comment_on_the_name_line(tmp_path: Path) -> None:
    path = write(tmp_path, HAND_WRITTEN)
    suite = load_suite(path)
    suite.name = "Banking v2"
    suite.description = "now with a description"
    save_suite(suite)
    text = path.read_text(encoding="utf-8")
    assert "name: Banking v2   # the display name\ndescription: now with a description\n" in text
    assert (
        text.replace(
            "name: Banking v2   # the display name\ndescription: now with a description\n",
            "name: Banking   # the display name\n",
        )
        == HAND_WRITTEN
    )


def test_bak_keeps_the_comments_on_the_second_save(tmp_path: Path) -> None:
    path = write(tmp_path, HAND_WRITTEN)
    suite = load_suite(path)
    suite.cases[0] = replace(suite.cases[0], tags=["one"])
    save_suite(suite)
    first = path.read_text(encoding="utf-8")
    suite.cases[0] = replace(suite.cases[0], tags=["two"])
    save_suite(suite)
    bak = (tmp_path / "s.suite.yaml.bak").read_text(encoding="utf-8")
    assert bak == first
    assert "# Banking regression suite" in bak and "# a comment inside a case" in bak


def test_changed_outside_the_app_is_still_refused(tmp_path: Path) -> None:
    path = write(tmp_path, HAND_WRITTEN)
    suite = load_suite(path)
    theirs = HAND_WRITTEN.replace("# the classic", "# their comment")
    path.write_text(theirs, encoding="utf-8")
    suite.cases[0] = replace(suite.cases[0], tags=["mine"])
    with pytest.raises(ConflictError, match="changed on disk"):
        save_suite(suite)
    assert path.read_text(encoding="utf-8") == theirs


def test_crlf_indentless_lists_and_a_bom_are_kept(tmp_path: Path) -> None:
    text = "\ufeff# crlf file\r\nname: x\r\ncases:\r\n- id: a\r\n  utterance: hi  # hi\r\n"
    path = tmp_path / "c.suite.yaml"
    path.write_bytes(text.encode("utf-8"))
    suite = load_suite(path)
    suite.cases.append(TestCase("bye", id="b"))
    save_suite(suite)
    data = path.read_bytes()
    assert data == (text + "- id: b\r\n  utterance: bye\r\n").encode("utf-8")
    assert load_suite(path) == suite


def test_a_flow_style_case_list_is_rewritten_alone(tmp_path: Path) -> None:
    path = write(tmp_path, "# flow style\nname: f  # n\ncases: [{id: a, utterance: hi}]  # c\n")
    suite = load_suite(path)
    suite.cases.append(TestCase("bye", id="b"))
    notes: list[str] = []
    save_suite(suite, notes=notes)
    assert load_suite(path) == suite and notes == []
    assert path.read_text(encoding="utf-8").startswith("# flow style\nname: f  # n\ncases:  # c\n")


def test_a_file_that_cannot_be_spliced_is_rewritten_and_says_so(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "# anchors\nname: f\ncases:\n  - id: a\n    utterance: hi\n    extra: &x {k: 1}\n"
        "  - id: b\n    utterance: yo\n    extra: *x\n",
    )
    suite = load_suite(path)
    suite.cases.append(TestCase("bye", id="c"))
    notes: list[str] = []
    save_suite(suite, notes=notes)
    assert load_suite(path) == suite
    assert len(notes) == 1 and "whole file was rewritten" in notes[0] and "aliases" in notes[0]
    # a file already in the writer's own layout loses nothing, so there is nothing to say
    plain = write(tmp_path, dump_suite(Suite("p", cases=[TestCase("a", id="a")])), "p.suite.yaml")
    suite = load_suite(plain)
    suite.cases = [TestCase("b", id="b")]
    notes.clear()
    save_suite(suite, notes=notes)
    assert notes == [] and load_suite(plain) == suite


OPS = st.lists(
    st.tuples(st.sampled_from(["edit", "add", "delete", "move"]), st.integers(0, 50)),
    max_size=6,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_any_edits_read_back_exactly_and_keep_comments_between_cases(
    tmp_path: Path, ops: list[tuple[str, int]]
) -> None:
    """Whatever the edits, the file reads back as the suite, and comment lines that lie
    between cases (not inside a changed one) survive."""
    path = write(tmp_path, HAND_WRITTEN, f"h{os.urandom(4).hex()}.suite.yaml")
    suite = load_suite(path)
    for n, (op, k) in enumerate(ops):
        cases = suite.cases
        if op == "add" or not cases:
            cases.insert(k % (len(cases) + 1), TestCase(f"new {n}", id=f"new{n}"))
        elif op == "edit":
            i = k % len(cases)
            cases[i] = replace(cases[i], tags=[*cases[i].tags, f"t{n}"])
        elif op == "delete":
            del cases[k % len(cases)]
        else:
            cases.insert(k % len(cases), cases.pop((k * 7) % len(cases)))
        save_suite(suite)
        assert load_suite(path) == suite
    text = path.read_text(encoding="utf-8")
    for comment in ("# Banking regression", "# --- balance", "# --- transfers", "# the end"):
        assert comment in text


def test_a_symlinked_suite_stays_a_link_and_its_target_is_saved(tmp_path: Path) -> None:
    """Issue 10, item 16: saving replaced the link with a plain file, cutting it off from the
    shared suite it pointed to."""
    from nlu_tui.workspace import Workspace

    shared = tmp_path / "shared"
    shared.mkdir()
    real = write(shared, HAND_WRITTEN, "bank.suite.yaml")
    ws = Workspace(tmp_path / "ws")
    ws.root.mkdir()
    link = ws.root / "bank.suite.yaml"
    link.symlink_to(Path("..") / "shared" / "bank.suite.yaml")
    assert ws.suite_paths() == [link]
    suite = ws.load(link)
    for tag in ("first", "second"):
        suite.cases[0] = replace(suite.cases[0], tags=[tag])
        ws.save(suite)
        assert link.is_symlink() and os.readlink(link) == str(Path("..") / "shared" / real.name)
        assert load_suite(real) == suite and load_suite(link) == suite
    assert "# the end of the cases" in real.read_text(encoding="utf-8")
    assert (shared / "bank.suite.yaml.bak").exists()
    assert sorted(p.name for p in ws.root.iterdir()) == ["bank.suite.yaml"]


def test_a_twin_without_an_id_gets_its_id_written_when_its_twin_goes(tmp_path: Path) -> None:
    """A case written without ``id:`` has an id derived from its utterance and how many
    cases before it share that utterance: deleting the first twin would change the second's
    id, so the second is written with its id, and only it."""
    text = (
        "cases:\n  - utterance: hi\n  - utterance: hi   # twin\n  # keep me\n  - utterance: bye\n"
    )
    path = write(tmp_path, text)
    suite = load_suite(path)
    del suite.cases[0]
    notes: list[str] = []
    save_suite(suite, notes=notes)
    assert notes == [] and load_suite(path) == suite
    assert path.read_text(encoding="utf-8") == (
        f"cases:\n  - id: {suite.cases[0].id}\n    utterance: hi\n  # keep me\n  - utterance: bye\n"
    )


def _commented(text: str) -> str:
    """The writer's text with a comment line before every case and after the list."""
    out: list[str] = []
    for n, line in enumerate(text.splitlines(keepends=True)):
        if line.startswith("  - id: "):
            out.append(f"  # comment {n}\n")
        out.append(line)
    return "".join(out) + "# the end\n"


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_random_suites_and_edits_read_back_exactly(tmp_path: Path, data: st.DataObject) -> None:
    original = data.draw(suite_st)
    ids = [c.id for c in original.cases]
    original.cases = [c for n, c in enumerate(original.cases) if c.id not in ids[:n]]
    text = _commented(dump_suite(original))
    path = write(tmp_path, text, f"r{os.urandom(4).hex()}.suite.yaml")
    suite = load_suite(path)
    for case in data.draw(st.lists(case_st, max_size=3)):
        if case.id not in {c.id for c in suite.cases}:
            suite.cases.insert(data.draw(st.integers(0, len(suite.cases))), case)
    if suite.cases and data.draw(st.booleans()):
        del suite.cases[data.draw(st.integers(0, len(suite.cases) - 1))]
    if data.draw(st.booleans()):
        suite.description = data.draw(text_st)
    if suite.cases and data.draw(st.booleans()):
        suite.cases.append(suite.cases.pop(0))
    save_suite(suite)
    assert load_suite(path) == suite
    assert "# the end\n" in path.read_text(encoding="utf-8")
