"""The native suite file (``*.suite.yaml``): what testers write by hand and what every face saves.

Reading keeps the line of every case (so validation and errors can say "case at line N") and
refuses unknown keys by name: a typo such as ``entites:`` must not silently drop expectations.
Writing is deterministic (same suite, same bytes) so suites diff well under version control.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.errors import ConflictError, InputError
from nlu_tui.fileio import atomic_write_bytes, atomic_write_text
from nlu_tui.formats import yaml_loader
from nlu_tui.formats.yaml_loader import SafeLoader as _Loader
from nlu_tui.gcpause import gc_paused
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    Suite,
    TestCase,
    ValueKind,
    digest_bytes,
)

NAME = "native"
EXTENSIONS = (".suite.yaml", ".suite.yml")
DESCRIPTION = "nlu-tui suite (YAML, one file per suite)"
FORMAT_VERSION = 1

SUITE_KEYS = ("nlu_tui_suite", "name", "description", "cases", "training", "extra")
CASE_KEYS = (
    "id",
    "utterance",
    "intents",
    "parent_intents",
    "traits",
    "entities",
    "entity_order",
    "tags",
    "extra",
)
INTENT_KEYS = ("name", "kind", "bot")
ENTITY_KEYS = (
    "name",
    "value",
    "kind",
    "alternatives",
    "text",
    "start",
    "end",
    "match_index",
    "role",
    "group",
    "json_value",
)

_STR_TAG = "tag:yaml.org,2002:str"


class _SuiteLoader(_Loader):  # type: ignore[valid-type,misc]
    """The safe loader with a cheaper resolver: same tags, fewer regex scans.

    PyYAML resolves every plain scalar in Python by trying the YAML 1.1 regexes filed under its
    first character. A scalar whose first character has no regex (most utterances) is a string
    outright, and the few distinct others (keys, intent names, tags) are resolved once per file.
    Other scalars and collections are resolved by PyYAML, so typing is exactly YAML 1.1.
    """

    def __init__(self, stream: str | bytes) -> None:
        super().__init__(stream)
        self._tag_memo: dict[tuple[Any, Any, Any], str] = {}
        resolvers: dict[Any, Any] = self.yaml_implicit_resolvers
        self._plain_first = None if None in resolvers else frozenset(k for k in resolvers if k)
        self._no_paths = not self.yaml_path_resolvers
        if self._no_paths:
            # Without path resolvers these two hooks do nothing, yet libyaml's composer calls
            # them for every node; C built-ins taking the same arguments are cheaper no-ops.
            self.__dict__["descend_resolver"] = slice
            self.__dict__["ascend_resolver"] = tuple

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if not self._no_paths:
            return super().resolve(kind, value, implicit)
        first = self._plain_first
        if (
            kind is yaml.ScalarNode
            and implicit[0]
            and value
            and first is not None
            and value[0] not in first
        ):
            return _STR_TAG
        key = (kind, value, implicit)  # without path resolvers, the tag depends on these only
        tag = self._tag_memo.get(key)
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if len(self._tag_memo) < 50_000:
                self._tag_memo[key] = tag
        return tag


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
    from nlu_tui.formats import suite_cache

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
        for offset, body, items, fraction in self.split.chunks:
            with gc_paused(promote=True):
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


def compose(text: str, path: Path | str | None) -> yaml.Node:
    """The single document's node tree; syntax errors name the file and line. Nesting and
    alias expansion are bounded (see :mod:`nlu_tui.formats.yaml_loader`)."""
    try:
        node = yaml_loader.compose(text, path, _SuiteLoader)
    except InputError as exc:
        if (
            exc.message.startswith("YAML syntax error")
            and "\t" in text
            and "tab" not in exc.message
            and _tab_near(text, exc.line)
        ):
            raise InputError(
                exc.message + " (tabs cannot indent YAML; use spaces)", path=path, line=exc.line
            ) from None
        raise
    if node is None:
        raise InputError("empty file: expected a suite with 'cases:'", path=path, line=1)
    return node


def _tab_near(text: str, line: int | None) -> bool:
    if line is None:
        return False
    lines = text.splitlines()
    return any("\t" in lines[i] for i in range(max(0, line - 2), min(len(lines), line + 1)))


def case_id_for(utterance: str, occurrence: int) -> str:
    """A stable id for a case written without one: same file, same ids, until it is saved."""
    digest = hashlib.sha1(f"{utterance}\0{occurrence}".encode()).hexdigest()
    return digest[:12]


class SuiteReader:
    """Turns composed YAML nodes into the model, checking keys and types with line numbers."""

    def __init__(self, path: Path | str | None) -> None:
        self.path = path
        self.line_offset = 0  # where the text being read starts in the file (chunked reads)
        self.name_from_path = False
        self.constructor = yaml.constructor.SafeConstructor()

    def error(self, message: str, node: yaml.Node, field: str | None = None) -> InputError:
        line = node.start_mark.line + 1 + self.line_offset
        return InputError(message, path=self.path, line=line, field=field)

    # generic helpers

    def mapping(
        self, node: yaml.Node, allowed: tuple[str, ...], what: str
    ) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        if not isinstance(node, yaml.MappingNode):
            raise self.error(f"{what} must be a mapping of keys to values", node)
        result: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise self.error(f"{what} has a key that is not a plain word", key_node)
            key = str(key_node.value)
            if key == "<<":
                raise self.error(f"{what}: YAML merge keys ('<<') are not supported", key_node)
            if key not in allowed:
                raise self.error(
                    f"unknown key '{key}' in {what}; expected one of: {', '.join(allowed)}",
                    key_node,
                    field=key,
                )
            if key in result:
                raise self.error(f"key '{key}' appears twice in {what}", key_node, field=key)
            result[key] = (key_node, value_node)
        return result

    def text(self, node: yaml.Node, field: str, what: str) -> str:
        """A scalar as written (``200`` stays "200", ``yes`` stays "yes")."""
        if not isinstance(node, yaml.ScalarNode):
            raise self.error(f"'{field}' in {what} must be text", node, field=field)
        if node.tag == "tag:yaml.org,2002:null" and node.style is None and node.value in ("", "~"):
            return ""
        return str(node.value)

    def opt_text(self, node: yaml.Node, field: str, what: str) -> str | None:
        if (
            isinstance(node, yaml.ScalarNode)
            and node.tag == "tag:yaml.org,2002:null"
            and node.style is None
            and node.value in ("", "~", "null", "Null", "NULL")
        ):
            return None
        return self.text(node, field, what)

    def text_list(self, node: yaml.Node, field: str, what: str) -> list[str]:
        """A list of texts; a single text is taken as a one-item list (friendlier by hand)."""
        if isinstance(node, yaml.ScalarNode):
            value = self.opt_text(node, field, what)
            return [] if value is None else [value]
        if not isinstance(node, yaml.SequenceNode):
            raise self.error(f"'{field}' in {what} must be a list", node, field=field)
        return [self.text(item, field, what) for item in node.value]

    def integer(self, node: yaml.Node, field: str, what: str) -> int | None:
        value = self.opt_text(node, field, what)
        if value is None:
            return None
        try:
            number = int(value)
        except ValueError:
            raise self.error(
                f"'{field}' in {what} must be a whole number, not {value!r}", node, field=field
            ) from None
        if number < 0:
            raise self.error(f"'{field}' in {what} must not be negative", node, field=field)
        return number

    def plain(self, node: yaml.Node, level: int) -> Any:
        """Construct free-form data (``extra``, ``training``, ``json_value``) the YAML way.

        ``level`` is the node's depth in the document (the suite's mapping is 1), so that the
        nesting limit counts from the top of the file, however the file is read."""
        yaml_loader.check_tree(node, self.path, line_offset=self.line_offset, depth=level)
        try:
            value = self.constructor.construct_document(node)
        except yaml.MarkedYAMLError as exc:
            self.constructor = yaml.constructor.SafeConstructor()  # drop half-built state
            raise self.error(f"cannot read value: {exc.problem}", node) from None
        except ValueError as exc:  # an integer of over 4,300 digits, a date out of range
            self.constructor = yaml.constructor.SafeConstructor()
            raise self.error(f"cannot read value: {exc}".split(";")[0], node) from None
        if isinstance(node, yaml.MappingNode | yaml.SequenceNode):  # keys: see long_key_error
            line = node.start_mark.line + 1 + self.line_offset
            error = yaml_loader.long_key_error(value, self.path, line, None)
            if error is not None:
                raise error
        return value

    def free_mapping(self, node: yaml.Node, field: str, what: str, level: int) -> dict[str, Any]:
        if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null":
            return {}
        value = self.plain(node, level)
        if not isinstance(value, dict):
            raise self.error(f"'{field}' in {what} must be a mapping", node, field=field)
        return {str(k): v for k, v in value.items()}

    def kind(self, enum: Any, raw: str, node: yaml.Node) -> Any:
        """An intent or value kind, forgiving case, spaces and dashes ("Small Talk")."""
        norm = raw.strip().lower().replace("-", "_").replace(" ", "_")
        if norm == "smalltalk":
            norm = "small_talk"
        try:
            return enum(norm)
        except ValueError:
            choices = ", ".join(m.value for m in enum)
            raise self.error(
                f"unknown kind {raw!r}; expected one of: {choices}", node, "kind"
            ) from None

    # the schema

    def suite(self, node: yaml.Node) -> Suite:
        keys = self.mapping(node, SUITE_KEYS, "the suite")
        if "nlu_tui_suite" in keys:
            version = self.text(keys["nlu_tui_suite"][1], "nlu_tui_suite", "the suite")
            if version != str(FORMAT_VERSION):
                raise self.error(
                    f"suite format version {version} is not supported (this nlu-tui reads "
                    f"version {FORMAT_VERSION})",
                    keys["nlu_tui_suite"][1],
                    field="nlu_tui_suite",
                )
        name = self.text(keys["name"][1], "name", "the suite") if "name" in keys else ""
        if not name and self.path is not None:
            name = suite_stem(Path(self.path))
            self.name_from_path = True
        description = (
            self.opt_text(keys["description"][1], "description", "the suite") or ""
            if "description" in keys
            else ""
        )
        cases: list[TestCase] = []
        if "cases" in keys:
            cases_node = keys["cases"][1]
            if isinstance(cases_node, yaml.ScalarNode) and cases_node.tag.endswith(":null"):
                pass
            elif not isinstance(cases_node, yaml.SequenceNode):
                raise self.error("'cases' must be a list of cases", cases_node, field="cases")
            else:
                seen: dict[str, int] = {}
                for case_node in cases_node.value:
                    cases.append(self.case(case_node, seen))
        training = (
            self.free_mapping(keys["training"][1], "training", "the suite", 2)
            if "training" in keys
            else {}
        )
        extra = (
            self.free_mapping(keys["extra"][1], "extra", "the suite", 2) if "extra" in keys else {}
        )
        return Suite(
            name=name, description=description, cases=cases, training=training, extra=extra
        )

    def case(self, node: yaml.Node, seen: dict[str, int]) -> TestCase:
        line = node.start_mark.line + 1 + self.line_offset
        what = f"case at line {line}"
        keys = self.mapping(node, CASE_KEYS, what)
        if "utterance" not in keys:
            raise self.error(f"{what} has no 'utterance'", node, field="utterance")
        utterance = self.text(keys["utterance"][1], "utterance", what)
        occurrence = seen.get(utterance, 0)
        seen[utterance] = occurrence + 1
        case_id = ""
        if "id" in keys:
            case_id = self.opt_text(keys["id"][1], "id", what) or ""
        if not case_id:
            case_id = case_id_for(utterance, occurrence)
        intents: list[ExpectedIntent] = []
        if "intents" in keys:
            intents = self.intents(keys["intents"][1], what)
        entities: list[ExpectedEntity] = []
        if "entities" in keys:
            ent_node = keys["entities"][1]
            if isinstance(ent_node, yaml.ScalarNode) and ent_node.tag.endswith(":null"):
                pass
            elif not isinstance(ent_node, yaml.SequenceNode):
                raise self.error(f"'entities' in {what} must be a list", ent_node, "entities")
            else:
                entities = [self.entity(item, what) for item in ent_node.value]

        def texts(key: str) -> list[str]:
            return self.text_list(keys[key][1], key, what) if key in keys else []

        return TestCase(
            utterance=utterance,
            intents=intents,
            traits=texts("traits"),
            parent_intents=texts("parent_intents"),
            entities=entities,
            entity_order=texts("entity_order"),
            tags=texts("tags"),
            id=case_id,
            extra=self.free_mapping(keys["extra"][1], "extra", what, 4) if "extra" in keys else {},
            line=line,
        )

    def intents(self, node: yaml.Node, what: str) -> list[ExpectedIntent]:
        if isinstance(node, yaml.ScalarNode):
            value = self.opt_text(node, "intents", what)
            return [] if value is None else [ExpectedIntent(value)]
        if not isinstance(node, yaml.SequenceNode):
            raise self.error(f"'intents' in {what} must be a list", node, field="intents")
        result: list[ExpectedIntent] = []
        for item in node.value:
            if isinstance(item, yaml.ScalarNode):
                result.append(ExpectedIntent(self.text(item, "intents", what)))
                continue
            keys = self.mapping(item, INTENT_KEYS, f"an intent of {what}")
            if "name" not in keys:
                raise self.error(f"an intent of {what} has no 'name'", item, field="name")
            kind: IntentKind | None = None
            if "kind" in keys:
                raw = self.opt_text(keys["kind"][1], "kind", what)
                if raw:
                    kind = self.kind(IntentKind, raw, keys["kind"][1])
            bot = self.opt_text(keys["bot"][1], "bot", what) if "bot" in keys else None
            result.append(ExpectedIntent(self.text(keys["name"][1], "name", what), kind, bot))
        return result

    def entity(self, node: yaml.Node, what: str) -> ExpectedEntity:
        keys = self.mapping(node, ENTITY_KEYS, f"an entity of {what}")
        if "name" not in keys:
            raise self.error(f"an entity of {what} has no 'name'", node, field="name")
        entity = ExpectedEntity(name=self.text(keys["name"][1], "name", what))
        if "value" in keys:
            entity.value = self.opt_text(keys["value"][1], "value", what) or ""
        if "kind" in keys:
            raw = self.opt_text(keys["kind"][1], "kind", what)
            if raw:
                entity.kind = self.kind(ValueKind, raw, keys["kind"][1])
        if "alternatives" in keys:
            entity.alternatives = self.text_list(keys["alternatives"][1], "alternatives", what)
        for key in ("text", "role", "group"):
            if key in keys:
                setattr(entity, key, self.opt_text(keys[key][1], key, what))
        for key in ("start", "end", "match_index"):
            if key in keys:
                setattr(entity, key, self.integer(keys[key][1], key, what))
        if "json_value" in keys:
            entity.json_value = self.plain(keys["json_value"][1], 6)
        return entity


def suite_stem(path: Path) -> str:
    name = path.name
    for ext in (*EXTENSIONS, ".yaml", ".yml"):
        if name.lower().endswith(ext):
            return name[: -len(ext)]
    return path.stem


# --- dumping ----------------------------------------------------------------------------------
#
# The case part of the file is written by hand rather than by ``yaml.dump``: the layout stays
# fixed (short lists on one line, list items indented under their key) and a 10,000-case suite
# saves several times faster. Free-form data (``extra``, ``json_value``, ``training``) goes
# through PyYAML. Every scalar is either a plain word that YAML reads back as the same string, or
# a double-quoted JSON string (valid YAML) with YAML's non-printable characters escaped.

_FLOW_LIMIT = 90
"""Lists and entity mappings shorter than this (in characters) go on one line."""

_PLAIN = re.compile(
    "[A-Za-z0-9\u00c0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
    "[^\\x00-\\x1f\\x7f-\\x9f:#\\[\\]{},\\ud800-\\udfff\\ufffe\\uffff]*"
)
_RESOLVER = yaml.resolver.Resolver()


def _reads_as_text(text: str) -> bool:
    """Whether YAML reads the plain scalar as a string (not a number, date, bool or null)."""
    tag: str = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return tag == "tag:yaml.org,2002:str"


_NOT_PRINTABLE = re.compile("[\\x7f-\\x9f\\u2028\\u2029\\ud800-\\udfff\\ufffe\\uffff]")


def yaml_scalar(text: str) -> str:
    """``text`` as a YAML scalar that reads back as exactly ``text`` (a string)."""
    if (
        _PLAIN.fullmatch(text)
        and text[-1] != " "
        and not _NOT_PRINTABLE.search(text)
        and _reads_as_text(text)
    ):
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    return _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def _flow_list(items: list[str]) -> str:
    return "[" + ", ".join(yaml_scalar(i) for i in items) + "]"


def _inline(value: Any) -> str:
    """A scalar or an empty container on one line."""
    if isinstance(value, str):
        return yaml_scalar(value)
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    text: str = yaml.safe_dump(value, default_flow_style=True, width=4096)
    return text.splitlines()[0]


def _is_block(value: Any) -> bool:
    return isinstance(value, dict | list | tuple) and len(value) > 0


def _block(value: Any, indent: int) -> list[str]:
    """A non-empty mapping or list of free-form data, as block lines at ``indent``."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if _is_block(item):
                lines.append(f"{pad}{_inline(key)}:")
                lines.extend(_block(item, indent + 2))
            else:
                lines.append(f"{pad}{_inline(key)}: {_inline(item)}")
        return lines
    for item in value:
        if _is_block(item):
            sub = _block(item, indent + 2)
            lines.append(f"{pad}- {sub[0][indent + 2 :]}")
            lines.extend(sub[1:])
        else:
            lines.append(f"{pad}- {_inline(item)}")
    return lines


