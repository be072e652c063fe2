"""Atomic writes: the permission bits a user expects, nothing half-written, safe from threads."""

from __future__ import annotations

import errno
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


# --- issue 10, item 15: a failed save never harms the previous good version ----------------

_STEPS = {"open", "write", "fsync", "chmod", "link", "replace"}


class _FailingOs:
    """``os`` for nlu_tui.fileio, failing the ``fail_at``-th file step with ENOSPC (or never).

    ``short`` makes every ``write`` take at most 65,536 bytes, as a kernel may. ``no_links``
    makes ``link`` fail as on a file system without hard links (the copy fallback).
    """

    def __init__(self, fail_at: int, *, short: bool = False, no_links: bool = False) -> None:
        self.fail_at = fail_at
        self.calls = 0
        self.short = short
        self.no_links = no_links

    def __getattr__(self, name: str) -> object:
        real = getattr(os, name)
        if name not in _STEPS:
            return real

        def step(*args: object, **kwargs: object) -> object:
            if name == "link" and self.no_links:
                raise OSError(errno.EPERM, "Operation not permitted")
            self.calls += 1
            if self.calls == self.fail_at:
                raise OSError(errno.ENOSPC, "No space left on device")
            if name == "write" and self.short:
                fd, data = args
                return os.write(fd, memoryview(data)[:65536])  # type: ignore[arg-type]
            return real(*args, **kwargs)

        return step


@pytest.mark.parametrize("no_links", [False, True], ids=["hard-link", "copy"])
def test_a_failure_at_any_step_keeps_the_file_and_its_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_links: bool
) -> None:
    import nlu_tui.fileio as fileio

    target = tmp_path / "s.suite.yaml"
    bak = tmp_path / "s.suite.yaml.bak"
    old, previous = b"good version\n" * 1000, b"previous good version\n"
    new = [b"new " * 1000, b"x" * (1 << 20), b"end\n"]
    fail_at = 1
    while True:
        for path, data in ((target, old), (bak, previous)):
            path.unlink(missing_ok=True)  # the two may share an inode after the last step fails
            path.write_bytes(data)
        fake = _FailingOs(fail_at, short=True, no_links=no_links)
        monkeypatch.setattr(fileio, "os", fake)
        try:
            atomic_write_chunks(target, new, backup=True)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
            assert target.read_bytes() == old, f"step {fail_at}"
            # the backup is the previous one, or (when only the last rename failed) the file
            assert bak.read_bytes() in (previous, old), f"step {fail_at}"
        else:
            assert target.read_bytes() == b"".join(new)
            assert bak.read_bytes() == old
        finally:
            monkeypatch.setattr(fileio, "os", os)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["s.suite.yaml", "s.suite.yaml.bak"]
        if fake.calls < fail_at:
            break  # every step has failed once
        fail_at += 1
    assert fail_at > 8  # temp file, many writes, fsync, chmod, backup, replace


_FSIZE_SCRIPT = """
import os, resource, signal, sys
from pathlib import Path
import nlu_tui.fileio as fileio
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
if sys.argv[2] == "copy":
    real_link = os.link
    def no_link(*args, **kwargs):
        raise OSError(1, "Operation not permitted")
    fileio.os.link = no_link
resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))
try:
    fileio.atomic_write_bytes(Path(sys.argv[1]), b"short new content\\n", backup=True)
except OSError as exc:
    print("failed", exc.errno)
else:
    print("saved")
"""


@pytest.mark.parametrize("links", ["link", "copy"])
def test_a_nearly_full_disk_never_leaves_a_partial_backup(tmp_path: Path, links: str) -> None:
    """A real write limit (RLIMIT_FSIZE: at most 100 KB per file): the old code copied the
    200 KB file into ``.bak`` in place and was cut off half way, losing the previous backup."""
    import subprocess

    target = tmp_path / "s.suite.yaml"
    bak = tmp_path / "s.suite.yaml.bak"
    old, previous = b"o" * 200_000, b"previous\n"
    target.write_bytes(old)
    bak.write_bytes(previous)
    done = subprocess.run(
        [sys.executable, "-c", _FSIZE_SCRIPT, str(target), links],
        capture_output=True,
        text=True,
        check=True,
    )
    if done.stdout.strip() == "saved":  # a hard link needs no space: the save goes through
        assert links == "link"
        assert (target.read_bytes(), bak.read_bytes()) == (b"short new content\n", old)
    else:  # copying the old content does not fit: nothing changes
        assert done.stdout.split()[0] == "failed"
        assert (target.read_bytes(), bak.read_bytes()) == (old, previous)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.suite.yaml", "s.suite.yaml.bak"]


# --- issue 10, item 16: a symlinked file stays a link -----------------------------------------


def test_writing_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    real = shared / "s.suite.yaml"
    real.write_bytes(b"old\n")
    link = tmp_path / "s.suite.yaml"
    link.symlink_to(Path("shared") / "s.suite.yaml")
    atomic_write_bytes(link, b"new\n", backup=True, through_links=True)
    assert link.is_symlink() and os.readlink(link) == str(Path("shared") / "s.suite.yaml")
    assert real.read_bytes() == b"new\n"
    assert (shared / "s.suite.yaml.bak").read_bytes() == b"old\n"
    # without through_links (reports in a shared folder) a planted link is replaced, not followed
    atomic_write_bytes(link, b"report\n")
    assert not link.is_symlink() and real.read_bytes() == b"new\n"
