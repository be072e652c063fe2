"""The screenshots in docs/images/ are what the workbench draws today (``make screenshots``).

docs/screenshots.py draws them afresh into a temporary folder; each screen's text (run ids,
dates, latencies and the temporary path replaced) must equal the committed ``<name>.txt``, and
the workbench's SVG, whose screen has nothing volatile, must equal the committed one but for the
ids Rich derives from its content. A stale picture fails here: redraw with ``make screenshots``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
IMAGES = REPO / "docs" / "images"
SCREENS = ("workbench", "results")


def _svg(text: str) -> str:
    return re.sub(r"terminal-\d+", "terminal", text)


@pytest.mark.slow
def test_the_committed_screenshots_are_current(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "docs" / "screenshots.py"), "--out", str(tmp_path), "--text"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr
    for name in SCREENS:
        fresh = (tmp_path / f"{name}.txt").read_text(encoding="utf-8")
        committed = (IMAGES / f"{name}.txt").read_text(encoding="utf-8")
        assert fresh == committed, f"docs/images/{name}.svg is stale: run `make screenshots`"
        assert (IMAGES / f"{name}.svg").is_file()
    fresh_svg = (tmp_path / "workbench.svg").read_text(encoding="utf-8")
    committed_svg = (IMAGES / "workbench.svg").read_text(encoding="utf-8")
    assert _svg(fresh_svg) == _svg(committed_svg), "docs/images/workbench.svg is stale"


def test_the_readme_shows_the_workbench_screenshot() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "docs/images/workbench.svg" in readme
