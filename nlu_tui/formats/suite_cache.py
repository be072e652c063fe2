"""Parsed-suite cache: a big suite that has not changed on disk opens without parsing YAML.

Entries live in ``<data dir>/cache/suites/<sha256 of the file>.pickle``: the same digest that
guards saves against conflicting edits, so any change to the file misses the cache. Each entry
starts with a stamp of this module's version and of the source of the model and the native
reader, so a schema or parser change invalidates every entry. Only the newest
:data:`MAX_ENTRIES` are kept. Entries are read with an unpickler that accepts only the model's
classes and the date types YAML produces; anything unreadable is ignored (and rewritten).
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
from nlu_tui.model import Suite

CACHE_VERSION = 1
MIN_BYTES = 256 * 1024
"""Smaller suites parse in well under a tenth of a second; caching them would only add files."""
MAX_ENTRIES = 8
_MAGIC = b"nlu-tui suite cache\n"
_ALLOWED = {
    ("nlu_tui.model", "Suite"),
    ("nlu_tui.model", "TestCase"),
    ("nlu_tui.model", "ExpectedIntent"),
    ("nlu_tui.model", "ExpectedEntity"),
    ("nlu_tui.model", "IntentKind"),
    ("nlu_tui.model", "ValueKind"),
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
    for source in (Path(str(model.__file__)), here / "native.py", here / "native_reader.py"):
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
        stored_digest, name_from_path, suite = loaded
    except Exception:  # a torn or foreign entry is a miss, never an error
        return None
    if stored_digest != digest or not isinstance(suite, Suite):
        return None
    if name_from_path:
        suite.name = suite_stem(path)
    with contextlib.suppress(OSError):
        os.utime(entry)  # most recently used: kept longest
    return suite


def put(digest: str, suite: Suite, name_from_path: bool) -> None:
    """Store a freshly parsed suite; failures (read-only disk, full disk) are ignored."""
    bare = dataclasses.replace(suite, path=None, loaded_digest=None)
    try:
        with gc_paused(promote=True):
            blob = pickle.dumps((digest, name_from_path, bare), protocol=pickle.HIGHEST_PROTOCOL)
        atomic_write_bytes(entry_path(digest), _MAGIC + stamp() + blob)
        prune()
    except (OSError, pickle.PicklingError):
        pass


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
