"""Atomic writes: the permission bits a user expects, nothing half-written, safe from threads."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from nlu_tui.fileio import atomic_write_bytes, atomic_write_chunks


@pytest.fixture
def umask_027() -> Iterator[None]:
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_file_gets_0666_less_the_umask(tmp_path: Path, umask_027: None) -> None:
    target = tmp_path / "new" / "r.json"
    atomic_write_bytes(target, b"{}")
    assert target.read_bytes() == b"{}"
    assert mode(target) == 0o640
    assert [p.name for p in target.parent.iterdir()] == ["r.json"]  # no temp file left


def test_replacing_keeps_the_mode_and_a_given_mode_wins(tmp_path: Path, umask_027: None) -> None:
    target = tmp_path / "r.csv"
    target.write_bytes(b"old")
    target.chmod(0o604)
    atomic_write_bytes(target, b"new", backup=True)
    assert (target.read_bytes(), mode(target)) == (b"new", 0o604)
    assert (tmp_path / "r.csv.bak").read_bytes() == b"old"
    secret = tmp_path / "engines.yaml"
    atomic_write_bytes(secret, b"token: ${T}", mode=0o600)
    assert mode(secret) == 0o600


def test_chunks_are_written_in_order_and_a_failure_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "r.xml"
    atomic_write_chunks(target, [b"<a>", memoryview(b"xx<b/>yy")[2:-2], bytearray(b"</a>")])
    assert target.read_bytes() == b"<a><b/></a>"

    def broken() -> Iterator[bytes]:
        yield b"half"
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write_chunks(target, broken())
    assert target.read_bytes() == b"<a><b/></a>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.xml"]


def test_writers_in_threads_never_see_or_leave_another_umask(
    tmp_path: Path, umask_027: None
) -> None:
    """The report writers run in threads: nothing may set the process umask, even briefly."""

    def write(i: int) -> int:
        path = tmp_path / str(i) / "f.txt"
        atomic_write_bytes(path, b"x")
        return mode(path) | (mode(path.parent) << 12)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible to expose a race
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            modes = set(pool.map(write, range(1500)))
    finally:
        sys.setswitchinterval(interval)
    assert modes == {0o640 | (0o750 << 12)}
    assert os.umask(0o027) == 0o027
