"""Render row ranges of a run on several cores: forked children, results piped back.

Exports are pure-Python text building, about 4 µs per row and format, so one core writes the
four formats of a 100,000-case run in 1.4 s. Each format renders any range of rows on its own
(:mod:`nlu_tui.reports.registry` assembles the parts), so the rows are split into contiguous
ranges: the first is rendered here, the others in children made with ``fork``, which share
the rows without copying or pickling them. A child pickles its part into an anonymous shared
file (from our own child: trusted) and exits with ``os._exit`` so nothing of the parent
(atexit handlers, stdio buffers) runs twice.

Fork is used only where it is safe and pays: a POSIX system other than macOS, a process with
no other Python thread (a lock held by another thread at the fork would stay held in the
child; the TUI exports from a worker thread, so it renders in one process), and at least
:data:`MIN_ROWS_PER_PROCESS` rows per process. ``NLU_TUI_EXPORT_PROCESSES`` sets the number
(``1`` turns this off). A child that fails in any way costs only time: its range is rendered
again here, where a real error raises as usual.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import signal
import struct
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

ENV_PROCESSES = "NLU_TUI_EXPORT_PROCESSES"
MIN_ROWS_PER_PROCESS = 10_000
"""Below this, a fork (about 10 ms with a big run in memory) costs more than it saves."""
MAX_PROCESSES = 4
"""The default cap: piping parts back is serial, so more children give less and less."""


def fork_is_safe() -> bool:
    """Whether this process may fork a child that runs Python code."""
    return (
        hasattr(os, "fork")
        and sys.platform != "darwin"
        and sys.platform != "win32"
        and threading.active_count() == 1
    )


def default_processes(rows: int) -> int:
    """How many processes to render ``rows`` rows with: ``NLU_TUI_EXPORT_PROCESSES`` (or the
    CPU count, at most :data:`MAX_PROCESSES`), fewer for small runs, 1 where fork is unsafe."""
    configured = os.environ.get(ENV_PROCESSES, "").strip()
    try:
        wanted = int(configured) if configured else min(os.cpu_count() or 1, MAX_PROCESSES)
    except ValueError:
        wanted = 1
    wanted = min(wanted, rows // MIN_ROWS_PER_PROCESS)
    if wanted <= 1 or not fork_is_safe():
        return 1
    return wanted


def split(n: int, parts: int) -> list[tuple[int, int]]:
    """``[0, n)`` as ``parts`` contiguous ranges of sizes differing by at most one."""
    parts = max(1, parts)
    size, extra = divmod(n, parts)
    ranges = []
    lo = 0
    for k in range(parts):
        hi = lo + size + (1 if k < extra else 0)
        ranges.append((lo, hi))
        lo = hi
    return ranges


def map_ranges(
    fn: Callable[[int, int], T],
    n: int,
    processes: int = 1,
    *,
    meanwhile: Callable[[], object] | None = None,
) -> list[T]:
    """``[fn(lo, hi) for (lo, hi) in split(n, processes)]``, the ranges after the first
    computed in forked children. ``fn``'s results must pickle.

    ``processes`` is an upper bound (see :func:`default_processes`): with ``1``, or where
    forking is unsafe (:func:`fork_is_safe`), nothing is forked.
    ``meanwhile`` runs here after the first range, while the children finish theirs (they
    also store their results, so they end a little later).
    """
    if processes > 1 and not fork_is_safe():
        processes = 1
    ranges = split(n, processes)
    if len(ranges) == 1:
        out = [fn(*ranges[0])]
        if meanwhile is not None:
            meanwhile()
        return out
    children: dict[int, tuple[int, int]] = {}  # range index: (pid, file it writes its result to)
    try:
        for k, (lo, hi) in enumerate(ranges[1:], 1):
            # Ctrl+C waits until the child is known here and has its own signal handling.
            with _signals_blocked():
                child = _fork_child(fn, lo, hi)
                if child is not None:
                    children[k] = child
        out = [fn(*ranges[0])]
        if meanwhile is not None:
            meanwhile()
        for k, (lo, hi) in enumerate(ranges[1:], 1):
            child = children.pop(k, None)
            part: tuple[T] | None = None if child is None else _collect(*child)
            out.append(part[0] if part is not None else fn(lo, hi))
        return out
    finally:
        for pid, fd in children.values():  # only on an error here (Ctrl+C): stop the rest
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.close(fd)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)


_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _signals_blocked() -> Iterator[None]:
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _scratch_fd() -> int:
    """An anonymous file for a child's result: in memory where the system allows."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create("nlu-tui-part", getattr(os, "MFD_CLOEXEC", 0))
    fd, name = tempfile.mkstemp(prefix="nlu-tui-part-")
    os.unlink(name)
    return fd


