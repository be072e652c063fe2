"""A store written before the run kernel (``tests/fixtures/store_before_kernel.sqlite3``: an E2E
run and a DUT run, made by the code of commit 13b05fd, whose store and conversation/DUT services
main still had unchanged when the kernel landed) is read by today's code as it was: the kernel
needed no schema change, and the counters that now leave repeated attempts out count its items
as before."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from nlu_tui.cli.main import run as cli
from nlu_tui.store import RunStore
from nlu_tui.store.records import StoredItem

FIXTURE = Path(__file__).parent / "fixtures" / "store_before_kernel.sqlite3"
E2E_RUN, DUT_RUN = "e0e2c4df6802", "2cb0f85180a4"


@pytest.fixture
def old_store() -> Path:
    path = Path(os.environ["NLU_TUI_DATA_DIR"]) / "runs.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FIXTURE, path)
    return path


def test_the_runs_of_an_old_store_read_as_they_were(
    old_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with RunStore(old_store) as store:
        runs = {r.id: r for r in store.list_runs()}
        assert {r.kind for r in runs.values()} == {"e2e", "dut"}
        for run_id in (E2E_RUN, DUT_RUN):
            run = runs[run_id]
            assert (run.total, run.done, run.passed, run.failed, run.errors) == (2, 2, 1, 1, 0)
            assert len(store.load_items(run_id)) == 2
            assert store.load_items(run_id, attempts=True) == store.load_items(run_id)
    assert cli(["show", E2E_RUN]) == 0
    assert "e2e.yml::wrong" in capsys.readouterr().out  # the failed test case, as before
    assert cli(["show", DUT_RUN]) == 0
    assert "user_adds_contact_to_their_list" in capsys.readouterr().out
    assert cli(["note", DUT_RUN, "read by the kernel"]) == 0


def test_the_counters_of_an_old_run_move_as_before_when_items_are_added(old_store: Path) -> None:
    with RunStore(old_store) as store:
        store.add_items(E2E_RUN, [StoredItem("extra", 9, "error", None, {"name": "extra"})])
        run = store.get_run(E2E_RUN)
        assert (run.done, run.passed, run.failed, run.errors) == (3, 1, 1, 1)
        attempt = StoredItem("extra#2", 10, "passed", None, {"name": "x", "repeat_of": "extra"})
        store.add_items(E2E_RUN, [attempt])  # an attempt #2: not counted
        run = store.get_run(E2E_RUN)
        assert (run.done, run.passed, run.failed, run.errors) == (3, 1, 1, 1)
