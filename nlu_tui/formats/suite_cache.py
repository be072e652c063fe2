"""Parsed-suite cache: a big suite that has not changed on disk opens without parsing YAML.

Entries live in ``<data dir>/cache/suites/<sha256 of the file>.pickle``: the same digest that
guards saves against conflicting edits, so any change to the file misses the cache. Each entry
starts with a stamp of this module's version and of the source of the model, the native readers
and this module, so a schema or parser change invalidates every entry. Only the newest
:data:`MAX_ENTRIES` are kept.

An entry holds plain data only (one tuple of texts, numbers and lists per case; kinds as their
names), pickled without a memo: writing 100,000 cases that way takes about a quarter of the
CPU time of pickling the model's objects (0.3 s instead of 1.1-1.4 s), which the first load of a
big suite waits for; reading them back and building the objects costs a little more than
unpickling the objects did (about 0.75 s instead of 0.65 s: without a memo each repeated word
is read as a new string). It is read with an unpickler that accepts no class but the date types
YAML produces (in free-form data), so a planted entry cannot run anything; anything unreadable
or of the wrong shape is ignored (and rewritten).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import os
import pickle
from functools import lru_cache
from pathlib import Path
from typing import Any

from nlu_tui import model, paths
from nlu_tui.fileio import atomic_write_bytes
from nlu_tui.formats.native_reader import suite_stem
from nlu_tui.gcpause import gc_paused
from nlu_tui.model import Suite, TestCase

CACHE_VERSION = 2
MIN_BYTES = 256 * 1024
"""Smaller suites parse in well under a tenth of a second; caching them would only add files."""
MAX_ENTRIES = 8
_MAGIC = b"nlu-tui suite cache\n"
_ALLOWED = {
    ("datetime", "date"),
    ("datetime", "datetime"),
    ("datetime", "timedelta"),
    ("datetime", "timezone"),
}


def cache_dir() -> Path:
    return paths.data_dir() / "cache" / "suites"


def entry_path(digest: str) -> Path:
    return cache_dir() / f"{digest}.pickle"


@lru_cache(maxsize=1)
def stamp() -> bytes:
    """Changes whenever the cached objects' shape or the parser that made them changes."""
    h = hashlib.sha256(f"{CACHE_VERSION}\0{pickle.HIGHEST_PROTOCOL}".encode())
    here = Path(__file__).parent
    # the sources of the model and of the parser (read as files: the parser imports this module)
    sources = ("native.py", "native_reader.py", "native_fast.py", "suite_cache.py")
    for source in (Path(str(model.__file__)), *(here / name for name in sources)):
        try:
            h.update(source.read_bytes())
        except OSError:  # no readable source (a frozen build): the field list still counts
            h.update(repr([f.name for f in dataclasses.fields(model.TestCase)]).encode())
    return h.hexdigest().encode() + b"\n"


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a suite cache")
        return super().find_class(module, name)


def get(digest: str, path: Path) -> Suite | None:
    """The cached suite for a file with this digest (named for ``path``), or None."""
    entry = entry_path(digest)
    try:
        blob = entry.read_bytes()
    except OSError:
        return None
    head = _MAGIC + stamp()
    if not blob.startswith(head):
        return None
    try:
        with gc_paused(promote=True):
            loaded = _Unpickler(io.BytesIO(blob[len(head) :])).load()
            stored_digest, name_from_path, rows = loaded
            if stored_digest != digest:
                return None
            suite = _decode(rows)
    except Exception:  # a torn, foreign or misshapen entry is a miss, never an error
        return None
    if name_from_path:
        suite.name = suite_stem(path)
    with contextlib.suppress(OSError):
        os.utime(entry)  # most recently used: kept longest
    return suite


