"""Edits that could not be saved are remembered, shown, retried, and never dropped silently.

Issue 10, item 14 (the core side): after a failed save the edit lived only on screen and the
workbench quit without a word. The workspace now keeps such suites until a save succeeds.
"""

from __future__ import annotations

import errno
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from nlu_tui.formats import native
from nlu_tui.model import TestCase
from nlu_tui.workspace import Workspace

SAMPLE = Path(__file__).resolve().parent.parent / "sample_suites" / "banking_bot.suite.yaml"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    shutil.copy(SAMPLE, root / SAMPLE.name)
    return Workspace(root)


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Every suite write fails as on a full disk (until ``full_disk.undo()``)."""

    def no_space(path: Path, *_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(native, "atomic_write_bytes", no_space)
    return monkeypatch


def test_a_failed_save_is_kept_shown_and_saved_by_a_retry(
    ws: Workspace, full_disk: pytest.MonkeyPatch
) -> None:
    path = ws.suite_paths()[0]
    before = path.read_bytes()
    suite = ws.load(path)
    suite.cases[0] = replace(suite.cases[0], tags=["edited"])
    with pytest.raises(OSError):
        ws.save(suite)
    assert path.read_bytes() == before
    [pending] = ws.unsaved()
    assert pending.path == path and pending.suite is suite
    assert "No space left on device [Errno 28]" in pending.error
    assert ws.is_unsaved(path) and ws.info(path).unsaved
    # opening the suite again shows the edit, not the file behind it
    assert ws.load(path) is suite
    assert next(iter(ws.load_chunks(path))).suite is suite
    [still] = ws.save_unsaved()  # the disk is still full: the edit is still kept
    assert still.suite is suite and ws.is_unsaved(path)
    full_disk.undo()
    assert ws.save_unsaved() == []
    assert not ws.is_unsaved(path) and not ws.info(path).unsaved
    assert ws.load(path) is not suite and ws.load(path).cases[0].tags == ["edited"]


def test_the_next_edit_saves_the_earlier_one_too(
    ws: Workspace, full_disk: pytest.MonkeyPatch
) -> None:
    path = ws.suite_paths()[0]
    suite = ws.load(path)
    suite.cases[0] = replace(suite.cases[0], tags=["first"])
    with pytest.raises(OSError):
        ws.save(suite)
    full_disk.undo()
    suite.cases.append(TestCase("second edit", id="second"))
    ws.save(suite)
    assert ws.unsaved() == []
    saved = ws.load(path)
    assert saved.cases[0].tags == ["first"] and saved.cases[-1].id == "second"


def test_rename_copy_and_delete_respect_an_unsaved_edit(
    ws: Workspace, full_disk: pytest.MonkeyPatch
) -> None:
    path = ws.suite_paths()[0]
    suite = ws.load(path)
    suite.cases[0] = replace(suite.cases[0], tags=["unsaved"])
    with pytest.raises(OSError):
        ws.save(suite)
    with pytest.raises(OSError):  # the disk is still full: the rename changes nothing
        ws.rename(path, "Renamed")
    assert suite.name != "Renamed" and ws.is_unsaved(path)
    full_disk.undo()
    copy = ws.duplicate(path)
    assert ws.load(copy).cases[0].tags == ["unsaved"]  # a copy of what the user sees
    renamed = ws.rename(path, "Renamed")
    assert ws.unsaved() == [] and suite.path == renamed
    assert ws.load(renamed).name == "Renamed"
    assert ws.load(renamed).cases[0].tags == ["unsaved"]
    suite.cases[0] = replace(suite.cases[0], tags=["again"])
    full_disk.setattr(native, "atomic_write_bytes", _raise_erofs)
    with pytest.raises(OSError):
        ws.save(suite)
    assert "[Errno 30]" in ws.unsaved()[0].error
    ws.delete(renamed)  # deleting the suite is the user's choice: nothing left to save
    assert ws.unsaved() == []


def _raise_erofs(path: Path, *_args: object, **_kwargs: object) -> None:
    raise OSError(errno.EROFS, "Read-only file system", str(path))
