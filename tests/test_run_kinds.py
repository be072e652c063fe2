"""The run-kinds registry: every built-in kind is declared in ``pyproject.toml``'s entry-point
group ``nlu_tui.run_kinds`` and in code, loads lazily, and is a strategy the run kernel can
drive; an unknown kind is one clear InputError."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from nlu_tui.errors import InputError
from nlu_tui.run_kinds import BUILTIN_RUN_KINDS, GROUP, RunKindInfo, run_kind, run_kind_names

ROOT = Path(__file__).resolve().parents[1]


def test_pyproject_declares_the_built_in_kinds_as_the_code_does() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["entry-points"][GROUP] == BUILTIN_RUN_KINDS


@pytest.mark.parametrize("name", sorted(BUILTIN_RUN_KINDS))
def test_each_built_in_kind_loads_as_a_kernel_strategy(name: str) -> None:
    info = run_kind(name)
    assert isinstance(info, RunKindInfo) and info.name == name
    for method in ("prepare", "work", "open", "close", "send", "failed", "arrive"):
        assert callable(getattr(info.strategy, method))
    for method in ("take_writes", "finish", "emit", "total"):
        assert callable(getattr(info.strategy, method))


def test_names_are_listed_without_importing_any_kind() -> None:
    code = (
        "import sys; from nlu_tui.run_kinds import run_kind_names; "
        "print(run_kind_names()[:4]); "
        "print(sorted(m for m in sys.modules if m.startswith(('nlu_tui.runner', "
        "'nlu_tui.dut', 'nlu_tui.conversation'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines() == ["['suite', 'e2e', 'stories', 'dut']", "[]"]
    assert run_kind_names()[:4] == ["suite", "e2e", "stories", "dut"]


def test_an_unknown_kind_is_one_clear_error() -> None:
    with pytest.raises(InputError, match="unknown run kind 'nope'; known: suite, e2e"):
        run_kind("nope")
