"""Shared fixtures: every test gets its own data and config directories.

Tests run in parallel under pytest-xdist (``make test``), so none may share a port (servers bind
port 0), a folder (``tmp_path``; the data and config directories below) or an environment
variable (``monkeypatch.setenv``) with another.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conversation_peer import BotState

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("NLU_TUI_SHARED") or REPO.parent / "shared")
"""The shared datasets and references (``NLU_TUI_SHARED`` for a checkout elsewhere, e.g. a
git worktree)."""
DATASETS = SHARED / "datasets"
SAMPLES = REPO / "sample_suites"


XDIST_GROUPS = (("rasa", "rasa-peer"), ("tmux", "tmux"))
"""Markers whose tests share one xdist worker under ``--dist loadgroup``: the real Rasa peer is
trained and started once per worker (a module fixture), and the tmux tests, which drive a real
terminal app against timeouts, go one at a time instead of starving each other."""


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook turns groups into node id suffixes
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for marker, group in XDIST_GROUPS:
            if item.get_closest_marker(marker) is not None:
                item.add_marker(pytest.mark.xdist_group(group))
                break


@pytest.fixture(autouse=True)
def _isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path_factory.mktemp("nlu-tui-home")
    monkeypatch.setenv("NLU_TUI_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("NLU_TUI_CONFIG_DIR", str(base / "config"))


@pytest.fixture(autouse=True)
def _collector_as_it_was() -> Iterator[None]:
    """Give every test Python's cyclic collector as the one before found it.

    Commands run in-process (``nlu-tui run`` through ``cli.main``) park what they built outside
    the collector for the rest of their process (``gcpause.park_long_lived``) and raise its
    young threshold, which is right for a process that ends with the run; left in a test worker,
    the parked objects piled up test after test and every collection and freeze count walked
    them (hypothesis tests ran 10 to 60 times slower late in a CI run than alone).
    """
    import gc

    from nlu_tui import gcpause

    threshold = gc.get_threshold()
    enabled = gc.isenabled()
    yield
    gcpause.end_start_up_pause()  # a workbench stopped before its first screen was up
    if gcpause.is_parked() or gc.get_freeze_count():
        gcpause.release_parked()
    gc.set_threshold(*threshold)
    if enabled and not gc.isenabled():
        gc.enable()


def dataset(*parts: str) -> Path:
    """A file under shared/datasets, or skip the test when the folder is absent."""
    path = DATASETS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"dataset not available: {path}")
    return path


@pytest.fixture
def bot() -> Iterator[tuple[BotState, str]]:
    """A Rasa-shaped conversation bot on 127.0.0.1 (tests/conversation_peer.py): its BotState
    (messages received, delay, answers) and its URL."""
    from conversation_peer import BotState, handler_for
    from http_handler_server import serving

    state = BotState()
    with serving(handler_for(state)) as url:
        yield state, url
