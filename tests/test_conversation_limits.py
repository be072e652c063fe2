"""Over-deep and over-long conversation files are refused at read, quickly.

A 60 KB file nested 30,000 deep took 25–41 s to be refused as E2E, stories or DUT (libyaml's
scanner is quadratic in flow nesting, and the whole tree was composed before any check); now
the nesting is checked on the event stream, which stops at the first level past the limit.
A test case of 200,000 steps ran against the engine for minutes; now it is refused at read.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from nlu_tui.errors import InputError
from nlu_tui.formats import e2e_cases, native, rasa_stories
from nlu_tui.jsonfile import MAX_DEPTH

LEVELS = 30_000


def _deep(shape: str, levels: int, indent: int) -> str:
    """``levels`` nested lists: ``[[...]]`` (60 KB for 30,000), or block lists written on one
    line (``- - - x``) under the key, indented ``indent`` spaces."""
    if shape == "flow":
        return "[" * levels + "]" * levels
    return "\n" + " " * indent + "- " * levels + "x"


def _read_dut(path: Path) -> Any:
    from nlu_tui.dialogue_understanding.commands import CommandSpec
    from nlu_tui.dut.reader import read_dut

    return read_dut(path, CommandSpec())


READERS: dict[str, tuple[str, str, int, Callable[[Path], Any]]] = {
    # name: (file name, text around {deep}, indentation of a block under its key, reader)
    "e2e": (
        "deep.e2e.yml",
        "test_cases:\n- test_case: t\n  steps:\n  - user: hi\n  - slot_was_set:\n    - x: {deep}\n",
        8,
        e2e_cases.read_path,
    ),
    "dut": (
        "deep.dut.yml",
        "test_cases:\n- test_case: t\n  steps:\n  - user: hi\n    commands: {deep}\n",
        6,
        _read_dut,
    ),
    "stories": (
        "deep.stories.yml",
        "stories:\n- story: s\n  steps:\n  - intent: greet\n  - slot_was_set:\n    - x: {deep}\n",
        8,
        rasa_stories.read_path,
    ),
    "suite": (
        "deep.suite.yaml",
        "nlu_tui_suite: 1\nname: d\ncases:\n- utterance: hi\n  extra:\n    a: {deep}\n",
        6,
        native.load_suite,
    ),
}


@pytest.mark.parametrize("shape", ["flow", "block"])
@pytest.mark.parametrize("kind", list(READERS))
def test_30000_deep_files_are_refused_within_1_s(tmp_path: Path, kind: str, shape: str) -> None:
    name, template, indent, read = READERS[kind]
    shallow = template.replace("{deep}", _deep(shape, 3, indent))
    assert yaml.safe_load(shallow)  # the same shape, three levels deep, is valid YAML
    path = tmp_path / name
    path.write_text(template.replace("{deep}", _deep(shape, LEVELS, indent)), encoding="utf-8")
    started = time.perf_counter()
    with pytest.raises(InputError) as refused:
        read(path)
    took = time.perf_counter() - started
    assert f"nested more than {MAX_DEPTH} levels deep" in str(refused.value)
    assert str(path) in str(refused.value) and refused.value.line is not None
    assert took < 1.0, f"{kind} ({shape}) refused after {took:.2f} s"


def test_a_180_kb_suite_nested_90000_deep_is_refused_within_1_s(tmp_path: Path) -> None:
    path = tmp_path / "deep.suite.yaml"
    levels = 90_000
    path.write_text(
        "nlu_tui_suite: 1\nname: d\ncases:\n- utterance: hi\n  extra:\n    a: "
        + "[" * levels
        + "]" * levels
        + "\n",
        encoding="utf-8",
    )
    started = time.perf_counter()
    with pytest.raises(InputError, match="levels deep"):
        native.load_suite(path)
    assert time.perf_counter() - started < 1.0


def test_quoted_brackets_and_ordinary_nesting_still_read(tmp_path: Path) -> None:
    """The cheap pre-scan only decides whether to walk the events: text full of brackets
    and the deepest nesting allowed still read."""
    path = tmp_path / "ok.e2e.yml"
    path.write_text(
        "test_cases:\n- test_case: t\n  steps:\n  - user: '"
        + "[" * 100
        + "'\n  - slot_was_set:\n    - x: "
        + "[" * 40
        + "]" * 40
        + "\n",
        encoding="utf-8",
    )
    case = e2e_cases.read_path(path).test_cases[0]
    assert case.steps[0].text == "[" * 100


def _e2e_steps(count: int) -> str:
    return "test_cases:\n- test_case: long\n  steps:\n" + "  - user: hi\n" * count


def test_200000_steps_are_refused_at_read(tmp_path: Path) -> None:
    """Through the CLI against an engine that is not there: exit 2 before any request,
    naming the file, the line of step 1,001 and the field."""
    path = tmp_path / "long.e2e.yml"
    path.write_text(_e2e_steps(200_000), encoding="utf-8")
    env = {**os.environ, "NLU_TUI_DATA_DIR": str(tmp_path / "data")}
    env.pop("NLU_TUI_MAX_STEPS", None)
    engine = ["--engine", "rasa:http://127.0.0.1:1", "--retries", "0"]
    ran = subprocess.run(
        [sys.executable, "-m", "nlu_tui", "test", "e2e", str(path), *engine],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert ran.returncode == 2, ran.stderr[-2000:]
    assert (
        f"{path}, line 1004, field 'steps': test case 'long' has 200,000 steps; at most 1,000"
        in ran.stderr
    )
    assert "NLU_TUI_MAX_STEPS" in ran.stderr and "Traceback" not in ran.stderr


def test_the_limits_can_be_raised_and_cover_stories_and_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "long.e2e.yml"
    path.write_text(_e2e_steps(1_500), encoding="utf-8")
    with pytest.raises(InputError, match="1,500 steps; at most 1,000"):
        e2e_cases.read_path(path)
    monkeypatch.setenv("NLU_TUI_MAX_STEPS", "2000")
    assert len(e2e_cases.read_path(path).test_cases[0].steps) == 1_500

    stories = tmp_path / "many.stories.yml"
    stories.write_text(
        "stories:\n" + "".join(f"- story: s{n}\n  steps:\n  - intent: greet\n" for n in range(4)),
        encoding="utf-8",
    )
    monkeypatch.setenv("NLU_TUI_MAX_CASES", "3")
    with pytest.raises(InputError) as refused:
        rasa_stories.read_path(stories)
    assert refused.value.field == "stories" and refused.value.line == 11
    assert "4 stories; at most 3" in str(refused.value)
    cases = tmp_path / "many.e2e.yml"
    cases.write_text(
        "test_cases:\n" + "".join(f"- test_case: t{n}\n  steps:\n  - user: hi\n" for n in range(4)),
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="4 test_cases; at most 3"):
        e2e_cases.read_path(cases)
    monkeypatch.setenv("NLU_TUI_MAX_CASES", "none")
    with pytest.raises(InputError, match="NLU_TUI_MAX_CASES"):
        e2e_cases.read_path(cases)
