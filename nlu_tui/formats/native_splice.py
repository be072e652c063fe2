"""Saving a hand-edited suite file without reformatting it: only what changed is rewritten.

Testers write suite files by hand, with comments and their own layout; the workbench must not
reformat the whole file for one edit. So a save starts from the file's text as it was loaded
and re-emits only the parts whose content changed: a top-level entry (``name:``,
``description:``, ``training:``, ``extra:``) or a single case of the ``cases:`` list. Every
other byte, comments and blank lines included, stays as it was. A case that is unchanged but
moved keeps its own text too.

Spans come from the YAML node marks of the file's one parse: a case's span runs from the line of
its ``-`` to the end of the line holding its last content (so a comment at the end of that line
goes with it). Comment lines between cases belong to no case: they stay where they are when a
neighbour is edited or deleted. A changed case is written anew in the writer's layout (comments
inside that one case are lost).

When the file's shape does not allow this (aliases, a top-level
that is not a block mapping, unusual line breaks), :func:`splice` says why and the caller
rewrites the whole file. The result is always parsed back and compared with the suite: if it
does not read back to exactly the suite being saved, the caller rewrites the whole file too.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

from nlu_tui.formats import native_reader, native_writer
from nlu_tui.formats.native_reader import SUITE_KEYS
from nlu_tui.formats.native_writer import case_lines
from nlu_tui.gcpause import gc_paused
from nlu_tui.model import Suite, TestCase

_ALIAS = re.compile(r"(?:^|[\s\[{,:-])\*[^\s\[\]{},]")
"""What may be an alias (also matches inside quoted text; :func:`_has_alias` decides)."""
_ODD_BREAKS = re.compile("\r(?!\n)|[\x85\u2028\u2029]")


class NoSplice(Exception):
    """The file's layout cannot be kept; the message says why (shown to the user)."""


@dataclass
class _Span:
    start: int
    """Index of the first character of the entry's first line."""
    end: int
    """Index just past the line break ending its last content line."""


def splice(
    suite: Suite, text: str, path: Path | str | None, rewrite: frozenset[str] = frozenset()
) -> str:
    """``text`` (the file as loaded) changed to hold ``suite``, keeping all unchanged bytes.

    Cases whose id is in ``rewrite`` are written anew even when unchanged (a case without an
    ``id:`` in the file whose derived id would change once its neighbours moved gets one).
    Raises :class:`NoSplice` when that is not possible or not safe; the caller then writes the
    whole file from the suite.
    """
    if _ODD_BREAKS.search(text):
        raise NoSplice("the file uses line breaks other than \\n and \\r\\n")
    newline = "\r\n" if "\r\n" in text else "\n"
    if text and not text.endswith("\n"):
        text += newline
    try:
        with gc_paused(promote=True):
            root = native_reader.compose(text, path)
            old = native_reader.SuiteReader(path).suite(root)
    except Exception as exc:  # the caller decides; a broken base cannot be spliced
        raise NoSplice(f"the file as loaded cannot be read again ({exc})") from None
    if not isinstance(root, yaml.MappingNode) or root.flow_style or root.start_mark.column:
        raise NoSplice("the file's top level is not a block mapping")
    if "*" in text and _ALIAS.search(text) and _has_alias(root):
        raise NoSplice("the file uses YAML aliases")
    keys = _top_level_spans(text, root)
    edits: list[tuple[int, int, int, str]] = []  # (start, end, order, replacement)

    def emit(lines: list[str]) -> str:
        return "".join(line + newline for line in lines)

    def put(key: str, lines: list[str]) -> None:
        order = native_reader.SUITE_KEYS.index(key)
        if key in keys:
            span = keys[key]
            edits.append((span.start, span.end, order, emit(lines)))
        elif lines:
            edits.append((*_insertion_point(key, keys), order, emit(lines)))

    def with_comment(key: str, lines: list[str]) -> list[str]:
        """``lines`` for a one-line entry, keeping the comment at the end of the old one."""
        if key not in keys or not lines:
            return lines
        key_node, value = entries[key]
        end = max(_content_end(value), key_node.end_mark.index + 1)
        rest = text[end : keys[key].end].rstrip("\r\n")
        if "\n" not in text[keys[key].start : end] and rest.lstrip().startswith("#"):
            return [lines[0] + rest, *lines[1:]]
        return lines

    def scalar_line(key: str, value: str) -> list[str]:
        return with_comment(key, [f"{key}: {native_writer.yaml_scalar(value)}"])

    entries = {str(k.value): (k, v) for k, v in root.value}
    if suite.name != old.name:
        put("name", scalar_line("name", suite.name))
    if suite.description != old.description:
        description = suite.description
        put("description", scalar_line("description", description) if description else [])
    for key in ("training", "extra"):
        value = getattr(suite, key)
        if value != getattr(old, key):
            lines: list[str] = []
            if value:
                native_writer.key_lines(lines, "", key, value)
            put(key, lines)
    if suite.cases != old.cases or rewrite:
        cases_node = _cases_node(root)
        if cases_node is None:
            put("cases", with_comment("cases", _whole_cases(suite.cases)))
        else:
            edits.append(_cases_edit(text, cases_node, old.cases, suite.cases, newline, rewrite))
            if not suite.cases:  # the comment lines stay; "cases: []" says it is empty
                colon = next(k for k, _v in root.value if k.value == "cases").end_mark.index
                if text[colon : colon + 1] == ":":
                    edits.append((colon + 1, colon + 1, -1, " []"))
    edits.sort(key=lambda e: (e[0], e[1], e[2]))
    return apply_edits(text, [(start, end, replacement) for start, end, _o, replacement in edits])


