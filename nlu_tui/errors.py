"""Errors that reach the user: each names the file, the line or row, and the field."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class NluTuiError(Exception):
    """Base of every error the faces show as a message rather than a traceback."""


@dataclass
class InputError(NluTuiError):
    """Bad input in a file: the message says where (file, line or row, field) and what is wrong."""

    message: str
    path: Path | str | None = None
    line: int | None = None
    field: str | None = None
    kind: str = "line"  # "line" for text formats, "row" for CSV, "case" for cases in a list

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def at(self, line: int | None) -> InputError:
        """The same error placed at ``line`` (for a check that saw only part of the file)."""
        return InputError(self.message, self.path, line, self.field, self.kind)

    def __str__(self) -> str:
        where = []
        if self.path is not None:
            where.append(str(self.path))
        if self.line is not None:
            where.append(f"{self.kind} {self.line}")
        if self.field:
            where.append(f"field '{self.field}'")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message


class ConflictError(NluTuiError):
    """A suite file changed on disk since it was loaded; saving would clobber someone's edit."""


class EngineError(NluTuiError):
    """An engine could not be reached or configured (not a per-case failure)."""
