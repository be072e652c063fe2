"""The sample Kore.ai batch-test files (JSON and CSV) that the import dialog can save.

Kore.ai's "new test suite" dialog lets a user download sample CSV and JSON files of its
dataset formats; these are the sample bot's suite in both (``sample_suites/``), saved into a
folder of the user's without overwriting anything there.
"""

from __future__ import annotations

from pathlib import Path

from nlu_tui import paths
from nlu_tui.fileio import atomic_write_bytes

SAMPLE_FILES = ("banking_bot.kore.json", "banking_bot.kore.csv")


def _free(folder: Path, name: str) -> Path:
    """``folder/name``, or ``stem-2.ext``, ``stem-3.ext``... when that file exists."""
    target = folder / name
    stem, dot, ext = name.partition(".")
    n = 2
    while target.exists():
        target = folder / f"{stem}-{n}{dot}{ext}"
        n += 1
    return target


def save_sample_files(folder: Path) -> list[Path]:
    """Write the sample JSON and CSV into ``folder``; the paths written, in that order."""
    source = paths.sample_suites_dir()
    written = []
    for name in SAMPLE_FILES:
        target = _free(folder, name)
        atomic_write_bytes(target, (source / name).read_bytes())
        written.append(target)
    return written
