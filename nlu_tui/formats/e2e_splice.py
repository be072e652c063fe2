"""Saving one edited E2E test case without reformatting its file: only what changed is rewritten.

Test files are written by hand, with comments; the step editor changes one test case at a
time. So a save starts from the file's text and replaces only the parts of that test case
whose content changed: its name (the scalar only), its ``fixtures:`` entry, and the steps that
were added or changed (an unchanged step keeps its own text, also when moved; the comment and
blank lines between steps stay where they are). Every other byte of the file stays as it was.

A step's span runs from the line of its ``-`` to the end of the line holding its last content
(a comment at the end of that line goes with it); the spans are found as for suite files
(:mod:`nlu_tui.formats.native_splice`). A new or changed step is written in PyYAML's layout at
the column of the file's steps. The result is parsed back and compared with the test case being
saved; when it does not read back the same, or the file's shape does not allow a splice
(aliases, flow collections, unusual line breaks), the whole file is rewritten from the parsed
test cases and a note says that comments and layout were not kept.

The write is atomic and keeps ``<file>.bak``, as suite saves do; a file changed on disk since
it was loaded is never overwritten (:class:`~nlu_tui.errors.ConflictError`).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.conversation_model import E2EFile, E2ETestCase
from nlu_tui.errors import ConflictError, InputError
from nlu_tui.fileio import atomic_write_bytes
from nlu_tui.formats import e2e_cases, yaml_loader
from nlu_tui.formats.native_splice import (
    _ODD_BREAKS,
    NoSplice,
    _content_end,
    _has_alias,
    _item_spans,
    _line_end,
    apply_edits,
)
from nlu_tui.model import digest_bytes

BOM = b"\xef\xbb\xbf"


@dataclass
class SaveResult:
    """What a save did: the file's new digest (to save again) and notes for the user."""

    digest: str
    notes: list[str] = field(default_factory=list)


def save_test_case(path: Path, loaded_digest: str, index: int, edited: E2ETestCase) -> SaveResult:
    """Replace test case number ``index`` of the file ``path`` with ``edited``.

    ``loaded_digest`` is the digest of the file as the editor read it: a file changed since
    is not written (:class:`ConflictError`). Unreadable files are an :class:`InputError`.
    """
    try:
        current = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=path) from None
    if digest_bytes(current) != loaded_digest:
        raise ConflictError(
            f"{path}: the file changed on disk since it was opened; nothing was written "
            "(close the editor and open the test case again)"
        )
    bom = current.startswith(BOM)
    try:
        text = current.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path=path) from None
    old = e2e_cases.parse_text(text, path)
    if not 0 <= index < len(old.test_cases):
        raise ConflictError(f"{path}: the test case is no longer in the file; nothing was written")
    new = replace(old, test_cases=list(old.test_cases))
    new.test_cases[index] = edited
    notes: list[str] = []
    try:
        out = splice_case(text, path, index, edited)
        if shape(e2e_cases.parse_text(out, path)) != shape(new):
            raise NoSplice("the kept layout would not read back the same")
    except NoSplice as exc:
        notes.append(f"the whole file was rewritten (comments and layout not kept): {exc}")
        out = e2e_cases.dumps(new)
    except InputError as exc:  # a splice that does not parse: never written as such
        notes.append(f"the whole file was rewritten (comments and layout not kept): {exc}")
        out = e2e_cases.dumps(new)
    data = (BOM if bom else b"") + out.encode("utf-8")
    atomic_write_bytes(path, data, backup=True, through_links=True)
    return SaveResult(digest_bytes(data), notes)


def shape(data: E2EFile) -> Any:
    """What a file means, without lines or digests: two files of the same shape run the same."""

    def steps(case: E2ETestCase) -> list[Any]:
        return [
            (
                s.kind,
                s.text,
                s.slot,
                s.value,
                s.has_value,
                s.metadata_name,
                s.commands,
                s.extra,
                None if s.assertions is None else [x.written for x in s.assertions],
                s.assertion_order_enabled,
            )
            for s in case.steps
        ]

    return (
        [(c.name, c.fixture_names, c.metadata_name, steps(c), c.extra) for c in data.test_cases],
        {k: f.slots for k, f in data.fixtures.items()},
        {k: m.values for k, m in data.metadata.items()},
        data.stub_custom_actions,
    )


