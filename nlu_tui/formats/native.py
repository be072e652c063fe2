"""The native suite file (``*.suite.yaml``): what testers write by hand and what every face saves.

Reading keeps the line of every case (so validation and errors can say "case at line N") and
refuses unknown keys by name: a typo such as ``entites:`` must not silently drop expectations.
Writing is deterministic (same suite, same bytes) so suites diff well under version control.

This module loads (progressively, through the parsed-suite cache) and saves (splicing the changes
into the file when it can). The schema and the reading of the YAML tree are in
:mod:`nlu_tui.formats.native_reader`, the writing in :mod:`nlu_tui.formats.native_writer`; the
splicing saver (:mod:`nlu_tui.formats.native_splice`) and the cache use those, not this module.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.errors import ConflictError, InputError
from nlu_tui.fileio import atomic_write_bytes, atomic_write_text
from nlu_tui.formats import native_splice, suite_cache
from nlu_tui.formats.native_fast import FastReader, NotCanonical
from nlu_tui.formats.native_reader import CASE_KEYS as CASE_KEYS
from nlu_tui.formats.native_reader import ENTITY_KEYS as ENTITY_KEYS
from nlu_tui.formats.native_reader import EXTENSIONS as EXTENSIONS
from nlu_tui.formats.native_reader import FORMAT_VERSION as FORMAT_VERSION
from nlu_tui.formats.native_reader import INTENT_KEYS as INTENT_KEYS
from nlu_tui.formats.native_reader import SUITE_KEYS as SUITE_KEYS
from nlu_tui.formats.native_reader import SuiteReader, compose
from nlu_tui.formats.native_reader import case_id_for as case_id_for
from nlu_tui.formats.native_writer import dump_suite as dump_suite
from nlu_tui.gcpause import gc_paused
from nlu_tui.model import (
    Suite,
    TestCase,
    digest_bytes,
)

NAME = "native"
DESCRIPTION = "nlu-tui suite (YAML, one file per suite)"

# --- format module interface ----------------------------------------------------------------


def sniff(path: Path, head: str) -> bool:
    """A native suite by name, or by its version key near the top."""
    name = path.name.lower()
    if name.endswith(EXTENSIONS):
        return True
    return any(line.startswith("nlu_tui_suite:") for line in head.splitlines()[:50])


def read(path: Path) -> Any:
    from nlu_tui.formats.registry import ImportResult

    return ImportResult(load_suite(path))


def write(suite: Suite, path: Path) -> list[str]:
    """Export as native: nothing is lost, so no warnings. Existence checks are the caller's."""
    atomic_write_text(Path(path), dump_suite(suite))
    return []


# --- loading ----------------------------------------------------------------------------------


@dataclass
class SuiteChunk:
    """One step of a progressive load (see :func:`iter_suite_chunks`).

    ``cases`` are the next cases in file order; ``loaded`` counts the cases delivered so far
    (these included) and ``fraction`` the share of the file read (0..1]. The last chunk has
    ``suite`` set: the complete suite, equal to what :func:`load_suite` returns.
    """

    cases: list[TestCase]
    loaded: int
    fraction: float
    suite: Suite | None = None


ProgressCallback = Callable[[SuiteChunk], None]


def load_suite(
    path: Path | str,
    *,
    use_cache: bool | None = None,
    on_progress: ProgressCallback | None = None,
    chunk_size: int = 2000,
) -> Suite:
    """Read a suite file; sets ``path`` and ``loaded_digest`` so a later save can detect edits.

    ``use_cache``: ``None`` uses the parsed-suite cache for files of at least
    :data:`nlu_tui.formats.suite_cache.MIN_BYTES`; ``True``/``False`` force it on or off.
    ``on_progress`` is called with each :class:`SuiteChunk` (``chunk_size`` cases) as a big
    suite is parsed, from the calling thread.
    """
    suite: Suite | None = None
    for chunk in iter_suite_chunks(path, chunk_size, use_cache=use_cache):
        if on_progress is not None:
            on_progress(chunk)
        suite = chunk.suite
    assert suite is not None  # the last chunk always carries the suite
    return suite


