"""The kinds of run: each a strategy for the run kernel, found through entry points.

A kind of run (``suite``, ``e2e``, ``stories``, ``dut``, ``simulate``, or one a plug-in adds) is described by
a :class:`RunKindInfo`: its name (the ``kind`` its runs are stored with), what it tests, the
strategy class the run kernel drives (:class:`nlu_tui.runner.kernel.RunKind`) and the command
that starts it. Kinds are registered in the entry-point group ``nlu_tui.run_kinds``; nlu-tui's
own are also in :data:`BUILTIN_RUN_KINDS` (see :func:`nlu_tui.plugins.load_group`). Nothing is
imported until a kind is asked for (:func:`run_kind`). See ``docs/development/run-kernel.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nlu_tui.errors import InputError

GROUP = "nlu_tui.run_kinds"

BUILTIN_RUN_KINDS = {
    "suite": "nlu_tui.runner.run:SUITE_RUN_KIND",
    "e2e": "nlu_tui.conversation.service:E2E_RUN_KIND",
    "stories": "nlu_tui.conversation.service:STORIES_RUN_KIND",
    "dut": "nlu_tui.dut.kind:DUT_RUN_KIND",
    "simulate": "nlu_tui.conversation.simulate:SIMULATE_RUN_KIND",
}
"""The built-in kinds, as ``pyproject.toml`` declares them (a test keeps the two equal)."""


@dataclass(frozen=True)
class RunKindInfo:
    """One kind of run, as the registry lists it."""

    name: str
    """The ``kind`` its runs are stored with."""
    title: str
    """What it tests, in a few words (listings, ``nlu-tui plugins``)."""
    strategy: type[Any]
    """The class the run kernel drives (:class:`nlu_tui.runner.kernel.RunKind`)."""
    command: str
    """The command that starts a run of this kind."""


def _check(found: Any) -> str | None:
    if not isinstance(found, RunKindInfo):
        return "is not a nlu_tui.run_kinds.RunKindInfo"
    missing = [
        name
        for name in ("prepare", "work", "send", "failed", "arrive", "take_writes", "finish")
        if not callable(getattr(found.strategy, name, None))
    ]
    return f"has a strategy without {', '.join(missing)}" if missing else None


def run_kind_names() -> list[str]:
    """Every known kind's name, built-ins first (imports no kind)."""
    from nlu_tui.plugins import load_group

    return list(load_group(GROUP, BUILTIN_RUN_KINDS))


def run_kind(name: str) -> RunKindInfo:
    """The kind called ``name`` (its module imported now); InputError if none is."""
    from nlu_tui.plugins import load_group

    plugins = load_group(GROUP, BUILTIN_RUN_KINDS)
    if name not in plugins:
        raise InputError(f"unknown run kind {name!r}; known: {', '.join(plugins)}", field="kind")
    info: RunKindInfo = plugins[name].load(_check)
    return info