def _fork_child(fn: Callable[[int, int], T], lo: int, hi: int) -> tuple[int, int] | None:
    """Start a child computing ``fn(lo, hi)``; its pid and the file it pickles into, or
    ``None`` when no child could be made (the range is then rendered here).

    A shared anonymous file rather than a pipe: the child writes its tens of megabytes at
    memory speed without waiting for the parent to read, and the parent unpickles straight
    from a mapping of it (a pipe took 0.1 s for 46 MB here). Call with SIGINT and SIGTERM
    blocked: the child sets them to their defaults (a Ctrl+C ends it at once, never reaching
    the caller's code in the child) before unblocking them.
    """
    for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        fd = _scratch_fd()
    except OSError:
        return None
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns about forking with any OS thread alive; the threads that
            # may exist here are native pools (OpenBLAS) whose locks the child never takes.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:  # no memory or too many processes
        os.close(fd)
        return None
    if pid == 0:  # the child: render, store, and leave without running anything else
        code = 1
        try:
            for signum in _STOP_SIGNALS:
                signal.signal(signum, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
            _store(fd, fn(lo, hi))
            code = 0
        except BaseException:  # the parent renders this range itself
            pass
        finally:
            os._exit(code)
    return pid, fd


def _collect(pid: int, fd: int) -> tuple[Any] | None:
    """A child's result (in a 1-tuple), or ``None`` if it did not finish cleanly."""
    try:
        _, status = os.waitpid(pid, 0)
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            return None
        size = os.fstat(fd).st_size
        if size == 0:
            return None
        return (_load(fd, size),)
    except Exception:  # a truncated result: render the range here instead
        return None
    finally:
        os.close(fd)


_BIG = 1 << 16
"""Bytes this long travel beside the pickle and come back as views of the shared file."""
_HEADER = struct.Struct("<Q")


def _out_of_band(value: Any) -> Any:
    """``value`` with its big ``bytes`` (in dicts, lists and tuples) wrapped for pickle's
    out-of-band buffers."""
    kind = type(value)
    if kind is bytes and len(value) >= _BIG:
        return pickle.PickleBuffer(value)
    if kind is dict:
        return {k: _out_of_band(v) for k, v in value.items()}
    if kind is tuple or kind is list:
        return kind(_out_of_band(v) for v in value)
    return value


def _store(fd: int, value: Any) -> None:
    """Write ``value`` to the shared file: a length, the pickle, then the big buffers and
    their lengths (so the parent maps them instead of copying them out)."""
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(_out_of_band(value), protocol=5, buffer_callback=buffers.append)
    sizes = [buffer.raw().nbytes for buffer in buffers]
    with os.fdopen(fd, "wb", closefd=False) as out:
        out.write(_HEADER.pack(len(data)))
        out.write(data)
        out.write(struct.pack(f"<{len(sizes) + 1}Q", len(sizes), *sizes))
        for buffer in buffers:
            out.write(buffer.raw())


def _load(fd: int, size: int) -> Any:
    """What :func:`_store` wrote; the big buffers are read-only views of a private mapping
    of the file (kept alive by the views, so closing ``fd`` afterwards is fine)."""
    view = memoryview(mmap.mmap(fd, size, access=mmap.ACCESS_READ))
    (length,) = _HEADER.unpack_from(view)
    data = view[_HEADER.size : _HEADER.size + length]
    at = _HEADER.size + length
    (count,) = _HEADER.unpack_from(view, at)
    sizes = struct.unpack_from(f"<{count}Q", view, at + _HEADER.size)
    at += _HEADER.size * (count + 1)
    buffers = []
    for n in sizes:
        buffers.append(view[at : at + n])
        at += n
    if at != size:
        raise ValueError("a child's result has the wrong size")
    return pickle.loads(data, buffers=buffers)