def iter_suite_chunks(
    path: Path | str, chunk_size: int = 2000, *, use_cache: bool | None = None
) -> Iterator[SuiteChunk]:
    """Load a suite a few thousand cases at a time, so a UI can show the first ones early.

    Errors are exactly those of a whole-file parse (same message, line and field): anything
    unexpected in a chunk hands the file to the whole-file parser, which then decides. A cached
    suite, or one of at most ``chunk_size`` cases, arrives as a single chunk. The cache entry
    is written once the generator is run to its end (as a ``for`` loop does).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read suite: {exc.strerror or exc}", path=path) from None
    digest = digest_bytes(data)
    cached = use_cache if use_cache is not None else len(data) >= suite_cache.MIN_BYTES
    if cached:
        hit = suite_cache.get(digest, path)
        if hit is not None:
            yield SuiteChunk(list(hit.cases), len(hit.cases), 1.0, _loaded(hit, path, digest))
            return
    text = _decode(data, path)
    delivered: list[TestCase] = []  # cases parsed chunk-wise, all yielded but ``pending``
    pending: list[TestCase] = []  # held back so that the last chunk can carry the suite
    pending_fraction = 0.0
    result: tuple[Suite, bool] | None = None
    split = _split_cases(text, max(1, chunk_size))
    if split is not None:
        progressive = _Progressive(split, path)
        try:
            for cases, fraction in progressive.chunks():
                if pending:
                    yield SuiteChunk(pending, len(delivered), pending_fraction)
                pending, pending_fraction = cases, fraction
                delivered.extend(cases)
            result = progressive.finish(delivered)
        except Exception:  # whatever went wrong, the whole-file parse decides what to report
            delivered = delivered[: len(delivered) - len(pending)]
    if result is None:
        suite, name_from_path = _parse_whole(text, path)
        if suite.cases[: len(delivered)] != delivered:  # pragma: no cover - a bug, not input
            raise AssertionError("progressive load disagrees with the whole-file parse")
        suite.cases[: len(delivered)] = delivered  # keep the objects the caller already has
        pending = suite.cases[len(delivered) :]
        result = suite, name_from_path
    suite, name_from_path = result
    yield SuiteChunk(pending, len(suite.cases), 1.0, _loaded(suite, path, digest))
    if cached:  # after the last chunk, so a UI shows the suite before the entry is written
        suite_cache.put(digest, suite, name_from_path)


def _parse_whole(text: str, path: Path | str | None) -> tuple[Suite, bool]:
    """The suite, and whether its name came from the file name (the cache must know)."""
    reader = SuiteReader(path)
    with gc_paused(promote=True):
        suite = reader.suite(compose(text, path))  # the node tree is freed before GC resumes
    return suite, reader.name_from_path


class _NotSplittable(Exception):
    """The file is valid in a way the chunked reader does not handle; parse it whole."""


_CASES_KEY = re.compile(r"^cases:(?: +#[^\n]*| *)$", re.M)
_FIRST_ITEM = re.compile(r"(\n(?:[ \t]*(?:#[^\n]*)?\n)*)(( *)-(?: |$))", re.M)
"""From the end of the ``cases:`` line: blank or comment lines, then the first item's line."""
_END_BELOW = r"\n {{0,{}}}[^ \n#]"
"""A line indented less than the items (but not blank or a comment) ends the sequence.
(Patterns start with a newline rather than ``^`` so that ``re`` can scan for it quickly.)"""
_END_AT_ZERO = r"\n(?:[^ \n#-]|-[^ \n])"
"""With items at column 0, any other line starting there ends the sequence."""
_ANCHOR = re.compile(r"(?:^|[\s\[{,])&[^\s\[\]{},]")
_ODD_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
"""Line breaks to YAML but not to ``str.count("\\n")``: files with them are parsed whole."""


@dataclass
class _Split:
    """Where a suite's top-level ``cases:`` block sequence lies, cut between items.

    ``skeleton`` is the text with the case lines blanked (same line numbers), read for the
    suite's other keys; each chunk is ``(first line index, text, items, fraction done)``.

    Why cutting at item lines is safe: a line starting with the item indent and ``- `` cannot
    continue a plain or block scalar (those end at a less-or-equally indented line) or a
    comment; inside a quoted scalar or a flow collection, the chunk before the cut would end
    with it unclosed, which is a syntax error, and any error sends the file to the whole-file
    parser. Anchors (which could tie chunks together) send it there up front.
    """

    key_line: int
    skeleton: str
    chunks: Iterator[tuple[int, str, list[int], float]]


