"""The fastest safe YAML loader this PyYAML build offers, shared by the YAML formats, with the
bounds that make a hostile file an error rather than a crash.

libyaml's C loader composes large suites and training files about ten times faster than the
pure-Python one; PyYAML builds without libyaml lack it, so fall back to ``SafeLoader``.

Two limits apply to every YAML file nlu-tui reads (see :func:`compose` and :func:`construct`):

- nesting: at most :data:`MAX_DEPTH` levels of lists and mappings. libyaml's composer recurses
  in C and crashes the process (SIGSEGV) on some 25,000 levels; Python's constructor hits a
  ``RecursionError`` at about a thousand. Real suites nest fewer than ten levels. libyaml's
  scanner is also quadratic in the flow nesting (every ``[`` keeps a possible simple key that
  every later token re-examines: 30,000 levels took 11 s, 100,000 over 4 minutes), so a text
  that may nest deep (:func:`may_nest_deep`, a linear scan of its brackets and line prefixes)
  has its events walked first, and the walk stops at the first level past the limit: the
  refusal costs the text's length, not its depth squared.
- aliases: ``*name`` may repeat at most :data:`MAX_ALIAS_NODES` nodes in all. An alias is cheap
  to read (it shares one object) but every consumer that copies, compares or writes the data
  expands it: fifteen lines of aliases nested eight deep expand to 43 million items.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import yaml

from nlu_tui import jsonfile
from nlu_tui.errors import InputError

try:
    SafeLoader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    SafeLoader = yaml.SafeLoader

MAX_DEPTH = jsonfile.MAX_DEPTH
"""Deepest nesting of lists and mappings accepted in any suite or training file (YAML or JSON)."""

MAX_ALIAS_NODES = 100_000
"""How many nodes YAML aliases may repeat in one file, counted as if expanded."""

_COMPOSER_STACK = 128 * 1024 * 1024
"""Stack for a thread running libyaml's recursive composer: room for some 300,000 levels (about
400 bytes each); a stack's untouched pages cost no memory."""
_THREAD_DEPTH = 200_000
"""Nesting the composer may meet in such a thread; beyond it, events are checked first."""
_CALLER_DEPTH = 500
"""Nesting the composer may meet on the caller's own stack (whatever thread that is)."""

_ALIAS = re.compile(r"(?<![^\s\-?:,\[{\"'])\*")
"""Where an alias (``*name``) can start."""


def _block_prefix(length: int) -> re.Pattern[str]:
    """A line whose indentation and block indicators (``- ``, ``? ``, ``: ``) are at least
    ``length`` characters: block nesting needs at least one such character per level."""
    return re.compile(r"^[ \t\-?:]{" + str(length) + ",}", re.M)