def splice_case(text: str, path: Path, index: int, edited: E2ETestCase) -> str:
    """``text`` with test case ``index`` changed to ``edited``; :class:`NoSplice` says why not."""
    text, newline, root = _opened(text, path)
    if "*" in text and _has_alias(root):
        raise NoSplice("the file uses YAML aliases")
    cases = next((v for k, v in root.value if k.value == "test_cases"), None)
    if not isinstance(cases, yaml.SequenceNode) or cases.flow_style:
        raise NoSplice("'test_cases:' is not a block list")
    node = cases.value[index]
    if not isinstance(node, yaml.MappingNode) or node.flow_style:
        raise NoSplice("the test case is not a block mapping")
    old = e2e_cases.parse_text(text, path).test_cases[index]
    entries = {str(k.value): (k, v) for k, v in node.value}
    edits: list[tuple[int, int, str]] = []
    if edited.name != old.name:
        _key, value = entries["test_case"]
        if not isinstance(value, yaml.ScalarNode) or value.style in ("|", ">"):
            raise NoSplice("the test case's name is not a one-line scalar")
        edits.append((value.start_mark.index, value.end_mark.index, _scalar(edited.name)))
    if edited.fixture_names != old.fixture_names:
        edits.append(_fixtures_edit(text, entries, edited.fixture_names, newline))
    old_items = e2e_cases.case_to_data(old)["steps"]
    new_items = e2e_cases.case_to_data(edited)["steps"]
    if old_items != new_items:
        if not new_items:
            raise NoSplice("the test case has no steps left")
        steps = entries.get("steps", (None, None))[1]
        if not isinstance(steps, yaml.SequenceNode) or steps.flow_style or not steps.value:
            raise NoSplice("'steps:' is not a block list")
        if len(steps.value) != len(old_items):
            raise NoSplice("the steps do not line up with the file's list items")
        indentless = _slot_lists_indentless(cases)
        edits.append(_steps_edit(text, steps, old_items, new_items, newline, indentless))
    edits.sort()
    return apply_edits(text, edits)


def _opened(text: str, path: Path) -> tuple[str, str, yaml.MappingNode]:
    """The file's text ending in a line break, its line break, and its top-level mapping;
    :class:`NoSplice` when its layout cannot be kept (odd line breaks, a flow top level)."""
    if _ODD_BREAKS.search(text):
        raise NoSplice("the file uses line breaks other than \\n and \\r\\n")
    newline = "\r\n" if "\r\n" in text else "\n"
    if text and not text.endswith("\n"):
        text += newline
    root = yaml_loader.compose(text, path, prefix="invalid YAML")
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        raise NoSplice("the file's top level is not a block mapping")
    return text, newline, root


def _scalar(value: str) -> str:
    """``value`` as a one-line YAML scalar (quoted only when it must be)."""
    dumped = yaml.safe_dump(value, allow_unicode=True, width=1 << 30)
    return dumped.removesuffix("\n").removesuffix("\n...").strip()


def _line_start(text: str, index: int) -> int:
    start = text.rfind("\n", 0, index) + 1
    if text[start:index].strip():
        raise NoSplice("a key of the test case does not start its line")
    return start


def _fixtures_edit(
    text: str, entries: dict[str, tuple[yaml.Node, yaml.Node]], names: list[str], newline: str
) -> tuple[int, int, str]:
    """Replace, remove or add the test case's ``fixtures:`` entry (block style)."""
    if "fixtures" in entries:
        key, value = entries["fixtures"]
        start = _line_start(text, key.start_mark.index)
        end = _line_end(text, max(_content_end(value), key.end_mark.index))
    else:
        if "steps" not in entries:
            raise NoSplice("the test case has no 'steps:' to put 'fixtures:' before")
        key = entries["steps"][0]
        start = end = _line_start(text, key.start_mark.index)
    pad = " " * key.start_mark.column
    lines = [f"{pad}fixtures:"] + [f"{pad}  - {_scalar(n)}" for n in names] if names else []
    return start, end, "".join(line + newline for line in lines)


