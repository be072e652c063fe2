"""After a run ends in the workbench, the garbage it left is collected at once, in one full
pass (``run_launch.collect_run_garbage``), instead of by the collector's own next full pass
inside a later key (issue 23, item 5: fast keys); only where start-up's objects are parked."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from nlu_tui import gcpause
from nlu_tui.ui.widgets.run_launch import collect_run_garbage


@pytest.fixture
def full_passes() -> Iterator[list[int]]:
    """The generations of the collections that start while the test runs."""
    seen: list[int] = []

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(callback)
    try:
        yield seen
    finally:
        gc.callbacks.remove(callback)


def _cycles(n: int) -> None:
    """``n`` unreachable cycles, as a finished run's runner and rows leave."""
    for _ in range(n):
        a: dict[str, Any] = {}
        b: dict[str, Any] = {"a": a}
        a["b"] = b


def test_a_parked_workbench_collects_a_runs_garbage_when_it_ends(full_passes: list[int]) -> None:
    try:
        gcpause.park_long_lived()
        gc.disable()  # no collection of the collector's own meanwhile
        _cycles(1000)
        gc.enable()
        full_passes.clear()
        collect_run_garbage()
        assert 2 in full_passes
        assert gc.collect() == 0  # nothing of the cycles was left
    finally:
        gc.enable()
        gcpause.release_parked()


def test_an_app_that_parked_nothing_leaves_the_collector_alone(full_passes: list[int]) -> None:
    assert not gcpause.is_parked()
    collect_run_garbage()
    assert 2 not in full_passes