def _free(value: Any, indent: int) -> list[str]:
    """Free-form data after ``key:`` — inline when scalar or empty, else a block below."""
    if _is_block(value):
        return ["", *_block(value, indent)]
    return [" " + _inline(value)]


def key_lines(out: list[str], pad: str, key: str, value: Any) -> None:
    lines = _free(value, len(pad) + 2)
    out.append(f"{pad}{key}:{lines[0]}")
    out.extend(lines[1:])


def _texts(out: list[str], pad: str, key: str, items: list[str]) -> None:
    line = _flow_list(items)
    if len(line) <= _FLOW_LIMIT:
        out.append(f"{pad}{key}: {line}")
    else:
        out.append(f"{pad}{key}:")
        out.extend(f"{pad}  - {yaml_scalar(i)}" for i in items)


def _intent_flow(intent: ExpectedIntent) -> str:
    if intent.kind is None and intent.bot is None:
        return yaml_scalar(intent.name)
    parts = [f"name: {yaml_scalar(intent.name)}"]
    if intent.kind is not None:
        parts.append(f"kind: {intent.kind.value}")
    if intent.bot is not None:
        parts.append(f"bot: {yaml_scalar(intent.bot)}")
    return "{" + ", ".join(parts) + "}"


def _entity_lines(entity: ExpectedEntity, pad: str) -> list[str]:
    """One ``- {...}`` line when short and simple, else a block mapping."""
    parts: list[tuple[str, str]] = [("name", yaml_scalar(entity.name))]
    if entity.value != "":
        parts.append(("value", yaml_scalar(entity.value)))
    if entity.kind is not ValueKind.AUTO:
        parts.append(("kind", entity.kind.value))
    if entity.alternatives:
        parts.append(("alternatives", _flow_list(entity.alternatives)))
    for key in ("text", "start", "end", "match_index", "role", "group"):
        value = getattr(entity, key)
        if value is not None:
            parts.append((key, yaml_scalar(value) if isinstance(value, str) else str(value)))
    flow = "{" + ", ".join(f"{k}: {v}" for k, v in parts) + "}"
    if entity.json_value is None and len(flow) <= _FLOW_LIMIT:
        return [f"{pad}- {flow}"]
    lines = [f"{pad}{'- ' if i == 0 else '  '}{k}: {v}" for i, (k, v) in enumerate(parts)]
    if entity.json_value is not None:
        key_lines(lines, pad + "  ", "json_value", entity.json_value)
    return lines


