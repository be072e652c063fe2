"""Permissions of credentials files (service-account keys, AWS shared credentials), as ssh
checks a private key's.

OpenSSH refuses a private key whose mode grants anything to group or others
(``sshkey_perm_ok`` in ``authfile.c``: ``(st.st_mode & 077) != 0`` → "UNPROTECTED PRIVATE KEY
FILE!"). nlu-tui warns about such a credentials file and uses it, or refuses it when permissions
are strict (``--strict-permissions`` on the commands that take an engine, which sets
:data:`STRICT_VARIABLE` for the process).

The warning goes to the ``nlu_tui.credentials`` logger: the CLI shows it as one
``nlu-tui: warning:`` line (:mod:`nlu_tui.cli.main`); the engine layer prints nothing.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from nlu_tui.errors import EngineError

STRICT_VARIABLE = "NLU_TUI_STRICT_PERMISSIONS"
"""Set to ``1`` (by ``--strict-permissions``) to refuse a credentials file others can access."""
LOGGER = "nlu_tui.credentials"
_OPEN_TO_OTHERS = 0o077

_warned: set[str] = set()


def strict() -> bool:
    return os.environ.get(STRICT_VARIABLE, "").strip().lower() in ("1", "true", "yes", "on")


def open_to_others(path: Path) -> int | None:
    """The file's permission bits when group or others have any of them (None otherwise, or
    when the file cannot be examined: reading it says why)."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
    return mode if mode & _OPEN_TO_OTHERS else None


def check_permissions(path: str | Path, engine: str, field: str = "credentials_file") -> None:
    """Warn (once per file) about a credentials file group or others can access; refuse it
    with :class:`EngineError` when permissions are strict."""
    file = Path(path)
    mode = open_to_others(file)
    if mode is None:
        return
    problem = (
        f"{engine} engine: {field} {file} is accessible by group or others "
        f"(mode {mode:04o}); run chmod 600 {file}"
    )
    if strict():
        raise EngineError(problem + " (refused: --strict-permissions)")
    key = str(file.resolve())
    if key not in _warned:
        _warned.add(key)
        logging.getLogger(LOGGER).warning("%s (--strict-permissions refuses such a file)", problem)
