"""The core never imports Textual: each module outside ``nlu_tui.ui`` is checked in a subprocess."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import nlu_tui

UI_MODULES = ("nlu_tui.ui", "nlu_tui.cli.tui")


def core_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(nlu_tui.__path__, "nlu_tui."):
        if info.name.startswith(UI_MODULES):
            continue
        names.append(info.name)
    return sorted(names)


def test_core_modules_exist() -> None:
    assert "nlu_tui.model" in core_modules()


def test_core_does_not_import_textual() -> None:
    modules = core_modules()
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"core pulled in Textual: {out.stdout}"


def test_cli_help_does_not_import_textual_or_sklearn() -> None:
    code = (
        "import sys\n"
        "from nlu_tui.cli.main import build_parser\n"
        "build_parser()\n"
        "heavy = [m for m in ('textual', 'sklearn', 'numpy') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_data_dir_before_a_command_runs_the_command(tmp_path: Path) -> None:
    """``nlu-tui --data-dir DIR runs`` lists runs; it must not open DIR as a workspace."""
    out = subprocess.run(
        [sys.executable, "-m", "nlu_tui", "--data-dir", str(tmp_path / "d"), "runs"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "no runs yet" in out.stdout
    assert not (tmp_path / "runs").exists()