def case_lines(case: TestCase) -> list[str]:
    out = [f"  - id: {yaml_scalar(case.id)}", f"    utterance: {yaml_scalar(case.utterance)}"]
    pad = "    "
    if case.intents:
        items = [_intent_flow(i) for i in case.intents]
        line = "[" + ", ".join(items) + "]"
        if all(i.kind is None and i.bot is None for i in case.intents) and len(line) <= _FLOW_LIMIT:
            out.append(f"{pad}intents: {line}")
        else:
            out.append(f"{pad}intents:")
            out.extend(f"{pad}  - {item}" for item in items)
    if case.parent_intents:
        _texts(out, pad, "parent_intents", case.parent_intents)
    if case.traits:
        _texts(out, pad, "traits", case.traits)
    if case.entities:
        out.append(f"{pad}entities:")
        for entity in case.entities:
            out.extend(_entity_lines(entity, pad + "  "))
    if case.entity_order:
        _texts(out, pad, "entity_order", case.entity_order)
    if case.tags:
        _texts(out, pad, "tags", case.tags)
    if case.extra:
        key_lines(out, pad, "extra", dict(case.extra))
    return out


def dump_suite(suite: Suite) -> str:
    """The suite as native YAML text: deterministic, keys in schema order, Unicode as is."""
    out = [f"nlu_tui_suite: {FORMAT_VERSION}", f"name: {yaml_scalar(suite.name)}"]
    if suite.description:
        out.append(f"description: {yaml_scalar(suite.description)}")
    if suite.cases:
        out.append("cases:")
        for case in suite.cases:
            out.extend(case_lines(case))
    else:
        out.append("cases: []")
    if suite.training:
        key_lines(out, "", "training", suite.training)
    if suite.extra:
        key_lines(out, "", "extra", suite.extra)
    return "\n".join(out) + "\n"


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
    from nlu_tui.formats import native_splice

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