def _steps_edit(
    text: str,
    node: yaml.SequenceNode,
    old: list[dict[str, Any]],
    new: list[dict[str, Any]],
    newline: str,
    indentless: bool,
) -> tuple[int, int, str]:
    """The region from the first step's ``-`` to the end of the last step, rebuilt: unchanged
    steps keep their text (also when moved), the others are written anew (slot lists
    ``indentless`` or indented, as the file has them)."""
    indent = node.start_mark.column
    items = _item_spans(text, node, indent)
    old_keys = [_key(item) for item in old]
    new_keys = [_key(item) for item in new]
    by_key: dict[str, list[int]] = {}
    for position, key in enumerate(old_keys):
        by_key.setdefault(key, []).append(position)
    used: set[int] = set()

    def own(position: int) -> str:
        used.add(position)
        return text[items[position].start : items[position].end]

    def written(position: int) -> str:
        for candidate in by_key.get(new_keys[position], []):
            if candidate not in used:
                return own(candidate)
        dumper = _IndentlessDumper if indentless else _IndentedDumper
        dumped = yaml.dump(
            [new[position]], Dumper=dumper, sort_keys=False, allow_unicode=True, width=100
        ).splitlines()
        return "".join(" " * indent + line + newline for line in dumped)

    def gap(position: int) -> str:
        return text[items[position - 1].end : items[position].start] if position else ""

    parts: list[str] = []
    matcher = difflib.SequenceMatcher(None, old_keys, new_keys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                parts.append(gap(i1 + k))
                parts.append(own(i1 + k))
            continue
        parts.extend(gap(i) for i in range(i1, i2) if i)  # a removed step's own lines go
        parts.extend(written(j) for j in range(j1, j2))
    return items[0].start, items[-1].end, "".join(parts)


class _IndentedDumper(yaml.SafeDumper):
    """A slot list indented under its key (``- slot_was_set:`` then ``    - cuisine: x``), as
    Rasa's documentation writes it."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        return super().increase_indent(flow, False)


class _IndentlessDumper(yaml.SafeDumper):
    """PyYAML's own layout: a slot list at the column of its key."""


SLOT_KEYS = ("slot_was_set", "slot_was_not_set")


def _slot_lists_indentless(cases: yaml.SequenceNode) -> bool:
    """Whether the file's first block slot list starts at its key's column (else, and when
    there is none, new ones are indented under their key)."""
    for case in cases.value:
        if not isinstance(case, yaml.MappingNode):
            continue
        steps = next((v for k, v in case.value if k.value == "steps"), None)
        for item in steps.value if isinstance(steps, yaml.SequenceNode) else ():
            for key, value in item.value if isinstance(item, yaml.MappingNode) else ():
                if key.value not in SLOT_KEYS or not isinstance(value, yaml.SequenceNode):
                    continue
                if not value.flow_style and value.value:
                    return bool(value.start_mark.column == key.start_mark.column)
    return False


def _key(item: dict[str, Any]) -> str:
    return json.dumps(item, sort_keys=True, default=str, ensure_ascii=False)


def append_test_case(path: Path, case: dict[str, Any]) -> SaveResult:
    """Add one test case (as data, Rasa's E2E format) at the end of the test file ``path``, in
    the file's layout: its column, its slot-list indentation; every other byte stays. A file
    that does not exist is created with the test case alone. The result is read back: the old
    test cases unchanged and the new one as given, else the whole file is rewritten from the
    parsed test cases (and a note says so); a test case that does not read is refused before
    anything is written."""
    alone = e2e_cases.parse_text(
        yaml.safe_dump({"test_cases": [case]}, sort_keys=False, allow_unicode=True), path
    )
    wanted = e2e_cases.case_to_data(alone.test_cases[0])
    if not path.exists():
        out = e2e_cases.dumps(alone)
        data = out.encode("utf-8")
        atomic_write_bytes(path, data)
        return SaveResult(digest_bytes(data))
    try:
        current = path.read_bytes()
        text = current.decode("utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=path) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path=path) from None
    old = e2e_cases.parse_text(text, path)
    notes: list[str] = []
    new = replace(old, test_cases=[*old.test_cases, alone.test_cases[0]])
    try:
        out = _appended(text, path, case)
        back = e2e_cases.parse_text(out, path)
        if (
            shape(replace(back, test_cases=back.test_cases[:-1])) != shape(old)
            or len(back.test_cases) != len(old.test_cases) + 1
            or e2e_cases.case_to_data(back.test_cases[-1]) != wanted
        ):
            raise NoSplice("the kept layout would not read back the same")
    except (NoSplice, InputError) as exc:
        notes.append(f"the whole file was rewritten (comments and layout not kept): {exc}")
        out = e2e_cases.dumps(new)
    data = (BOM if current.startswith(BOM) else b"") + out.encode("utf-8")
    atomic_write_bytes(path, data, backup=True, through_links=True)
    return SaveResult(digest_bytes(data), notes)


def _appended(text: str, path: Path, case: dict[str, Any]) -> str:
    text, newline, root = _opened(text, path)
    cases = next((v for k, v in root.value if k.value == "test_cases"), None)
    if not isinstance(cases, yaml.SequenceNode) or cases.flow_style or not cases.value:
        raise NoSplice("'test_cases:' is not a block list with a test case")
    indent = cases.start_mark.column
    end = _line_end(text, _content_end(cases.value[-1]))
    dumper = _IndentlessDumper if _slot_lists_indentless(cases) else _IndentedDumper
    dumped = yaml.dump(
        [case], Dumper=dumper, sort_keys=False, allow_unicode=True, width=100
    ).splitlines()
    added = "".join(" " * indent + line + newline for line in dumped)
    return text[:end] + added + text[end:]
