"""The light install of ``make start`` (docs/guides/install.md, bench/README.md "Install").

The runtime venv is byte-compiled by ``compileall -x COMPILE_SKIP`` (the Makefile): every module
but the libraries' own test suites. The pins that ``make lock`` holds back for size
(``LOCK_HOLD``) are the ones both locks carry, and within what the libraries that need them ask.
"""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]
MAKEFILE = (REPO / "Makefile").read_text(encoding="utf-8")


def _make_variable(name: str) -> str:
    match = re.search(rf"^{name} [:?]?= (.+)$", MAKEFILE, re.MULTILINE)
    assert match, f"the Makefile defines no {name}"
    return match.group(1).strip()


def _lock(name: str) -> dict[str, str]:
    out = {}
    for line in (REPO / name).read_text(encoding="utf-8").splitlines():
        package, sep, version = line.partition("==")
        if sep and not line.startswith("#"):
            out[package.strip().lower()] = version.strip()
    return out


def test_the_runtime_venv_compiles_everything_but_test_suites(tmp_path: Path) -> None:
    """Run the Makefile's compileall exclusion on a tree shaped like site-packages: modules
    (``testing``, ``_testutils``, ``contest`` included) get their .pyc, files in ``tests/`` or
    ``test/`` folders do not."""
    skip = _make_variable("COMPILE_SKIP")
    assert skip.startswith("'") and skip.endswith("'"), skip  # one shell word, taken literally
    lib = tmp_path / "lib" / "site-packages"
    compiled = ["pkg/__init__.py", "pkg/testing.py", "pkg/_testutils.py", "pkg/contest/mod.py"]
    skipped = ["pkg/tests/__init__.py", "pkg/tests/test_mod.py", "pkg/sub/test/test_x.py"]
    for relative in compiled + skipped:
        (lib / relative).parent.mkdir(parents=True, exist_ok=True)
        (lib / relative).write_text("X = 1\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "-x", skip[1:-1], str(tmp_path / "lib")],
        check=True,
        timeout=60,
    )
    have = {
        str(pyc.parent.parent.relative_to(lib) / pyc.name.split(".")[0]) + ".py"
        for pyc in lib.rglob("*.pyc")
    }
    assert have == set(compiled)


def test_the_held_pins_are_in_both_locks_and_within_their_dependents_range() -> None:
    """``make lock`` keeps LOCK_HOLD's versions (pyarrow 23.0.1: 21 MB less than 26); both
    locks carry them, and the packages that depend on them accept them."""
    holds = _make_variable("LOCK_HOLD").split()
    assert holds, "LOCK_HOLD is empty"
    full, runtime = _lock("requirements.lock"), _lock("requirements-runtime.lock")
    for hold in holds:
        name, _, version = hold.partition("==")
        assert full.get(name) == version, f"requirements.lock does not hold {hold}"
        assert runtime.get(name) == version, f"requirements-runtime.lock does not hold {hold}"
    pyarrow = next(hold for hold in holds if hold.startswith("pyarrow=="))
    wanted = [
        Requirement(text)
        for text in requires("textual-fastdatatable") or []
        if Requirement(text).name == "pyarrow"
    ]
    assert wanted, "textual-fastdatatable no longer requires pyarrow"
    for requirement in wanted:
        for python in ("3.11", "3.12", "3.13", "3.14"):
            env = {"python_version": python, "sys_platform": "linux", "extra": ""}
            if requirement.marker is None or requirement.marker.evaluate(env):
                assert requirement.specifier.contains(pyarrow.partition("==")[2]), (
                    f"textual-fastdatatable wants {requirement} on Python {python}"
                )
