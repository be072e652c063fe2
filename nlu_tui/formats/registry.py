"""Which formats exist, how each is detected, and the two calls every face uses.

Each format lives in its own module exposing:

- ``NAME`` (str), ``EXTENSIONS`` (tuple of suffixes), ``DESCRIPTION`` (one line);
- ``sniff(path: Path, head: str) -> bool``: whether a file (its first 4 KiB in ``head``) is this format;
- ``read(path: Path) -> ImportResult``: raise :class:`~nlu_tui.errors.InputError` (or
  ``InputErrors``) naming file, line/row and field; nothing is written on failure;
- ``write(suite: Suite, path: Path) -> list[str]``: write atomically; return warnings about what
  the format cannot express (lost on export).

Modules are imported only when used, so the CLI starts fast.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from nlu_tui.errors import InputError
from nlu_tui.model import Suite

FORMAT_MODULES: dict[str, str] = {
    "native": "nlu_tui.formats.native",
    "kore-json": "nlu_tui.formats.kore_json",
    "kore-csv": "nlu_tui.formats.kore_csv",
    "rasa": "nlu_tui.formats.rasa_yaml",
    "nludevops": "nlu_tui.formats.nludevops",
    "luis": "nlu_tui.formats.luis_batch",
}
"""Detection tries them in this order; the first whose ``sniff`` says yes wins."""


@dataclass
class ImportResult:
    suite: Suite
    warnings: list[str] = field(default_factory=list)


def format_module(name: str) -> ModuleType:
    try:
        return importlib.import_module(FORMAT_MODULES[name])
    except KeyError:
        raise InputError(
            f"unknown format {name!r}; known: {', '.join(FORMAT_MODULES)}", field="--format"
        ) from None


def detect_format(path: Path) -> str:
    """The format of ``path``, from its content first and its name second."""
    try:
        head = path.read_text(encoding="utf-8-sig", errors="replace")[:4096]
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=path) from None
    for name in FORMAT_MODULES:
        module = format_module(name)
        if module.sniff(path, head):
            return name
    raise InputError(
        f"cannot tell the format of this file; pass --format ({', '.join(FORMAT_MODULES)})",
        path=path,
    )


def import_suite(path: Path, fmt: str | None = None) -> ImportResult:
    """Read any supported file into a suite (the format is detected when not given)."""
    name = fmt or detect_format(path)
    result: ImportResult = format_module(name).read(path)
    return result


def export_suite(suite: Suite, path: Path, fmt: str) -> list[str]:
    """Write ``suite`` in format ``fmt``; returns warnings about what the format cannot hold."""
    warnings: list[str] = format_module(fmt).write(suite, path)
    return warnings
