"""Exports rendered in several processes: the same bytes, real children, and nothing lost when
a child fails."""

from __future__ import annotations

import math
import os
import random
import signal
import threading
from pathlib import Path

import pytest
from scoring_fixture import scored

from nlu_tui.errors import InputError
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    IntentScore,
    PredictedEntity,
    Prediction,
    TestCase,
)
from nlu_tui.reports import REPORT_FORMATS, RunMeta, prepare_run, write_reports
from nlu_tui.reports.common import ResultRow
from nlu_tui.reports.parallel import (
    ENV_PROCESSES,
    MIN_ROWS_PER_PROCESS,
    default_processes,
    map_ranges,
    split,
)
from nlu_tui.scoring.case import score_case

META = RunMeta(id="r", suite="S & <co>", engine="e", version="published", started_at=0.0)


def random_rows(n: int, seed: int) -> list[ResultRow]:
    """Rows of every kind (TP, FP, FN, TN, ERROR, entities, odd text, odd latencies)."""
    rng = random.Random(seed)
    intents = ["a", "b", "c", "None", ""]
    rows: list[ResultRow] = []
    for i in range(n):
        expected = rng.choice(intents)
        case = TestCase(
            rng.choice(["plain", 'with "quotes", & <tags>', "é\n\x01", "a,b"]) + str(i),
            intents=[ExpectedIntent(expected)] if expected else [],
            entities=[ExpectedEntity("amount", "10 USD")] if rng.random() < 0.3 else [],
            id=f"{i:06d}",
        )
        got = rng.choice(intents)
        prediction = Prediction(
            intent=got or None,
            confidence=rng.choice([rng.random(), None, float("nan")]),
            ranking=[IntentScore("a", 0.5), IntentScore("b", 0.25)],
            entities=[PredictedEntity("amount", [{"code": "USD", "amount": rng.choice([10, 1])}])],
            latency_ms=rng.choice([rng.uniform(1, 900), None, float("inf")]),
            error="HTTP 503" if rng.random() < 0.05 else None,
        )
        rows.append((case, prediction, score_case(case, prediction)))
    return rows


def targets(base: Path) -> dict[str, Path]:
    return {
        fmt: base / (f"report{spec.extension}" if spec.extension else fmt)
        for fmt, spec in REPORT_FORMATS.items()
    }


def contents(base: Path) -> dict[str, bytes]:
    return {str(p.relative_to(base)): p.read_bytes() for p in base.rglob("*") if p.is_file()}


def test_split_covers_every_row_once_in_order() -> None:
    assert split(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert split(0, 2) == [(0, 0), (0, 0)]
    assert split(2, 4) == [(0, 1), (1, 2), (2, 2), (2, 2)]
    assert split(5, 0) == [(0, 5)]


def test_ranges_after_the_first_run_in_other_processes() -> None:
    here = os.getpid()
    out = map_ranges(lambda lo, hi: (os.getpid(), lo, hi), 9, 3)
    assert [(lo, hi) for _pid, lo, hi in out] == [(0, 3), (3, 6), (6, 9)]
    pids = [pid for pid, _lo, _hi in out]
    assert pids[0] == here
    assert here not in pids[1:] and len(set(pids)) == 3
    with pytest.raises(ChildProcessError):  # every child was reaped
        os.waitpid(-1, os.WNOHANG)


@pytest.mark.parametrize("how", ["raise", "exit", "kill"])
def test_a_failing_child_costs_time_not_results(how: str) -> None:
    here = os.getpid()

    def fn(lo: int, hi: int) -> list[int]:
        if os.getpid() != here:
            if how == "raise":
                raise RuntimeError("child only")
            if how == "exit":
                os._exit(3)
            os.kill(os.getpid(), 9)
        return list(range(lo, hi))

    assert map_ranges(fn, 10, 2) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]


def test_no_child_when_fork_fails_or_another_thread_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    here = os.getpid()

    def fn(lo: int, hi: int) -> tuple[int, int, int]:
        return os.getpid(), lo, hi

    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    fds_before = len(os.listdir("/proc/self/fd"))
    with monkeypatch.context() as m:
        m.setattr(os, "fork", no_fork)
        assert map_ranges(fn, 6, 3) == [(here, 0, 2), (here, 2, 4), (here, 4, 6)]
    assert len(os.listdir("/proc/self/fd")) == fds_before  # no scratch file left open
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:  # even when asked for 3 processes: forking a threaded process could deadlock
        assert map_ranges(fn, 6, 3) == [(here, 0, 6)]
    finally:
        stop.set()
        worker.join()


def test_an_error_rendering_a_failed_childs_range_closes_nothing_twice(tmp_path: Path) -> None:
    here = os.getpid()
    opened = []

    def fn(lo: int, hi: int) -> int:
        if os.getpid() != here:
            os._exit(3)  # every child fails: its range comes back here
        if lo > 0:
            # Takes the descriptor number the collected child's scratch file had.
            opened.append(open(tmp_path / "late.txt", "w"))  # noqa: SIM115
            raise ValueError("the range fails here too")
        return hi

    with pytest.raises(ValueError, match="fails here too"):
        map_ranges(fn, 9, 3)
    with opened[0] as late:
        late.write("still open")  # its descriptor was not closed by mistake
    assert (tmp_path / "late.txt").read_text() == "still open"
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_ctrl_c_in_a_child_ends_only_that_child() -> None:
    here = os.getpid()

    def fn(lo: int, hi: int) -> list[int]:
        if os.getpid() != here:
            os.kill(os.getpid(), signal.SIGINT)  # default action in the child: it ends
            threading.Event().wait(30)
        return list(range(lo, hi))

    assert map_ranges(fn, 4, 2) == [[0, 1], [2, 3]]