_DEEP_BLOCK_FOR_CALLER = _block_prefix(_CALLER_DEPTH // 4)
_DEEP_BLOCK_FOR_THREAD = _block_prefix(_THREAD_DEPTH // 4)


def _nesting_bound(text: str) -> int:
    """A cheap over-estimate of how deep the text can nest, in three steps: small (fits the
    caller's stack), medium (fits a composer thread) or unknown (check the events first).
    Every level is a ``[``/``{`` or at least one character of a line's block prefix; the
    block part of a level can at most double (a sequence under a mapping key)."""
    openers = text.count("[") + text.count("{")
    if openers + len(text) // 2 < _CALLER_DEPTH // 2:
        return 0
    if openers < _CALLER_DEPTH // 2 and not _DEEP_BLOCK_FOR_CALLER.search(text):
        return _CALLER_DEPTH
    if openers < _THREAD_DEPTH // 2 and not _DEEP_BLOCK_FOR_THREAD.search(text):
        return _THREAD_DEPTH
    return _THREAD_DEPTH + 1


_SUSPECT_DEPTH = 16
"""Below this many levels of brackets and of block prefix the text cannot nest past
:data:`MAX_DEPTH` (a block level takes at least half a prefix character)."""
_DEEP_BLOCK_SUSPECT = re.compile(r"\n[ \t\-?:]{" + str(_SUSPECT_DEPTH) + ",}")
"""A line with a long block prefix (the leading ``\n`` makes the search a fast literal scan)."""
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_PAIRS = (b"[]", b"{}", b"[}", b"{]")


def may_nest_deep(text: str) -> bool:
    """Whether ``text`` may nest lists and mappings deeper than about :data:`_SUSPECT_DEPTH`,
    in linear time: a line whose block prefix (indentation, ``- ``, ``? ``, ``: ``) is that long,
    or brackets that stay unmatched after that many rounds of removing innermost pairs.

    Brackets inside quoted text count as brackets: they can only make the answer ``True`` (an
    events walk, linear) or pair with a real bracket and hide one level each (the text is then
    composed as before: safe, only not as fast to refuse).
    """
    if _DEEP_BLOCK_SUSPECT.match("\n" + text[: _SUSPECT_DEPTH + 1]):
        return True
    if _DEEP_BLOCK_SUSPECT.search(text):
        return True
    brackets = text.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    for _ in range(_SUSPECT_DEPTH):
        before = len(brackets)
        for pair in _PAIRS:
            brackets = brackets.replace(pair, b"")
        if not brackets:
            return False
        if len(brackets) == before:  # no pair left: ``]]}[[{``, openers never closed
            return brackets.count(b"[") + brackets.count(b"{") >= _SUSPECT_DEPTH
    return True


def _error(message: str, path: Any, mark: Any) -> InputError:
    line = mark.line + 1 if mark is not None else None
    return InputError(message, path=path, line=line)


def _too_deep(path: Any, mark: Any) -> InputError:
    return _error(f"nested more than {MAX_DEPTH} levels deep (the limit)", path, mark)


def _too_many_aliases(path: Any, mark: Any) -> InputError:
    return _error(
        f"YAML aliases expand to more than {MAX_ALIAS_NODES:,} items (the limit; an alias bomb?)",
        path,
        mark,
    )


def _check_events(loader: Any, path: Any) -> None:
    """Walk the event stream (libyaml's parser does not recurse) and refuse a document that
    nests beyond :data:`MAX_DEPTH` before the composer ever sees it."""
    depth = 0
    while loader.check_event():
        event = loader.get_event()
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise _too_deep(path, event.start_mark)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _walk_events(text: str, path: Any, loader_class: type[Any]) -> None:
    probe = loader_class(text)
    try:
        _check_events(probe, path)
    finally:
        probe.dispose()


def syntax_error(exc: yaml.YAMLError, path: Any, prefix: str = "YAML syntax error") -> InputError:
    """Any PyYAML error as one line naming the file and line (``ReaderError`` has no mark:
    its position, a character offset, is turned into a line by the caller's text)."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        return _error(f"{prefix}: {exc.problem or 'invalid YAML'}", path, mark)
    if isinstance(exc, yaml.reader.ReaderError):
        char = exc.character
        code = ord(char) if isinstance(char, str) else int(char)
        shown = f"U+{code:04X}"
        return InputError(
            f"{prefix}: character {shown} is not allowed in YAML (escape it inside double quotes)",
            path=path,
            line=getattr(exc, "line", None),
        )
    return InputError(f"{prefix}: {exc}", path=path)


def _reader_line(text: str, exc: yaml.reader.ReaderError) -> None:
    exc.line = text.count("\n", 0, max(0, exc.position)) + 1  # type: ignore[attr-defined]


def _compose_here(text: str, loader_class: type[Any]) -> yaml.Node | None:
    loader = loader_class(text)
    try:
        node: yaml.Node | None = loader.get_single_node()
    finally:
        loader.dispose()
    return node


def _compose_in_thread(text: str, loader_class: type[Any]) -> yaml.Node | bool | None:
    """Compose on a thread with a stack deep enough for :data:`_THREAD_DEPTH` levels (the
    caller's own stack may be a worker thread's few megabytes); errors are re-raised here.
    ``False`` when no such thread can be made (the caller checks the events instead)."""
    result: list[Any] = []

    def run() -> None:
        try:
            result.append(_compose_here(text, loader_class))
        except BaseException as exc:  # handed to the caller
            result.append(exc)

    with _STACK_LOCK:
        try:
            previous = threading.stack_size(_COMPOSER_STACK)
        except (ValueError, RuntimeError):  # a platform without settable stacks
            return False
        try:
            thread = threading.Thread(target=run, name="yaml-compose", daemon=True)
            thread.start()
        finally:
            threading.stack_size(previous)
    thread.join()
    if isinstance(result[0], BaseException):
        raise result[0]
    node: yaml.Node | None = result[0]
    return node


_STACK_LOCK = threading.Lock()


def compose(
    text: str, path: Any, loader_class: type[Any] = SafeLoader, prefix: str = "YAML syntax error"
) -> yaml.Node | None:
    """The single document's node tree, nesting checked; every error is an :class:`InputError`.

    Aliases are not expanded here (they share nodes) but counted as if they were, so nothing
    built from the tree later can blow up.
    """
    try:
        bound = _nesting_bound(text)
        node: yaml.Node | bool | None = False
        checked = bound > MAX_DEPTH and may_nest_deep(text)
        if checked:
            _walk_events(text, path, loader_class)  # at most MAX_DEPTH levels from here on
        elif _CALLER_DEPTH < bound <= _THREAD_DEPTH:
            node = _compose_in_thread(text, loader_class)
        if node is False:
            if bound > _CALLER_DEPTH and not checked:
                _walk_events(text, path, loader_class)
            node = _compose_here(text, loader_class)
    except yaml.reader.ReaderError as exc:
        _reader_line(text, exc)
        raise syntax_error(exc, path, prefix) from None
    except yaml.YAMLError as exc:
        raise syntax_error(exc, path, prefix) from None
    except RecursionError:  # the pure-Python composer of a PyYAML without libyaml
        raise InputError(
            f"nested more than {MAX_DEPTH} levels deep (the limit)", path=path
        ) from None
    assert not isinstance(node, bool)
    if node is not None and has_aliases(text):
        check_tree(node, path)
    return node


def has_aliases(text: str) -> bool:
    """Whether the text may use aliases at all (most files do not: nothing to count)."""
    return "*" in text and _ALIAS.search(text) is not None


def check_tree(node: yaml.Node, path: Any, *, line_offset: int = 0, depth: int = 1) -> None:
    """Refuse a node tree nesting beyond :data:`MAX_DEPTH` or whose aliases expand beyond
    :data:`MAX_ALIAS_NODES`. Iterative, and each shared node is sized once."""
    sizes: dict[int, int] = {}
    seen: set[int] = set()
    repeated = 0
    # (node, depth, children pushed?) ; sizes are computed on the way back up
    stack: list[tuple[yaml.Node, int, bool]] = [(node, depth, False)]
    while stack:
        current, depth, expanded = stack.pop()
        key = id(current)
        if isinstance(current, yaml.ScalarNode):
            if key in seen:
                repeated += 1
            seen.add(key)
            sizes[key] = 1
            continue
        if expanded:
            children = _children(current)
            sizes[key] = 1 + sum(sizes[id(child)] for child in children)
            continue
        if key in seen:  # an alias of a collection: it repeats everything below it
            if key not in sizes:
                raise _error(
                    "a YAML alias refers to the list or mapping that contains it",
                    path,
                    _shift(current.start_mark, line_offset),
                )
            repeated += sizes[key]
            if repeated > MAX_ALIAS_NODES:
                raise _too_many_aliases(path, _shift(current.start_mark, line_offset))
            continue
        seen.add(key)
        if depth > MAX_DEPTH:
            raise _too_deep(path, _shift(current.start_mark, line_offset))
        stack.append((current, depth, True))
        stack.extend((child, depth + 1, False) for child in _children(current))
    if repeated > MAX_ALIAS_NODES:  # pragma: no cover - caught above for collections
        raise _too_many_aliases(path, _shift(node.start_mark, line_offset))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


class _Mark:
    def __init__(self, line: int) -> None:
        self.line = line


def _shift(mark: Any, offset: int) -> Any:
    return _Mark(mark.line + offset) if mark is not None else None


def construct(node: yaml.Node, path: Any, *, line_offset: int = 0, depth: int = 1) -> Any:
    """Python data for free-form YAML (``extra``, metadata), within both limits; ``depth`` is
    the node's level in its document (the root is 1)."""
    check_tree(node, path, line_offset=line_offset, depth=depth)
    try:
        return yaml.constructor.SafeConstructor().construct_document(node)
    except yaml.YAMLError as exc:
        raise syntax_error(exc, path, "cannot read value") from None
    except ValueError as exc:  # an integer of over 4,300 digits, a date out of range
        raise _error(f"cannot read value: {exc}".split(";")[0], path, node.start_mark) from None


MAX_KEY_CHARS = 1024
"""YAML's limit on a plain (implicit) mapping key; a longer key would not read back."""


def long_key_error(value: Any, path: Any, line: int | None, field: str | None) -> InputError | None:
    """An error for a mapping key in free-form data (``extra``...) longer than
    :data:`MAX_KEY_CHARS` or not text a file can hold: such a suite could not be saved."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, sub in item.items():
                text = str(key)
                if len(text) > MAX_KEY_CHARS:
                    return InputError(
                        f"a key of {len(text):,} characters ({text[:20]!r}...); keys are "
                        f"limited to {MAX_KEY_CHARS:,}",
                        path=path,
                        line=line,
                        field=field,
                    )
                stack.append(sub)
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return None


def load(text: str, path: Any, prefix: str = "YAML syntax error") -> Any:
    """``yaml.safe_load`` with the limits: for settings and other small free-form files."""
    node = compose(text, path, prefix=prefix)
    return None if node is None else construct(node, path)
