"""A bad ``run`` input creates nothing, and a data folder that cannot be written is one line.

``nlu-tui run nonexist.suite.yaml`` used to exit 2 yet leave an empty ``runs.sqlite3`` behind
(the store was opened before the suite was read); a read-only run store ended in a
``sqlite3.OperationalError`` traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"


def _nlu_tui(data: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NLU_TUI_DATA_DIR": str(data)}
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )


def _copy_samples(folder: Path) -> None:
    for name in ("banking_bot.suite.yaml", "banking_bot.nlu.yml"):
        shutil.copy(SAMPLES / name, folder / name)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["run", "nonexist.suite.yaml", "-e", "embedded:banking_bot.nlu.yml"], "no such suite"),
        (["run", "broken.suite.yaml", "-e", "embedded:banking_bot.nlu.yml"], "broken.suite.yaml"),
        (["run", "banking_bot.suite.yaml", "-e", "no-such-profile"], "no engine profile"),
        (["run", "banking_bot.suite.yaml", "-e", "embedded:missing.nlu.yml"], "missing.nlu.yml"),
    ],
    ids=["missing-suite", "broken-suite", "unknown-profile", "missing-training-data"],
)
def test_a_bad_run_input_leaves_the_data_folder_empty(
    tmp_path: Path, args: list[str], said: str
) -> None:
    _copy_samples(tmp_path)
    (tmp_path / "broken.suite.yaml").write_text("nlu_tui_suite: 1\ncases: [\n", encoding="utf-8")
    data = tmp_path / "data"
    data.mkdir()
    ran = _nlu_tui(data, *args, cwd=tmp_path)
    assert ran.returncode == 2, ran.stderr
    assert said in ran.stderr and "Traceback" not in ran.stderr
    assert sorted(p.name for p in data.iterdir()) == []


@pytest.mark.parametrize("where", ["a-file", "under-a-file"])
def test_a_data_folder_that_is_not_one_is_one_line(tmp_path: Path, where: str) -> None:
    _copy_samples(tmp_path)
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder", encoding="utf-8")
    data = blocker if where == "a-file" else blocker / "data"
    ran = _nlu_tui(data, "run", "banking_bot.suite.yaml", "-e", "embedded:banking_bot.nlu.yml",
                   cwd=tmp_path)  # fmt: skip
    assert ran.returncode == 2
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and str(data) in lines[0] and "run store" in lines[0], ran.stderr


def _can_mount_read_only() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount --bind /tmp /tmp"], capture_output=True, timeout=30
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_read_only(), reason="needs unshare -rm (user namespaces)")
def test_a_read_only_run_store_is_one_line(tmp_path: Path) -> None:
    """Root ignores file modes, so the store is made read-only by a read-only bind mount in a
    private mount namespace (unshare); the run must say so in one line, exit 2."""
    _copy_samples(tmp_path)
    data = tmp_path / "data"
    assert _nlu_tui(data, "runs", cwd=tmp_path).returncode == 0  # creates the store
    store = data / "runs.sqlite3"
    assert store.is_file()
    script = (
        f"mount --bind {store} {store} && mount -o remount,bind,ro {store} && "
        f"exec {sys.executable} -m nlu_tui run banking_bot.suite.yaml "
        "-e embedded:banking_bot.nlu.yml"
    )
    env = {**os.environ, "NLU_TUI_DATA_DIR": str(data)}
    ran = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert ran.returncode == 2, ran.stderr[-2000:]
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1, ran.stderr[-2000:]
    assert f"{store}: cannot write the run store: attempt to write a readonly database" in lines[0]
