"""What ``nlu-tui plugins`` shows: every engine type and format, where it comes from, and,
when asked, whether it loads (the faces call :func:`list_plugins`)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nlu_tui import plugins
from nlu_tui.errors import NluTuiError


@dataclass
class PluginRow:
    group: str
    name: str
    value: str
    distribution: str
    builtin: bool
    problem: str | None = None
    """With ``check``: why it does not load (one line), else None."""


@dataclass
class PluginReport:
    rows: list[PluginRow] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    """Entry points left out (a clash, an unusable name), one line each."""

    @property
    def broken(self) -> list[PluginRow]:
        return [row for row in self.rows if row.problem is not None]


def list_plugins(check: bool = False) -> PluginReport:
    """Every engine type and format (built-ins first); ``check`` imports each one."""
    from nlu_tui.engines.base import ENGINE_GROUP, engine_factory, engine_plugins
    from nlu_tui.formats.registry import FORMAT_GROUP, format_module, format_plugins

    report = PluginReport()
    groups: list[tuple[str, Callable[[], dict[str, plugins.Plugin]], Callable[[str], Any]]] = [
        (ENGINE_GROUP, engine_plugins, engine_factory),
        (FORMAT_GROUP, format_plugins, format_module),
    ]
    plugins.refresh()  # a fresh look, and every clash warned about again
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", plugins.PluginWarning)
        found = [(group, listing(), load) for group, listing, load in groups]
    report.ignored = [
        str(w.message) for w in caught if issubclass(w.category, plugins.PluginWarning)
    ]
    for group, entries, load in found:
        for plugin in entries.values():
            row = PluginRow(group, plugin.name, plugin.value, plugin.distribution, plugin.builtin)
            if check:
                try:
                    load(plugin.name)
                except NluTuiError as exc:
                    row.problem = str(exc)
            report.rows.append(row)
    return report
