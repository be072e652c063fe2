"""Reading a whole JSON file with errors a tester can act on (file, line and column)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError


def read_json(path: Path | str, *, what: str = "file") -> Any:
    """The parsed file; an InputError names the unreadable ``what`` or the syntax error's line."""
    try:
        raw = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", path=path) from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg} (column {exc.colno})", path=path, line=exc.lineno
        ) from None