def test_an_error_here_stops_and_reaps_the_children() -> None:
    here = os.getpid()

    def fn(lo: int, hi: int) -> int:
        if os.getpid() == here:
            raise ValueError("in the parent")
        threading.Event().wait(30)  # a child that would run long: it is killed
        return hi

    with pytest.raises(ValueError, match="in the parent"):
        map_ranges(fn, 4, 2)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@pytest.mark.parametrize("processes", [2, 3, 4])
def test_every_format_gives_the_same_bytes_in_any_number_of_processes(
    tmp_path: Path, processes: int
) -> None:
    rows = random_rows(60, seed=processes) + [(c, p, r) for c, p, _k, r in scored()]
    one, many = tmp_path / "one", tmp_path / "many"
    write_reports(targets(one), META, rows, processes=1)
    written = write_reports(targets(many), META, rows, processes=processes)
    # five formats; rasa writes two intent files and, the Kore fixture expecting entities from
    # an engine that names no extractor, entities_report.json and entities_errors.json; and
    # three plots: the intent confusion matrix and histogram, the entities' confusion matrix
    # (an extractor without confidences gets no histogram), and metric_spec.json; html and
    # markdown one file each
    assert len(written) == 14
    assert contents(many) == contents(one)
    assert len(contents(one)) == 14


def test_no_rows_and_fewer_rows_than_processes(tmp_path: Path) -> None:
    for n in (0, 1, 2):
        rows = random_rows(n, seed=n)
        write_reports(targets(tmp_path / f"{n}-one"), META, rows, processes=1)
        write_reports(targets(tmp_path / f"{n}-many"), META, rows, processes=4)
        assert contents(tmp_path / f"{n}-one") == contents(tmp_path / f"{n}-many")


def test_junit_total_time_is_the_exact_sum(tmp_path: Path) -> None:
    rows = random_rows(200, seed=9)
    write_reports({"junit": tmp_path / "r.xml"}, META, rows, processes=2)
    seconds = []
    for _c, _p, r in rows:
        s = (r.latency_ms or 0.0) / 1000
        seconds.append(s if math.isfinite(s) else 0.0)
    head = (tmp_path / "r.xml").read_text().splitlines()[1]
    assert f'time="{math.fsum(seconds):.3f}"' in head


def test_how_many_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    big = 100 * MIN_ROWS_PER_PROCESS
    monkeypatch.setenv(ENV_PROCESSES, "1")
    assert default_processes(big) == 1
    monkeypatch.setenv(ENV_PROCESSES, "3")
    assert default_processes(big) == (3 if threading.active_count() == 1 else 1)
    assert default_processes(MIN_ROWS_PER_PROCESS) == 1  # too few rows to pay for a fork
    monkeypatch.setenv(ENV_PROCESSES, "many")
    assert default_processes(big) == 1
    monkeypatch.delenv(ENV_PROCESSES)
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:  # another thread (the TUI exports from a worker): never fork
        assert default_processes(big) == 1
    finally:
        stop.set()
        worker.join()


def test_two_formats_to_one_path_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    rows = random_rows(5, seed=1)
    same = tmp_path / "report.out"
    with pytest.raises(InputError, match="json and csv would both write"):
        write_reports({"json": same, "csv": tmp_path / "." / "report.out"}, META, rows)
    assert list(tmp_path.iterdir()) == []


def test_csv_and_junit_alone_never_label_the_run(tmp_path: Path) -> None:
    rows = random_rows(30, seed=2)
    prepared = prepare_run(rows)
    write_reports(
        {"csv": tmp_path / "r.csv", "junit": tmp_path / "r.xml"},
        META,
        rows,
        prepared=prepared,
        processes=2,
    )
    assert "labels" not in vars(prepared) and "report" not in vars(prepared)
    write_reports({"rasa": tmp_path / "rasa"}, META, rows, prepared=prepared, processes=2)
    assert "labels" in vars(prepared) and "report" in vars(prepared)


def test_big_parts_come_back_whole_from_the_shared_file() -> None:
    here = os.getpid()

    def fn(lo: int, hi: int) -> dict[str, object]:
        big = bytes(range(256)) * (1000 + lo)  # beyond the out-of-band threshold
        return {"big": big, "pair": (big[:10], [big, lo]), "text": "é" * hi, "pid": os.getpid()}

    first, second = map_ranges(fn, 4, 2)
    assert first["pid"] == here and second["pid"] != here
    expected = fn(2, 4)
    assert bytes(second["big"]) == expected["big"]  # type: ignore[call-overload]
    small, (big, lo) = second["pair"]  # type: ignore[misc]
    assert (small, bytes(big), lo) == (expected["big"][:10], expected["big"], 2)  # type: ignore[index]
    assert second["text"] == "é" * 4


def test_a_big_run_gives_the_same_bytes_in_two_processes(tmp_path: Path) -> None:
    rows = random_rows(3000, seed=11)  # parts of several hundred kilobytes
    write_reports(targets(tmp_path / "one"), META, rows, processes=1)
    write_reports(targets(tmp_path / "two"), META, rows, processes=2)
    assert contents(tmp_path / "two") == contents(tmp_path / "one")
    assert (tmp_path / "one" / "report.json").stat().st_size > 1_000_000
