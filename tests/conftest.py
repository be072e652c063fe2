"""Shared fixtures: every test gets its own data and config directories."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
DATASETS = SHARED / "datasets"
SAMPLES = REPO / "sample_suites"


@pytest.fixture(autouse=True)
def _isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path_factory.mktemp("nlu-tui-home")
    monkeypatch.setenv("NLU_TUI_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("NLU_TUI_CONFIG_DIR", str(base / "config"))


def dataset(*parts: str) -> Path:
    """A file under shared/datasets, or skip the test when the folder is absent."""
    path = DATASETS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"dataset not available: {path}")
    return path
