"""The run store: every run and result in one database shared by the CLI and the TUI.

An SQLite file by default, or a PostgreSQL database a team shares (:mod:`.backend`).

WAL mode lets one process write results while others list runs or edit a note; each batch of
results is one short transaction, so a ``kill -9`` loses at most the batch being gathered.
A run that says ``running`` but whose process is gone is marked ``interrupted`` by
:meth:`RunStore.mark_interrupted`, which both faces call at start-up.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from nlu_tui import store_location as location
from nlu_tui.errors import InputError
from nlu_tui.gcpause import gc_paused
from nlu_tui.model import (
    MAX_NOTE_CHARS,
    CaseResult,
    Prediction,
    ResultType,
    RunStatus,
    Suite,
    TestCase,
    digest_bytes,
)
from nlu_tui.store import codec
from nlu_tui.store.backend import Database, StoreError, open_database

__all__ = ["RunStore", "StoreError", "StoredResult", "new_run_id"]
from nlu_tui.store.records import ITEM_OUTCOMES, RunRecord, StoredItem

HEARTBEAT_STALE_S = 60.0
"""A running run whose heartbeat is older than this is taken for dead even if its pid lives
(pids are reused, and another host's pids cannot be checked)."""

_COUNT_COLUMNS = {
    ResultType.TP: "tp",
    ResultType.TN: "tn",
    ResultType.FP: "fp",
    ResultType.FN: "fn",
    ResultType.ERROR: "errors",
}

StoredResult = tuple[TestCase, Prediction, CaseResult]


def new_run_id() -> str:
    return uuid.uuid4().hex[:12]


ResultRow = tuple[str, str, int, str, float | None, str, str]
"""One ``results`` row: run id, case id, seq, result, latency, prediction and result JSON."""


def suite_digest(suite: Suite) -> str:
    """The suite file's digest when it was loaded from one, else a digest of its cases."""
    if suite.loaded_digest:
        return suite.loaded_digest
    return digest_bytes(codec.dumps(suite.cases).encode("utf-8"))


def check_note(note: str) -> str:
    if len(note) > MAX_NOTE_CHARS:
        raise InputError(
            f"a note holds at most {MAX_NOTE_CHARS} characters (this one has {len(note)})",
            field="note",
        )
    return note


def current_user() -> str | None:
    """Who is running nlu-tui: the login name (``LOGNAME``, ``USER``, ``LNAME``, ``USERNAME``,
    else the password database), None when none can be found."""
    import getpass

    try:
        return getpass.getuser() or None
    except Exception:  # no such variable and no passwd entry (a bare container)
        return None


def pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


class RunStore:
    """One connection to the store (an SQLite file or a PostgreSQL database, see
    :mod:`.backend`); safe to share between threads of one process.

    ``where`` is an SQLite file (a :class:`Path`), a store URL (``sqlite:///...``,
    ``postgresql://...``) or None for the configured store (:func:`nlu_tui.store_location.configured`).
    Opening it marks runs whose process died as interrupted (``detect_interrupted=False`` to
    skip that).
    """

    def __init__(self, where: Path | str | None = None, *, detect_interrupted: bool = True) -> None:
        self.location = location.resolve(where)
        self.path: Path | None = self.location.path
        """The SQLite file (None on PostgreSQL)."""
        self.label = self.location.label
        """The store as messages name it (never with a password)."""
        self._db = open_database(self.location)
        try:
            self._host = socket.gethostname()
            self._user = current_user()
            if detect_interrupted:
                self.mark_interrupted()
        except BaseException:
            self._db.close()
            raise

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._db.backend

    def schema_version(self) -> int:
        """The store's schema version (:data:`.schema.SCHEMA_VERSION` once opened)."""
        return self._db.schema_version()

    # --- plumbing ---------------------------------------------------------------------------

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _tx(self) -> contextlib.AbstractContextManager[Database]:
        """A write transaction taken up front, so concurrent writers queue instead of failing."""
        return self._db.transaction()

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Mapping[str, Any]]:
        return self._db.query(sql, params)

    # --- runs -------------------------------------------------------------------------------

    def create_run(
        self,
        suite: Suite,
        *,
        engine_name: str,
        engine_profile: dict[str, Any] | None = None,
        stage: str = "development",
        note: str = "",
        options: dict[str, Any] | None = None,
        pid: int | None = None,
        cases: Sequence[TestCase] | None = None,
        kind: str = "suite",
        total: int | None = None,
        digest: str | None = None,
        run_id: str | None = None,
    ) -> RunRecord:
        """Record a new ``running`` run with a copy of the suite's cases (the run's own truth).

        A run of another ``kind`` (its units of work are items, see :meth:`add_items`) passes
        ``cases=[]``, its number of items as ``total`` and the content hash of its test files as
        ``digest``; ``suite`` then only names it (name and path).
        """
        check_note(note)
        cases = list(suite.cases if cases is None else cases)
        ids = [c.id for c in cases]
        if len(set(ids)) != len(ids):
            dup = next(i for i, n in Counter(ids).items() if n > 1)
            raise InputError(f"case id {dup!r} occurs more than once", field="id", kind="case")
        shared = run_id is not None  # a sharded run: many processes, on many hosts
        run_id = run_id or new_run_id()
        now = time.time()
        with self._tx() as conn:
            created = conn.executemany(
                "INSERT INTO runs (id, suite_name, suite_path, suite_hash, engine_name,"
                " engine_json, stage, status, note, total, started_at, pid, host, heartbeat_at,"
                " options_json, kind, started_by, started_on)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                " ON CONFLICT (id) DO NOTHING",
                [
                    (
                        run_id,
                        suite.name,
                        str(Path(suite.path).resolve()) if suite.path else None,
                        digest or suite_digest(suite),
                        engine_name,
                        json.dumps(engine_profile or {}, ensure_ascii=False, default=str),
                        str(stage),
                        RunStatus.RUNNING.value,
                        note,
                        len(cases) if total is None else int(total),
                        now,
                        None if shared else pid if pid is not None else os.getpid(),
                        None if shared else self._host,
                        now,
                        json.dumps(options or {}, default=str),
                        kind,
                        self._user,
                        self._host,
                    )
                ],
            )
            if not created:  # another shard created it first
                return self.get_run(run_id)
            conn.runs_changed()
            conn.executemany(
                "INSERT INTO cases (run_id, seq, case_id, case_json) VALUES (?,?,?,?)",
                ((run_id, seq, c.id, codec.dumps(c)) for seq, c in enumerate(cases)),
            )
        return self.get_run(run_id)

    def rejoin_shared_run(self, run_id: str) -> RunRecord:
        """Set a sharded run running again if it had stopped (a shard resumed or joining
        late); a running one is left as is: its other shards are at work."""
        run = self.get_run(run_id)
        if run.status in (RunStatus.SUCCESS, RunStatus.SUCCESS_WITH_WARNING):
            return run
        with self._tx() as conn:
            conn.execute(
                "UPDATE runs SET status=?, reason=NULL, finished_at=NULL, pid=NULL, host=NULL,"
                " heartbeat_at=? WHERE id=?",
                (RunStatus.RUNNING.value, time.time(), run.id),
            )
            conn.runs_changed()
        return self.get_run(run.id)

    def claim_finish(self, run_id: str, status: RunStatus, reason: str | None) -> bool:
        """End an unfinished run unless another process ended it first (the last shards of a
        sharded run race here): True for the one process that did."""
        now = time.time()
        with self._tx() as conn:
            n = conn.executemany(
                "UPDATE runs SET status=?, reason=?, finished_at=?, heartbeat_at=?"
                " WHERE id=? AND status NOT IN (?, ?)",
                [
                    (
                        RunStatus(status).value,
                        reason,
                        now,
                        now,
                        run_id,
                        RunStatus.SUCCESS.value,
                        RunStatus.SUCCESS_WITH_WARNING.value,
                    )
                ],
            )
            if n:
                conn.runs_changed()
        return n == 1

    def resume_run(self, run_id: str, *, pid: int | None = None) -> RunRecord:
        """Set a canceled, interrupted or failed run running again (in this process)."""
        from nlu_tui.errors import ConflictError

        self.mark_interrupted()
        run = self.get_run(run_id)
        if run.status == RunStatus.RUNNING:
            raise ConflictError(f"run {run.id} is still running (pid {run.pid})")
        now = time.time()
        with self._tx() as conn:
            conn.execute(
                "UPDATE runs SET status=?, reason=NULL, finished_at=NULL, pid=?, host=?,"
                " heartbeat_at=? WHERE id=?",
                (
                    RunStatus.RUNNING.value,
                    pid if pid is not None else os.getpid(),
                    self._host,
                    now,
                    run.id,
                ),
            )
            conn.runs_changed()
        return self.get_run(run.id)

    def finish_run(self, run_id: str, status: RunStatus, reason: str | None = None) -> RunRecord:
        """Record how the run ended; the note is left alone (it may be edited concurrently)."""
        now = time.time()
        with self._tx() as conn:
            conn.execute(
                "UPDATE runs SET status=?, reason=?, finished_at=?, heartbeat_at=? WHERE id=?",
                (RunStatus(status).value, reason, now, now, run_id),
            )
            conn.runs_changed()
        return self.get_run(run_id)

    def heartbeat(self, run_id: str) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE runs SET heartbeat_at=? WHERE id=?", (time.time(), run_id))

    def set_note(self, run_id: str, note: str) -> RunRecord:
        """Add or replace the note, while the run goes or after (any process may do it)."""
        check_note(note)
        run = self.get_run(run_id)
        with self._tx() as conn:
            conn.execute("UPDATE runs SET note=? WHERE id=?", (note, run.id))
            conn.runs_changed()
        return self.get_run(run.id)

    def delete_run(self, run_id: str) -> None:
        run = self.get_run(run_id)
        with self._tx() as conn:
            conn.execute("DELETE FROM results WHERE run_id=?", (run.id,))
            conn.execute("DELETE FROM items WHERE run_id=?", (run.id,))
            conn.execute("DELETE FROM cases WHERE run_id=?", (run.id,))
            conn.execute("DELETE FROM runs WHERE id=?", (run.id,))
            conn.runs_changed()

    def mark_interrupted(self) -> list[str]:
        """Turn ``running`` runs whose process died into ``interrupted``; returns their ids."""
        now = time.time()
        dead = []
        for row in self._query(
            "SELECT id, pid, host, heartbeat_at FROM runs WHERE status=?",
            (RunStatus.RUNNING.value,),
        ):
            stale = (row["heartbeat_at"] or 0.0) < now - HEARTBEAT_STALE_S
            gone = row["host"] == self._host and not pid_alive(row["pid"])
            if stale or gone:
                dead.append(row["id"])
        if dead:
            with self._tx() as conn:
                for run_id in dead:
                    conn.execute(
                        "UPDATE runs SET status=?, reason=?, finished_at=heartbeat_at"
                        " WHERE id=? AND status=?",
                        (
                            RunStatus.INTERRUPTED.value,
                            "the process running it stopped before it finished",
                            run_id,
                            RunStatus.RUNNING.value,
                        ),
                    )
                conn.runs_changed()
        return dead

    def _record(self, row: Mapping[str, Any]) -> RunRecord:
        return RunRecord(
            id=row["id"],
            suite_name=row["suite_name"],
            suite_path=row["suite_path"],
            suite_hash=row["suite_hash"],
            engine_name=row["engine_name"],
            engine_profile=json.loads(row["engine_json"] or "{}"),
            stage=row["stage"],
            status=RunStatus(row["status"]),
            reason=row["reason"],
            note=row["note"] or "",
            total=row["total"],
            done=row["done"],
            tp=row["tp"],
            tn=row["tn"],
            fp=row["fp"],
            fn=row["fn"],
            errors=row["errors"],
            started_at=row["started_at"],
            finished_at=row["finished_at"],
            pid=row["pid"],
            host=row["host"],
            heartbeat_at=row["heartbeat_at"],
            options=json.loads(row["options_json"] or "{}"),
            kind=row["kind"],
            passed=row["passed"],
            failed=row["failed"],
            summary=json.loads(row["summary_json"] or "{}"),
            started_by=row["started_by"],
            started_on=row["started_on"],
        )

    def find_run(self, run_id: str) -> RunRecord | None:
        """The run with this id, or the only one whose id starts with it."""
        rows = self._query("SELECT * FROM runs WHERE id=?", (run_id,))
        if not rows and run_id:
            pattern = run_id.replace("\\", "").replace("%", "").replace("_", "") + "%"
            rows = self._query("SELECT * FROM runs WHERE id LIKE ? LIMIT 2", (pattern,))
            if len(rows) > 1:
                raise InputError(f"run id {run_id!r} is ambiguous; give more characters")
        return self._record(rows[0]) if rows else None

    def get_run(self, run_id: str) -> RunRecord:
        run = self.find_run(run_id)
        if run is None:
            raise InputError(f"no run with id {run_id!r} (see `nlu-tui runs`)")
        return run

    @staticmethod
    def _suite_filter(suite: str | Path | None) -> tuple[str, list[Any]]:
        """The WHERE clause (and its parameters) of the runs of ``suite`` (all runs for None)."""
        if suite is None:
            return "", []
        text = str(suite)
        resolved = str(Path(text).expanduser().resolve())
        return " WHERE suite_path=? OR suite_name=? OR suite_hash=?", [resolved, text, text]

    def list_runs(
        self, suite: str | Path | None = None, *, limit: int | None = None
    ) -> list[RunRecord]:
        """Runs, newest first; ``suite`` matches a suite file path, name or content hash.

        With ``limit`` only that many rows are read: SQLite walks the ``runs_by_start`` index
        backwards and stops, so the newest 50 of 10,000 runs cost as much as 50 runs.
        """
        where, params = self._suite_filter(suite)
        sql = f"SELECT * FROM runs{where} ORDER BY started_at DESC, rowid DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(max(int(limit), 0))
        return [self._record(r) for r in self._query(sql, params)]

    def change_counter(self) -> int:
        """The store's change counter: it moves whenever a run is added, ends, resumes, is
        deleted or gets a note, by any writer (one row: as cheap as a query gets)."""
        return int(self._query("SELECT counter FROM store_changes")[0]["counter"])

    def count_runs(self, suite: str | Path | None = None) -> int:
        """How many runs :meth:`list_runs` would give without a limit."""
        where, params = self._suite_filter(suite)
        return int(self._query(f"SELECT COUNT(*) AS n FROM runs{where}", params)[0]["n"])

    # --- cases and results ------------------------------------------------------------------

    def load_cases(self, run_id: str) -> list[TestCase]:
        """The run's own copy of its cases, in suite order."""
        rows = self._query("SELECT case_json FROM cases WHERE run_id=? ORDER BY seq", (run_id,))
        with gc_paused(promote=True):  # many small acyclic objects: see nlu_tui.gcpause
            return [codec.case_from_json(r["case_json"]) for r in rows]

    def done_case_ids(self, run_id: str) -> set[str]:
        rows = self._query("SELECT case_id FROM results WHERE run_id=?", (run_id,))
        return {r["case_id"] for r in rows}

    def add_results(self, run_id: str, items: Iterable[tuple[int, Prediction, CaseResult]]) -> int:
        """Commit a batch of ``(seq, prediction, result)``; a case already stored is kept as is.

        Returns how many were new. Counters and the heartbeat move in the same transaction.
        """
        return self.insert_result_rows(run_id, self.result_rows(run_id, items))

    @staticmethod
    def result_rows(
        run_id: str, items: Iterable[tuple[int, Prediction, CaseResult]]
    ) -> list[ResultRow]:
        """The rows :meth:`add_results` writes: encoding them is Python work, best done where
        the objects live; :meth:`insert_result_rows` is SQLite's, and may run in a thread."""
        return [
            (
                run_id,
                res.case_id,
                seq,
                ResultType(res.result).value,
                res.latency_ms,
                codec.dumps(pred),
                codec.dumps(res),
            )
            for seq, pred, res in items
        ]

    def insert_result_rows(self, run_id: str, rows: Sequence[ResultRow]) -> int:
        """Commit rows made by :meth:`result_rows` (thread-safe); returns how many were new."""
        if not rows:
            return 0
        with self._tx() as conn:
            n = conn.executemany(
                "INSERT INTO results (run_id, case_id, seq, result, latency_ms,"
                " prediction_json, result_json) VALUES (?,?,?,?,?,?,?)"
                " ON CONFLICT (run_id, case_id) DO NOTHING",
                rows,
            )
            if n == len(rows):  # the usual case: every result was new
                added = Counter(_COUNT_COLUMNS[ResultType(row[3])] for row in rows)
                sets = "".join(f", {col} = {col} + ?" for col in added)
                conn.execute(
                    f"UPDATE runs SET done = done + ?, heartbeat_at = ?{sets} WHERE id=?",
                    (n, time.time(), *added.values(), run_id),
                )
            else:  # some were stored already: recount the run's results from the table
                counts = ", ".join(
                    f"{col} = (SELECT count(*) FROM results WHERE run_id = :id AND result = :{col})"
                    for col in _COUNT_COLUMNS.values()
                )
                conn.execute(
                    "UPDATE runs SET done = (SELECT count(*) FROM results WHERE run_id = :id),"
                    f" heartbeat_at = :now, {counts} WHERE id = :id",
                    {
                        "id": run_id,
                        "now": time.time(),
                        **{col: rt.value for rt, col in _COUNT_COLUMNS.items()},
                    },
                )
        return n

    # --- items (runs of other kinds) ----------------------------------------------------------

    def add_items(self, run_id: str, items: Iterable[StoredItem]) -> int:
        """Commit a batch of finished items; an item already stored is kept as is.

        Returns how many were new. ``done``, ``passed``, ``failed``, ``errors`` and the
        heartbeat move in the same transaction, so a killed run keeps exact counters. In a run
        of kind ``suite`` the items are repeated attempts of its cases (:mod:`nlu_tui.repeats`):
        its counters are its results', so only the heartbeat moves.
        """
        rows = []
        for item in items:
            if item.outcome not in ITEM_OUTCOMES:
                raise ValueError(f"item outcome {item.outcome!r} is not one of {ITEM_OUTCOMES}")
            rows.append(
                (
                    run_id,
                    item.item_id,
                    item.seq,
                    item.outcome,
                    item.latency_ms,
                    json.dumps(item.data, ensure_ascii=False, default=str),
                )
            )
        if not rows:
            return 0
        with self._tx() as conn:
            n = conn.executemany(
                "INSERT INTO items (run_id, item_id, seq, outcome, latency_ms, item_json)"
                " VALUES (?,?,?,?,?,?) ON CONFLICT (run_id, item_id) DO NOTHING",
                rows,
            )
            kind = conn.execute("SELECT kind FROM runs WHERE id = ?", (run_id,)).fetchone()
            if kind is not None and kind[0] == "suite":
                conn.execute("UPDATE runs SET heartbeat_at = ? WHERE id = ?", (time.time(), run_id))
                return n
            # A repeated run's attempts #2..#N (nlu_tui.repeats.ItemAttempts) are not counted:
            # the counters are the items' own rows, attempt #1.
            own = f"run_id = :id AND {conn.json_is_null('item_json', 'repeat_of')}"
            conn.execute(
                "UPDATE runs SET"
                f" done = (SELECT count(*) FROM items WHERE {own}),"
                f" passed = (SELECT count(*) FROM items WHERE {own} AND outcome = 'passed'),"
                f" failed = (SELECT count(*) FROM items WHERE {own} AND outcome = 'failed'),"
                f" errors = (SELECT count(*) FROM items WHERE {own} AND outcome = 'error'),"
                " heartbeat_at = :now WHERE id = :id",
                {"id": run_id, "now": time.time()},
            )
        return n

    def load_items(self, run_id: str, *, attempts: bool = False) -> list[StoredItem]:
        """Every stored item of the run, in seq order. The attempts #2..#N of a repeated
        conversation or DUT run (:class:`nlu_tui.repeats.ItemAttempts`) only with
        ``attempts``: reports, diffs and views read each item's own row."""
        run = self.get_run(run_id)
        own = "" if attempts else f" AND {self._db.json_is_null('item_json', 'repeat_of')}"
        rows = self._query(
            "SELECT item_id, seq, outcome, latency_ms, item_json FROM items"
            f" WHERE run_id=?{own} ORDER BY seq, item_id",
            (run.id,),
        )
        loads = codec.loads  # orjson: a repeated run holds several items per case
        with gc_paused(promote=True):  # many small acyclic objects: see nlu_tui.gcpause
            return [
                StoredItem(
                    item_id=r["item_id"],
                    seq=r["seq"],
                    outcome=r["outcome"],
                    latency_ms=r["latency_ms"],
                    data=loads(r["item_json"]),
                )
                for r in rows
            ]

    def done_item_ids(self, run_id: str) -> set[str]:
        """The items already stored: a resumed run sends none of them again."""
        rows = self._query("SELECT item_id FROM items WHERE run_id=?", (run_id,))
        return {r["item_id"] for r in rows}

    def update_options(self, run_id: str, updates: dict[str, Any]) -> RunRecord:
        """Merge ``updates`` into the run's options (e.g. a remote execution's id, kept so a
        resume finds it)."""
        run = self.get_run(run_id)
        options = {**run.options, **updates}
        with self._tx() as conn:
            conn.execute(
                "UPDATE runs SET options_json=? WHERE id=?",
                (json.dumps(options, ensure_ascii=False, default=str), run.id),
            )
        return self.get_run(run.id)

    def set_summary(self, run_id: str, summary: dict[str, Any]) -> RunRecord:
        """Keep the kind's figures with the run (what history, diff and gates read later)."""
        run = self.get_run(run_id)
        with self._tx() as conn:
            conn.execute(
                "UPDATE runs SET summary_json=? WHERE id=?",
                (json.dumps(summary, ensure_ascii=False, default=str), run.id),
            )
            conn.runs_changed()
        return self.get_run(run.id)

    def load_results(self, run_id: str) -> list[StoredResult]:
        """Every stored result with its case and prediction, in suite order."""
        run = self.get_run(run_id)
        rows = self._query(
            "SELECT c.case_json, r.prediction_json, r.result_json FROM results r"
            " JOIN cases c ON c.run_id = r.run_id AND c.case_id = r.case_id"
            " WHERE r.run_id=? ORDER BY r.seq",
            (run.id,),
        )
        # Without the pause the collector rescans the growing heap: 1.7 s instead of 0.6 s for
        # 23,700 results with 10-intent rankings.
        with gc_paused(promote=True):
            return [
                (
                    codec.case_from_json(r["case_json"]),
                    codec.prediction_from_json(r["prediction_json"]),
                    codec.result_from_json(r["result_json"]),
                )
                for r in rows
            ]

    # --- the answer cache (nlu_tui.runner.answer_cache) ---------------------------------------

    def cached_answer(self, key: str, *, max_age: float | None = None) -> str | None:
        """The answer stored under ``key`` (JSON), if one is younger than ``max_age`` seconds
        (None: any age)."""
        rows = self._query("SELECT stored_at, answer_json FROM answer_cache WHERE key=?", (key,))
        if not rows:
            return None
        if max_age is not None and time.time() - float(rows[0]["stored_at"]) > max_age:
            return None
        return str(rows[0]["answer_json"])

    def cache_answers(self, profile: str, answers: Sequence[tuple[str, str]]) -> None:
        """Store ``(key, answer JSON)`` pairs for ``profile`` (a newer answer replaces one)."""
        if not answers:
            return
        now = time.time()
        with self._tx() as conn:
            conn.executemany(
                "INSERT INTO answer_cache (key, profile, stored_at, answer_json) VALUES (?,?,?,?)"
                " ON CONFLICT (key) DO UPDATE SET profile = excluded.profile,"
                " stored_at = excluded.stored_at, answer_json = excluded.answer_json",
                [(key, profile, now, answer) for key, answer in answers],
            )

    def clear_cache(self, profile: str | None = None) -> int:
        """Forget the cached answers of ``profile`` (None: of every profile); how many."""
        where, params = ("", ()) if profile is None else (" WHERE profile=?", (profile,))
        with self._tx() as conn:
            n = int(conn.query("SELECT count(*) AS n FROM answer_cache" + where, params)[0]["n"])
            conn.execute("DELETE FROM answer_cache" + where, params)
            return n

    def count_cached(self, profile: str | None = None) -> int:
        """How many answers are cached (for ``profile``, or in all)."""
        if profile is None:
            rows = self._query("SELECT count(*) AS n FROM answer_cache")
        else:
            rows = self._query("SELECT count(*) AS n FROM answer_cache WHERE profile=?", (profile,))
        return int(rows[0]["n"])
