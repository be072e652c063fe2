"""Leave when the terminal is gone (an SSH connection dropped, a terminal window closed).

Closing a terminal hangs up its tty: the kernel sends SIGHUP to the terminal's session, which
ends nlu-tui as it ends any program. A process that is not in that session (started by a script
under its own session, kept by ``nohup``, a shell that does not pass the signal on) is not told.
Textual's input thread then reads end-of-file from the tty over and over and the workbench
spins at a full core for as long as the machine runs (seen: 40 minutes of CPU, on a tty that no
longer existed). :class:`HangupWatch` asks the terminal for its size once a second, one ioctl
that fails with EIO (or ENXIO, EBADF) once the terminal is gone, and then ends the app as quit
does (every edit and result is on disk already).
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any

from textual.app import App

CHECK_EVERY = 1.0
"""Seconds between two looks at the terminal."""

HANGUP_EXIT_CODE = 129
"""What a shell reports for a program ended by SIGHUP (128 + 1)."""

GONE = {errno.EIO, errno.ENXIO, errno.EBADF}


def terminal_fd() -> int | None:
    """The file descriptor of the terminal the workbench reads keys from, None when it reads
    them from no terminal (the browser face, tests)."""
    stream = sys.__stdin__
    if stream is None:
        return None
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return None
    return fd if os.isatty(fd) else None


def terminal_gone(fd: int) -> bool:
    """Whether the terminal behind ``fd`` has been hung up."""
    try:
        os.get_terminal_size(fd)
    except OSError as error:
        return error.errno in GONE
    return False


class HangupWatch:
    """Ends ``app`` with :data:`HANGUP_EXIT_CODE` once its terminal is gone."""

    def __init__(self, app: App[Any], fd: int) -> None:
        self.app = app
        self.fd = fd
        app.set_interval(CHECK_EVERY, self.check, name="hangup-watch")

    def check(self) -> None:
        if terminal_gone(self.fd):
            self.app.exit(return_code=HANGUP_EXIT_CODE)


def watch_terminal(app: App[Any]) -> HangupWatch | None:
    """Watch the terminal ``app`` runs in (nothing to watch without one, or headless)."""
    if app.is_headless:
        return None
    fd = terminal_fd()
    return HangupWatch(app, fd) if fd is not None else None