def put(digest: str, suite: Suite, name_from_path: bool) -> None:
    """Store a freshly parsed suite; failures (read-only disk, full disk) are ignored."""
    try:
        with gc_paused():
            out = io.BytesIO()
            pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
            pickler.fast = True  # no memo: each row is written out (shared values are rare)
            pickler.dump((digest, name_from_path, _encode(suite)))
        atomic_write_bytes(entry_path(digest), _MAGIC + stamp() + out.getbuffer())
        prune()
    except (OSError, pickle.PicklingError, ValueError, RecursionError):
        pass  # ValueError: free-form data that refers to itself (fast mode refuses cycles)


CASE_FIELDS = (
    "utterance",
    "intents",
    "traits",
    "parent_intents",
    "entities",
    "entity_order",
    "tags",
    "id",
    "extra",
    "line",
    "raw_checks",
    "origin",
)
"""The fields of :class:`nlu_tui.model.TestCase`, in the order of an entry's case rows."""
ENTITY_FIELDS = (
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
"""The fields of :class:`nlu_tui.model.ExpectedEntity`, in the order of an entry's entity rows."""
_INTENT_KINDS: dict[str | None, model.IntentKind | None] = {k.value: k for k in model.IntentKind}
_INTENT_KINDS[None] = None
_VALUE_KINDS = {k.value: k for k in model.ValueKind}
_VALUE_NAMES = {k: k.value for k in model.ValueKind}


def _encode(suite: Suite) -> tuple[Any, ...]:
    cases = [
        (
            c.utterance,
            [(i.name, None if i.kind is None else i.kind.value, i.bot) for i in c.intents],
            c.traits,
            c.parent_intents,
            [_entity_row(e) for e in c.entities],
            c.entity_order,
            c.tags,
            c.id,
            c.extra,
            c.line,
            c.raw_checks,
            c.origin,
        )
        for c in suite.cases
    ]
    return suite.name, suite.description, suite.training, suite.extra, cases


def _entity_row(e: model.ExpectedEntity) -> tuple[Any, ...]:
    """An entity as the values of :data:`ENTITY_FIELDS`, its kind by name."""
    return (
        e.name,
        e.value,
        _VALUE_NAMES[e.kind],
        e.alternatives,
        e.text,
        e.start,
        e.end,
        e.match_index,
        e.role,
        e.group,
        e.json_value,
    )


def _decode(rows: tuple[Any, ...]) -> Suite:
    """The suite from an entry's rows; any wrong shape raises (the caller's miss)."""
    name, description, training, extra, cases = rows
    intent_kinds, value_kinds = _INTENT_KINDS, _VALUE_KINDS
    entity, intent = model.ExpectedEntity, model.ExpectedIntent
    suite = Suite(
        name,
        description,
        [
            TestCase(
                utterance,
                [intent(n, intent_kinds[k], b) for n, k, b in intents],
                traits,
                parents,
                [entity(n, v, value_kinds[k], *more) for n, v, k, *more in entities],
                order,
                tags,
                case_id,
                case_extra,
                line,
                checks,
                origin,
            )
            for (
                utterance,
                intents,
                traits,
                parents,
                entities,
                order,
                tags,
                case_id,
                case_extra,
                line,
                checks,
                origin,
            ) in cases
        ],
        training,
        extra,
    )
    if not isinstance(name, str) or not all(isinstance(c.utterance, str) for c in suite.cases):
        raise TypeError("not a suite")
    return suite


def prune(keep: int | None = None) -> None:
    """Remove all but the ``keep`` (default :data:`MAX_ENTRIES`) most recently used entries."""
    keep = MAX_ENTRIES if keep is None else keep
    try:
        entries = [(p.stat().st_mtime, p) for p in cache_dir().glob("*.pickle")]
    except OSError:
        return
    entries.sort(reverse=True)
    for _, stale in entries[keep:]:
        with contextlib.suppress(OSError):
            stale.unlink()


def clear() -> int:
    """Remove every entry; returns how many there were."""
    count = 0
    for entry in cache_dir().glob("*.pickle"):
        with contextlib.suppress(OSError):
            entry.unlink()
            count += 1
    return count
