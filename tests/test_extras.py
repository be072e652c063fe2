"""Optional dependencies: the runtime lock is the core plus ``web``, and a missing extra is one
clear message naming it (exit 2, nothing done).

A package is made missing for real in a child process: ``sys.modules[NAME] = None`` makes every
``import NAME`` fail as it does where the package is not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.runner_loopback import write_suite

REPO = Path(__file__).resolve().parents[1]
EXTRA_PACKAGES = {"botocore", "matplotlib", "sqlalchemy", "psycopg", "psycopg-binary", "pyjwt"}
DEV_TOOLS = {"pytest", "mypy", "ruff", "mkdocs", "hypothesis", "import-linter"}


def _lock(name: str) -> dict[str, str]:
    out = {}
    for line in (REPO / name).read_text(encoding="utf-8").splitlines():
        package, sep, version = line.partition("==")
        if sep and not line.startswith("#"):
            out[package.strip().lower().replace("_", "-")] = version.strip()
    return out


def test_the_runtime_lock_is_the_core_and_web_at_the_full_locks_versions() -> None:
    runtime, full = _lock("requirements-runtime.lock"), _lock("requirements.lock")
    assert runtime and all(full.get(name) == version for name, version in runtime.items())
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = [d for d in project["dependencies"]] + project["optional-dependencies"]["web"]
    for dependency in core:
        name = dependency.split("==")[0].split(">=")[0].split("[")[0].lower()
        assert name in runtime, f"{name} (a core dependency) is not in requirements-runtime.lock"
    assert not (EXTRA_PACKAGES | DEV_TOOLS) & set(runtime)


def _without(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\n"
        f"sys.modules[{module!r}] = None\n"
        "from nlu_tui.__main__ import main\n"
        f"sys.argv = ['nlu-tui', *{list(args)!r}]\n"
        "sys.exit(main())\n"
    )
    env = {**os.environ, "KORE_X": "not-a-real-secret"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=cwd, env=env
    )


@pytest.mark.parametrize(
    ("module", "extra", "profile"),
    [
        (
            "botocore",
            "lex",
            "    type: lex\n    region: eu-west-1\n    bot_id: B\n    bot_alias_id: A\n",
        ),
        (
            "jwt",
            "jwt",
            "    type: kore\n    url: http://127.0.0.1:9\n    bot_id: st-1\n"
            "    client_id: cs-1\n    client_secret: ${KORE_X}\n",
        ),
    ],
)
def test_an_engine_without_its_extra_is_one_line_naming_it(
    tmp_path: Path, module: str, extra: str, profile: str
) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", 2)
    (tmp_path / "engines.yaml").write_text(f"engines:\n  bot:\n{profile}", encoding="utf-8")
    proc = _without(
        module, "--data-dir", str(tmp_path / "data"), "run", str(suite), "-e", "bot", cwd=tmp_path
    )
    assert proc.returncode == 2, proc.stderr
    assert f"pip install 'nlu-tui[{extra}]'" in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())


def test_rasa_plots_without_matplotlib_are_refused_before_the_run(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", 2)
    args = [
        "--data-dir",
        str(tmp_path / "data"),
        "run",
        str(suite),
        "-e",
        "rasa:http://127.0.0.1:9",
    ]
    proc = _without("matplotlib", *args, "--rasa", str(tmp_path / "r"), cwd=tmp_path)
    assert proc.returncode == 2 and "pip install 'nlu-tui[plots]'" in proc.stderr, proc.stderr
    assert "--rasa-no-plot" in proc.stderr and not (tmp_path / "r").exists()


def test_test_nlu_without_matplotlib_is_refused_before_training(tmp_path: Path) -> None:
    """`make start` installs no matplotlib: `test nlu` on the sample bot stops before training,
    not once the folds are trained (as it did), naming the extra and --no-plot."""
    nlu = REPO / "sample_suites" / "banking_bot.nlu.yml"
    args = ["--data-dir", str(tmp_path / "data"), "test", "nlu", "--nlu", str(nlu)]
    args += ["--cross-validation", "--folds", "2"]
    proc = _without("matplotlib", *args, "--out", str(tmp_path / "r"), cwd=tmp_path)
    assert proc.returncode == 2 and "pip install 'nlu-tui[plots]'" in proc.stderr, proc.stderr
    assert "--no-plot" in proc.stderr and "training" not in proc.stderr, proc.stderr
    assert "make extra NAME=plots" in proc.stderr, proc.stderr  # the venv of make start has no pip
    assert proc.stderr.count("\n") == 1 and not (tmp_path / "r").exists()


def test_web_and_a_postgres_store_without_their_extras(tmp_path: Path) -> None:
    web = _without("textual_serve", "web", str(tmp_path), "--port", "8999", cwd=tmp_path)
    assert web.returncode == 2 and "pip install 'nlu-tui[web]'" in web.stderr, web.stderr
    store = _without("psycopg", "--store", "postgresql://u@127.0.0.1:9/x", "runs", cwd=tmp_path)
    assert store.returncode == 2 and "pip install 'nlu-tui[postgres]'" in store.stderr, store.stderr
