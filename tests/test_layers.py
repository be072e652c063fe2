"""The import-linter contracts of pyproject.toml (layers, no Textual or Rich in the core, what
engines may import, no import cycles) hold, so `make test` checks them as `make lint` does.

The graph includes function-local imports: a lazy import that reaches up a layer fails too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(root))
    code = "import sys; from importlinter.cli import lint_imports_command; lint_imports_command()"
    return subprocess.run(
        [sys.executable, "-c", code, "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_import_contracts_are_kept() -> None:
    done = _lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 5 kept, 0 broken." in done.stdout


def test_the_layers_and_the_engines_hold_without_exceptions() -> None:
    """The layers contract lists no ignored import, and no contract lets an engine reach up: the
    DU command model the command-predicting engines use sits below them
    (``nlu_tui/dialogue_understanding``), not in the DUT service."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "importlinter"
    ]["contracts"]
    by_id = {contract["id"]: contract for contract in contracts}
    assert by_id["layers"].get("ignore_imports", []) == []
    from_engines = [
        (contract["id"], entry)
        for contract in contracts
        for entry in contract.get("ignore_imports", [])
        if entry.startswith("nlu_tui.engines")
    ]
    assert from_engines == []


def test_an_upward_import_breaks_the_layers(tmp_path: Path) -> None:
    """A copy of the package where an engine lazily imports the workbench: the contracts fail."""
    copy = tmp_path / "tree"
    shutil_copy(ROOT, copy)
    engine = copy / "nlu_tui" / "engines" / "wit.py"
    engine.write_text(
        engine.read_text(encoding="utf-8")
        + "\n\ndef _upward() -> None:\n    import nlu_tui.ui.app  # noqa: F401\n",
        encoding="utf-8",
    )
    done = _lint_imports(copy)
    assert done.returncode != 0
    assert "nlu_tui.engines.wit -> nlu_tui.ui.app" in done.stdout


def shutil_copy(root: Path, target: Path) -> None:
    import shutil

    target.mkdir()
    shutil.copytree(
        root / "nlu_tui", target / "nlu_tui", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copyfile(root / "pyproject.toml", target / "pyproject.toml")
