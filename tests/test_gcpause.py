"""Pausing the cyclic collector while reading suites (``nlu_tui.gcpause``), next to objects
parked outside it for the process's life (the workbench after start-up, a CLI run)."""

from __future__ import annotations

import gc

import pytest

from nlu_tui import gcpause
from nlu_tui.formats.native import load_suite
from tests.conftest import SAMPLES

SUITE = SAMPLES / "banking_bot.suite.yaml"


@pytest.fixture
def no_freeze_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """``gc.get_freeze_count`` walks every parked object (~25 ms a million): a read must not
    ask it (it did on every suite chunk, and the workbench parks its whole start-up)."""

    def walked() -> int:
        raise AssertionError("gc.get_freeze_count() walked the parked objects")

    monkeypatch.setattr(gc, "get_freeze_count", walked)


def test_a_read_after_parking_leaves_the_parked_objects_parked(no_freeze_count: None) -> None:
    kept = [{"parked": [n]} for n in range(1000)]
    try:
        gcpause.park_long_lived()
        assert gcpause.is_parked()
        assert load_suite(SUITE).cases
        # still out of the collector's generations: the promote splice (freeze + unfreeze)
        # would have put them back
        assert not any(o is kept[0] for o in gc.get_objects())
    finally:
        gcpause.release_parked()
    assert not gcpause.is_parked()
    assert any(o is kept[0] for o in gc.get_objects())


def test_a_read_with_nothing_parked_promotes_what_it_built(no_freeze_count: None) -> None:
    assert not gcpause.is_parked()
    suite = load_suite(SUITE)
    # promoted to the oldest generation on the way out, not frozen
    assert any(o is suite.cases[0] for o in gc.get_objects(generation=2))
    assert gc.isenabled()
