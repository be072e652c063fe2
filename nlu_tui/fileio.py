"""Atomic file writes: a reader never sees half a file, and a crash never leaves one."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable
from pathlib import Path

Chunk = bytes | bytearray | memoryview


def atomic_write_bytes(
    path: Path, data: bytes, *, backup: bool = False, mode: int | None = None
) -> None:
    """Write ``data`` to a temp file beside ``path``, fsync it, then rename it over ``path``.

    With ``backup``, the previous content (if any) is kept as ``<name>.bak``. ``mode`` sets the
    permission bits (0o600 for files holding secrets) before the file becomes visible.
    """
    atomic_write_chunks(path, (data,), backup=backup, mode=mode)


def atomic_write_chunks(
    path: Path, chunks: Iterable[Chunk], *, backup: bool = False, mode: int | None = None
) -> None:
    """:func:`atomic_write_bytes` of the chunks one after another, without joining them first
    (a report assembled from parts would otherwise be copied once more in memory)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    existing = path.stat().st_mode & 0o7777 if path.exists() else None
    # A new file gets 0o666 less the umask from the kernel itself: reading the umask means
    # setting it, which races with other threads (writers run in parallel). A file holding
    # secrets, or replacing one, starts private and gets its mode below.
    private = mode is not None or existing is not None
    fd, tmp = _create_temp(path, 0o600 if private else 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        elif existing is not None:
            os.chmod(tmp, existing)
        if backup and path.exists():
            atomic_copy = path.with_name(path.name + ".bak")
            atomic_copy.write_bytes(path.read_bytes())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


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
    path: Path, text: str, *, backup: bool = False, mode: int | None = None
) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), backup=backup, mode=mode)


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