def _split_cases(text: str, chunk_size: int) -> _Split | None:
    """Find the item lines of the top-level ``cases:`` block sequence (regex scans, no loops
    over lines in Python: this runs before the first chunk can be shown)."""
    if any(c in text for c in _ODD_BREAKS) or ("&" in text and _ANCHOR.search(text)):
        return None  # line counting or anchors would differ between a chunk and the file
    key = _CASES_KEY.search(text)
    if key is None:
        return None
    first_item = _FIRST_ITEM.match(text, key.end())
    if first_item is None:
        return None
    first = first_item.start(2)  # where the first item's line starts
    indent = len(first_item.group(3))
    stop = re.compile(_END_AT_ZERO if indent == 0 else _END_BELOW.format(indent - 1))
    end_match = stop.search(text, first - 1)
    end = end_match.start() + 1 if end_match is not None else len(text)
    chunks = _chunks(text, first, end, indent, chunk_size)
    head = list(itertools.islice(chunks, 2))
    if len(head) < 2:
        return None  # one chunk: just parse it whole
    key_line = text.count("\n", 0, key.start())
    skeleton = text[:first] + "\n" * text.count("\n", first, end) + text[end:]
    return _Split(key_line, skeleton, itertools.chain(head, chunks))


def peek_suite(path: Path | str, data: bytes | None = None) -> tuple[str, int] | None:
    """A suite's name and case count from a regex scan of its ``cases:`` items, not a parse.

    The suites panel lists every suite at start-up; parsing a 100,000-case file there just to
    count it would take seconds and fill the cache, so opening it could no longer show the
    first cases early. ``None`` when the file cannot be split safely (load it whole instead).
    ``data`` is the file's content when the caller has already read it.
    """
    path = Path(path)
    try:
        text = _decode(path.read_bytes() if data is None else data, path)
    except (OSError, InputError):
        return None
    split = _split_cases(text, 2000)
    if split is None:
        return None
    count = sum(len(items) for _, _, items, _ in split.chunks)
    try:
        with gc_paused(promote=True):
            head = _Progressive(split, path)._head(compose(split.skeleton, path))
    except Exception:  # anything odd: the caller's whole-file load reports it properly
        return None
    return head.name, count


def _chunks(
    text: str, first: int, end: int, indent: int, chunk_size: int
) -> Iterator[tuple[int, str, list[int], float]]:
    """The items between ``first`` and ``end``, ``chunk_size`` at a time, found as needed so
    that the first chunk does not wait for the whole file to be scanned."""
    item = re.compile(f"\\n {{{indent}}}-(?:[ \\n]|\\Z)")
    line, at = text.count("\n", 0, first), first
    starts: list[int] = []
    lines: list[int] = []
    for match in item.finditer(text, first - 1, end):
        pos = match.start() + 1
        line += text.count("\n", at, pos)
        at = pos
        if len(starts) == chunk_size:
            yield lines[0], text[starts[0] : pos], lines, min(1.0, pos / len(text))
            starts, lines = [], []
        starts.append(pos)
        lines.append(line)
    if starts:
        yield lines[0], text[starts[0] : end], lines, min(1.0, end / max(1, len(text)))


class _Progressive:
    """Reads a split suite: the skeleton first, then each chunk of cases."""

    def __init__(self, split: _Split, path: Path | str | None) -> None:
        self.split = split
        self.path = path
        self.reader = SuiteReader(path)
        self.head: Suite | None = None

    def chunks(self) -> Iterator[tuple[list[TestCase], float]]:
        with gc_paused(promote=True):
            self.head = self._head(compose(self.split.skeleton, self.path))
        seen: dict[str, int] = {}
        fast = FastReader()
        for offset, body, items, fraction in self.split.chunks:
            with gc_paused(promote=True):
                try:  # the layout nlu-tui writes, read line by line (see native_fast)
                    cases = fast.cases(body, items, seen)
                except NotCanonical:
                    cases = self._cases(compose(body, self.path), offset, items, seen)
            yield cases, fraction

    def _head(self, node: yaml.Node) -> Suite:
        if not isinstance(node, yaml.MappingNode) or not any(
            isinstance(key, yaml.ScalarNode)
            and key.value == "cases"
            and key.start_mark.line == self.split.key_line
            and key.start_mark.column == 0
            and isinstance(value, yaml.ScalarNode)
            and value.tag == "tag:yaml.org,2002:null"
            and value.value == ""
            for key, value in node.value
        ):
            raise _NotSplittable
        return self.reader.suite(node)

    def _cases(
        self, node: yaml.Node, offset: int, items: list[int], seen: dict[str, int]
    ) -> list[TestCase]:
        if (
            not isinstance(node, yaml.SequenceNode)
            or [item.start_mark.line + offset for item in node.value] != items
        ):
            raise _NotSplittable
        self.reader.line_offset = offset
        return [self.reader.case(item, seen) for item in node.value]

    def finish(self, cases: list[TestCase]) -> tuple[Suite, bool]:
        assert self.head is not None
        self.head.cases = cases
        return self.head, self.reader.name_from_path


