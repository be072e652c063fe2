"""Atomic file writes: a reader never sees half a file, and a crash never leaves one.

The order of the steps is what keeps the previous good version safe on a full or read-only
disk: the new content is written to a temp file and fsynced first; only then is ``<name>.bak``
rotated (atomically: a hard link to the current file, or a fsynced copy, renamed into place);
the temp file replaces the file last. Any failure before that final rename leaves both the
file and its ``.bak`` exactly as they were, and removes the temp files.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Iterable
from pathlib import Path

Chunk = bytes | bytearray | memoryview

_BUFFER = 1 << 20
"""Small chunks are gathered up to this many bytes per ``write`` system call."""

_REAL_FAILURES = frozenset(
    {errno.ENOSPC, errno.EROFS, errno.EIO, getattr(errno, "EDQUOT", errno.ENOSPC)}
)
"""Errors of a hard link that mean the disk is in trouble, not that links are unsupported:
these abort the save instead of falling back to copying the old content."""


def atomic_write_bytes(
    path: Path,
    data: bytes,
    *,
    backup: bool = False,
    mode: int | None = None,
    through_links: bool = False,
) -> None:
    """Write ``data`` to a temp file beside ``path``, fsync it, then rename it over ``path``.

    With ``backup``, the previous content (if any) is kept as ``<name>.bak``. ``mode`` sets the
    permission bits (0o600 for files holding secrets) before the file becomes visible. With
    ``through_links``, a symlink at ``path`` is kept and its target is replaced instead (see
    :func:`write_target`).
    """
    atomic_write_chunks(path, (data,), backup=backup, mode=mode, through_links=through_links)


def write_target(path: Path) -> Path:
    """The file a write to ``path`` should replace: the final target when ``path`` is a symlink.

    Replacing a symlink by rename would turn it into a plain file, cutting it from the file it
    shared (a suite kept in another repository, linked into the workspace). Only callers that
    write the user's own files ask for this: a report written into a shared folder must not
    follow a link someone else planted there.
    """
    path = Path(path)
    if path.is_symlink():
        return Path(os.path.realpath(path))
    return path


def atomic_write_chunks(
    path: Path,
    chunks: Iterable[Chunk],
    *,
    backup: bool = False,
    mode: int | None = None,
    through_links: bool = False,
) -> None:
    """:func:`atomic_write_bytes` of the chunks one after another, without joining them first
    (a report assembled from parts would otherwise be copied once more in memory)."""
    path = write_target(path) if through_links else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    existing = path.stat().st_mode & 0o7777 if path.exists() else None
    # A new file gets 0o666 less the umask from the kernel itself: reading the umask means
    # setting it, which races with other threads (writers run in parallel). A file holding
    # secrets, or replacing one, starts private and gets its mode below.
    private = mode is not None or existing is not None
    fd, tmp = _create_temp(path, 0o600 if private else 0o666)
    try:
        try:
            _write_all(fd, chunks)
            os.fsync(fd)
        finally:
            os.close(fd)
        if mode is not None:
            os.chmod(tmp, mode)
        elif existing is not None:
            os.chmod(tmp, existing)
        if backup and existing is not None:
            _rotate_backup(path)
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def _write_all(fd: int, chunks: Iterable[Chunk]) -> None:
    """Every byte of ``chunks`` to ``fd`` (``os.write`` may write less than it is given)."""
    pending = bytearray()
    for chunk in chunks:
        if len(chunk) >= _BUFFER:
            _write_fully(fd, pending)
            pending.clear()
            _write_fully(fd, chunk)
            continue
        pending += chunk
        if len(pending) >= _BUFFER:
            _write_fully(fd, pending)
            pending.clear()
    _write_fully(fd, pending)


def _write_fully(fd: int, data: Chunk) -> None:
    view = memoryview(data).cast("B")
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _rotate_backup(path: Path) -> None:
    """Make ``<name>.bak`` the current content of ``path``, atomically.

    A hard link costs no disk space (so it works on a full disk) and turns into the only name
    of the old content once the new file is renamed over ``path``. Where links are not
    supported, the content is copied to a temp file, fsynced and renamed into place.
    """
    bak = path.with_name(path.name + ".bak")
    tmp = _free_temp_name(bak)
    try:
        try:
            os.link(path, tmp)
        except OSError as exc:
            if exc.errno in _REAL_FAILURES:
                raise
            _copy_synced(path, tmp)
        os.replace(tmp, bak)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def _copy_synced(source: Path, target: Path) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(target, flags, source.stat().st_mode & 0o7777)
    try:
        with source.open("rb") as src:
            _write_all(fd, iter(lambda: src.read(_BUFFER), b""))
        os.fsync(fd)
    finally:
        os.close(fd)


def _free_temp_name(path: Path) -> Path:
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        if not os.path.lexists(tmp):
            return tmp
    raise FileExistsError(f"no free temporary name beside {path}")


def _create_temp(path: Path, mode: int) -> tuple[int, Path]:
    """A new, exclusive temp file beside ``path`` (``tempfile.mkstemp`` always uses 0o600)."""
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
            return os.open(tmp, flags, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


def atomic_write_text(
    path: Path,
    text: str,
    *,
    backup: bool = False,
    mode: int | None = None,
    through_links: bool = False,
) -> None:
    atomic_write_bytes(
        path, text.encode("utf-8"), backup=backup, mode=mode, through_links=through_links
    )


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
