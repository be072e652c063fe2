"""Counts as people read them: "1 run", "2 runs", "0 cases" (the screens said "1 runs")."""

from __future__ import annotations


def counted(n: int, thing: str, plural: str | None = None) -> str:
    """``n`` and ``thing``, singular for exactly one and plural otherwise (``plural``, else
    ``thing`` with an "s"): ``counted(1, "run")`` is "1 run", ``counted(0, "run")`` "0 runs"."""
    return f"{n} {thing if n == 1 else (plural or thing + 's')}"