def apply_edits(text: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, replacement)`` span replaced; the spans come sorted
    and must not overlap (:class:`NoSplice` otherwise)."""
    out: list[str] = []
    at = 0
    for start, end, replacement in edits:
        if start < at:
            raise NoSplice("overlapping changes")
        out.append(text[at:start])
        out.append(replacement)
        at = end
    out.append(text[at:])
    return "".join(out)


def _has_alias(root: yaml.Node) -> bool:
    """Whether a node appears twice in the tree (an alias repeats its anchor's node object):
    its text lies at the anchor only, so the spans would be wrong."""
    seen: set[int] = set()
    stack: list[yaml.Node] = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return True
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append(key)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return False


def _whole_cases(cases: list[TestCase]) -> list[str]:
    if not cases:
        return ["cases: []"]
    lines = ["cases:"]
    for case in cases:
        lines.extend(native_writer.case_lines(case))
    return lines


def _cases_node(root: yaml.MappingNode) -> yaml.SequenceNode | None:
    """The ``cases:`` value when it is a non-empty block sequence (the spliceable shape)."""
    for key, value in root.value:
        if key.value == "cases" and isinstance(value, yaml.SequenceNode) and value.value:
            if value.flow_style:
                return None
            return value
    return None


def _top_level_spans(text: str, root: yaml.MappingNode) -> dict[str, _Span]:
    spans: dict[str, _Span] = {}
    at = 0
    for key, value in root.value:
        if not isinstance(key, yaml.ScalarNode) or key.start_mark.column != 0:
            raise NoSplice("a top-level key does not start its line")
        start = key.start_mark.index
        end = _line_end(text, max(_content_end(key), _content_end(value), key.end_mark.index))
        if start < at:
            raise NoSplice("top-level entries overlap")
        spans[str(key.value)] = _Span(start, end)
        at = end
    return spans


def _insertion_point(key: str, spans: dict[str, _Span]) -> tuple[int, int]:
    """Where a top-level entry the file lacks goes: after the entry before it in the schema's
    order, else before the first entry after it."""
    order = SUITE_KEYS.index(key)
    before = [spans[k].end for k in SUITE_KEYS[:order] if k in spans]
    if before:
        return max(before), max(before)
    after = [spans[k].start for k in SUITE_KEYS[order + 1 :] if k in spans]
    position = min(after) if after else min((s.end for s in spans.values()), default=0)
    return position, position


def _cases_edit(
    text: str,
    node: yaml.SequenceNode,
    old: list[TestCase],
    new: list[TestCase],
    newline: str,
    rewrite: frozenset[str],
) -> tuple[int, int, int, str]:
    """The replacement of the region from the first case's ``-`` to the end of the last case.

    Cases are lined up by id: an unchanged case keeps its text (also when moved), a changed one
    is written anew where it was, a new one goes after the case before it in the new order. The
    comment and blank lines between two cases of the file stay in place.
    """
    indent = node.start_mark.column
    items = _item_spans(text, node, indent)
    if len(items) != len(old):  # pragma: no cover - one case per item
        raise NoSplice("the cases do not line up with the file's list items")
    by_id: dict[str, list[int]] = {}
    for index, case in enumerate(old):
        by_id.setdefault(case.id, []).append(index)

    def own_text(index: int) -> str:
        return text[items[index].start : items[index].end]

    def written(case: TestCase) -> str:
        for index in by_id.get(case.id, []) if case.id not in rewrite else []:
            if old[index] == case:
                return own_text(index)
        return "".join(line + newline for line in _shift(case_lines(case), indent - 2))

    def gap(index: int) -> str:
        return text[items[index - 1].end : items[index].start] if index else ""

    parts: list[str] = []
    matcher = difflib.SequenceMatcher(
        None, [c.id for c in old], [c.id for c in new], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                parts.append(gap(i1 + k))
                case = new[j1 + k]
                kept = old[i1 + k] == case and case.id not in rewrite
                parts.append(own_text(i1 + k) if kept else written(case))
            continue
        parts.extend(written(case) for case in new[j1:j2])
        parts.extend(gap(i) for i in range(i1, i2))  # the deleted cases' own lines go
    return items[0].start, items[-1].end, SUITE_KEYS.index("cases"), "".join(parts)


def _shift(lines: list[str], delta: int) -> list[str]:
    """The writer's case lines (items at column 2) moved to the file's item column."""
    if delta >= 0:
        pad = " " * delta
        return [pad + line for line in lines]
    return [line[-delta:] if line[:-delta].strip() == "" else line for line in lines]


def _item_spans(text: str, node: yaml.SequenceNode, indent: int) -> list[_Span]:
    spans: list[_Span] = []
    at = 0
    for item in node.value:
        first = item.start_mark.index
        start = text.rfind("\n", 0, first) + 1
        while not _is_item_line(text, start, indent):
            if start == 0:
                raise NoSplice("a case's list item could not be found")
            start = text.rfind("\n", 0, start - 1) + 1
            if _is_item_line(text, start, indent):
                break
            stop = text.find("\n", start)
            line = text[start : stop if stop >= 0 else len(text)].strip()
            if line and not line.startswith("#"):
                raise NoSplice("a case's list item could not be found")
        end = _line_end(text, max(_content_end(item), first + 1))
        if start < at or end <= start:
            raise NoSplice("the cases' list items overlap")
        spans.append(_Span(start, end))
        at = end
    return spans


def _is_item_line(text: str, start: int, indent: int) -> bool:
    """Whether the line at ``start`` opens a list item at column ``indent`` (``- ...``)."""
    marker = start + indent
    return (
        text[start:marker] == " " * indent
        and text[marker : marker + 1] == "-"
        and text[marker + 1 : marker + 2] in (" ", "\t", "\r", "\n", "")
    )


def _content_end(node: yaml.Node) -> int:
    """Index just past the last character of ``node``'s own text (-1 when it has none).

    Block collections are not trusted for this: their end mark is where the next token
    starts, which may lie past comment lines that belong to no case. Their last child holds
    their last text instead (children come in file order), except that an empty scalar
    (``key:`` with nothing after it) is marked where the next token starts too, so it counts
    for nothing and the key before it ends the text.
    """
    current = node
    keys: list[yaml.Node] = []  # a mapping's last key, for when its value has no text
    while True:
        if isinstance(current, yaml.ScalarNode):
            start, end = current.start_mark.index, current.end_mark.index
            found = end if end > start else -1
        elif getattr(current, "flow_style", False) or not current.value:
            found = int(current.end_mark.index)
        elif isinstance(current, yaml.SequenceNode):
            current = current.value[-1]
            continue
        else:
            key, current = current.value[-1]
            keys.append(key)
            continue
        if found >= 0 or not keys:
            return found
        current = keys.pop()


def _line_end(text: str, index: int) -> int:
    """Just past the line break of the line holding ``text[index - 1]``."""
    if index > 0 and text[index - 1] == "\n":
        return index
    found = text.find("\n", index)
    return len(text) if found < 0 else found + 1
