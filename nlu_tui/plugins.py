"""Plug-ins: what installed packages add through entry points (engines, file formats, ...).

A distribution declares its plug-ins in its ``pyproject.toml``, one line each::

    [project.entry-points."nlu_tui.engines"]
    keywords = "nlu_keywords:KeywordEngine"

nlu-tui declares its own built-ins the same way, and also keeps them in code (a table per
group, given to :func:`load_group`), so that a source checkout or an install whose metadata
predates a built-in still finds every built-in. See ``docs/development/plugins.md``.

Rules:

- **Lazy.** Discovery reads names from the installed distributions' metadata; a plug-in's
  module is imported only when that plug-in is used (:meth:`Plugin.load`). Even
  ``importlib.metadata`` is imported on first discovery, not at start-up, and a built-in named
  directly (an engine type, a format) is found without discovery (:func:`builtin_plugin`).
- **Built-ins are never overridden.** For a built-in name the in-code table wins (the code that
  runs is the truth; nlu-tui's own metadata may be stale). Another distribution that claims a
  built-in name is ignored, with a :class:`PluginWarning` naming it. When two other
  distributions claim one name, the first found on ``sys.path`` is used (as Python imports
  modules) and the other is named in a warning.
- **One clear line.** A plug-in that fails to import, or does not provide what its group
  expects, raises :class:`PluginError` naming the plug-in, its group and its distribution.

This module sits at the bottom of the layers: it imports nothing of nlu-tui but the errors.
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from nlu_tui.errors import NluTuiError

OWN_DISTRIBUTION = "nlu-tui"
BUILTIN = "nlu-tui (built-in)"
"""The distribution shown for a built-in found in code."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_loaded: dict[tuple[str, str, str], Any] = {}
_warned: set[str] = set()


class PluginError(NluTuiError):
    """A plug-in could not be imported, or does not provide what its group expects."""


class PluginWarning(UserWarning):
    """A plug-in was ignored (a name clash or a name nlu-tui cannot use)."""


@dataclass(frozen=True)
class Plugin:
    """One named entry of a group, not yet imported."""

    name: str
    value: str
    """``module`` or ``module:attribute``, as in an entry point."""
    group: str
    distribution: str
    builtin: bool

    def describe(self) -> str:
        """``plug-in 'keywords' (nlu_tui.engines, from nlu-keywords 0.1)``."""
        return f"plug-in {self.name!r} ({self.group}, from {self.distribution})"

    def load(self, check: Callable[[Any], str | None] | None = None) -> Any:
        """Import the plug-in's object (once); ``check`` returns what is wrong with it, or None.

        Raises PluginError, one line, when the import fails or ``check`` finds a problem.
        """
        key = (self.group, self.name, self.value)
        if key in _loaded:
            return _loaded[key]
        try:
            found = _resolve(self.value)
        except Exception as exc:
            raise PluginError(
                f"{self.describe()} failed to import {self.value}: {type(exc).__name__}: "
                f"{_one_line(str(exc))}"
            ) from exc
        problem = check(found) if check is not None else None
        if problem:
            raise PluginError(f"{self.describe()}: {self.value} {problem}")
        _loaded[key] = found
        return found

    @property
    def loaded(self) -> Any | None:
        """The object if :meth:`load` already imported it, else None (imports nothing)."""
        return _loaded.get((self.group, self.name, self.value))


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "(no message)"


def _resolve(value: str) -> Any:
    """What an entry point's ``module:attr.sub`` names (as ``EntryPoint.load`` does)."""
    module, _, attrs = value.partition(":")
    found: Any = importlib.import_module(module.strip())
    for attr in filter(None, attrs.strip().split(".")):
        found = getattr(found, attr)
    return found


@cache
def _discover(group: str) -> tuple[tuple[str, str, str], ...]:
    """(name, value, distribution) of every entry point of ``group`` on ``sys.path``."""
    # imported here, not at the top: importlib.metadata costs ~50 ms and start-up needs no plug-in
    from importlib.metadata import entry_points

    found = []
    for point in entry_points(group=group):
        dist = getattr(point, "dist", None)
        name = str(dist.metadata["Name"]) if dist is not None else "an unknown distribution"
        version = f" {dist.version}" if dist is not None and dist.version else ""
        found.append((_printable(point.name), point.value, _printable(f"{name}{version}")))
    return tuple(found)


def _printable(text: str) -> str:
    """Metadata is another package's text: no control characters reach a message."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def _is_own(distribution: str) -> bool:
    name = distribution.split(" ", 1)[0]
    return re.sub(r"[-_.]+", "-", name).lower() == OWN_DISTRIBUTION


def _warn(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        # shown as one line, "nlu-tui:0: PluginWarning: ...", not a line of nlu-tui's source
        warnings.warn_explicit(message, PluginWarning, "nlu-tui", 0)


def load_group(group: str, builtins: Mapping[str, str] | None = None) -> dict[str, Plugin]:
    """Every plug-in of ``group`` by name: ``builtins`` (name -> ``module:attr``) first, in
    their order, then other distributions' entry points by name. Imports no plug-in."""
    plugins = {
        name: Plugin(name, value, group, BUILTIN, builtin=True)
        for name, value in (builtins or {}).items()
    }
    others: dict[str, Plugin] = {}
    for name, value, distribution in _discover(group):
        if _is_own(distribution):
            if name not in plugins:  # the in-code table wins: this metadata may be stale
                plugins[name] = Plugin(name, value, group, distribution, builtin=True)
            continue
        plugin = Plugin(name, value, group, distribution, builtin=False)
        if not _NAME.match(name):
            _warn(f"{plugin.describe()} is ignored: a name is letters, digits, '-', '_' or '.'")
        elif name in plugins:
            _warn(
                f"{plugin.describe()} is ignored: {name!r} is a built-in name, which a "
                "plug-in cannot replace; rename its entry point"
            )
        elif name in others:
            _warn(
                f"{plugin.describe()} is ignored: {others[name].distribution} already provides "
                f"{name!r} (first on sys.path); uninstall one of them"
            )
        else:
            others[name] = plugin
    return plugins | dict(sorted(others.items()))


def builtin_plugin(group: str, name: str, builtins: Mapping[str, str]) -> Plugin | None:
    """The entry of built-in ``name`` as :func:`load_group` gives it (the in-code table wins
    over any distribution's metadata), found without discovery; None for any other name.

    Discovery imports ``importlib.metadata`` and reads every installed distribution's entry
    points (~80 ms of CPU): a run on a built-in engine or a built-in file format needs neither.
    """
    value = builtins.get(name)
    return None if value is None else Plugin(name, value, group, BUILTIN, builtin=True)


def refresh() -> None:
    """Forget what was discovered, loaded and warned about (after installing a plug-in into a
    running process); modules already imported stay in ``sys.modules``."""
    _discover.cache_clear()
    _loaded.clear()
    _warned.clear()
    importlib.invalidate_caches()