def _loaded(suite: Suite, path: Path, digest: str) -> Suite:
    suite.path = path
    suite.loaded_digest = digest
    return suite


def parse_suite(data: bytes | str, path: Path | str | None = None) -> Suite:
    """Parse suite text (bytes or str); errors name ``path`` and the line."""
    text = _decode(data, path) if isinstance(data, bytes) else data
    return _parse_whole(text, path)[0]


def _decode(data: bytes, path: Path | str | None) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError("not valid UTF-8 text", path=path, line=line) from None


# --- saving -----------------------------------------------------------------------------------


def save_suite(
    suite: Suite,
    path: Path | str | None = None,
    *,
    force: bool = False,
    notes: list[str] | None = None,
) -> Path:
    """Write the suite atomically, keeping ``<file>.bak``; never clobber someone else's edit.

    Raises :class:`ConflictError` when the file changed on disk since ``suite`` was loaded, or
    when a new suite would overwrite an existing file, unless ``force``.

    Saving over the file the suite was loaded from rewrites only the changed parts (see
    :mod:`nlu_tui.formats.native_splice`): comments and the layout of untouched cases stay.
    When the whole file has to be rewritten instead and some of its layout is lost, a sentence
    saying so is appended to ``notes``. A symlinked suite file stays a link: its target is
    written.
    """
    target = Path(path) if path is not None else suite.path
    if target is None:
        raise InputError("the suite has no file yet; give a path to save it to")
    current: bytes | None = None
    if target.exists():
        try:
            current = target.read_bytes()
        except OSError as exc:
            if not force:
                raise InputError(f"cannot read suite: {exc.strerror or exc}", path=target) from None
    same_file = suite.path is not None and _same(suite.path, target)
    unchanged = current is not None and digest_bytes(current) == suite.loaded_digest
    if not force and current is not None:
        if suite.loaded_digest is None or not same_file:
            raise ConflictError(
                f"{target}: a file already exists there; nothing was written "
                "(choose another name, or overwrite it explicitly)"
            )
        if not unchanged:
            raise ConflictError(
                f"{target}: the file changed on disk since it was loaded; nothing was written "
                "(reload it, or save under another name)"
            )
    data = _save_bytes(suite, current if same_file and unchanged else None, target, notes)
    atomic_write_bytes(target, data, backup=True, through_links=True)
    suite.path = target
    suite.loaded_digest = digest_bytes(data)
    return target


def _save_bytes(
    suite: Suite, current: bytes | None, target: Path, notes: list[str] | None
) -> bytes:
    """The new file: the loaded text with only the changes spliced in, when it can be kept."""
    if current is None:
        return dump_suite(suite).encode("utf-8")
    bom = current.startswith(b"\xef\xbb\xbf")
    old_text = ""
    try:
        old_text = current.decode("utf-8-sig")
        spliced = native_splice.splice(suite, old_text, target)
        back = parse_suite(spliced, target)
        if back != suite and len(back.cases) == len(suite.cases):
            # cases written without an id get one derived from their utterance and its
            # occurrence: moving a twin changes it, so such cases are given their id
            pairs = zip(suite.cases, back.cases, strict=True)
            moved = frozenset(mine.id for mine, read in pairs if mine.id != read.id)
            spliced = native_splice.splice(suite, old_text, target, moved)
            back = parse_suite(spliced, target)
        if back != suite:
            raise native_splice.NoSplice("the kept layout would not read back the same")
    except native_splice.NoSplice as exc:
        if notes is not None and _loses_layout(old_text, target):
            notes.append(f"the whole file was rewritten (comments and layout not kept): {exc}")
        return dump_suite(suite).encode("utf-8")
    except Exception as exc:  # never fail a save over keeping the layout
        if notes is not None:
            notes.append(f"the whole file was rewritten (comments and layout not kept): {exc}")
        return dump_suite(suite).encode("utf-8")
    return (b"\xef\xbb\xbf" if bom else b"") + spliced.encode("utf-8")


def _loses_layout(old_text: str, path: Path) -> bool:
    """Whether writing the file from scratch changes more than what the edit changed."""
    try:
        return dump_suite(parse_suite(old_text, path)) != old_text
    except Exception:
        return True


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b
