"""Comparisons in the run store: the runs of one suite on several engines, linked.

``nlu-tui run SUITE --engine a --engine b`` records a comparison before its first run starts
and adds each run as it is registered, so a comparison canceled halfway still lists the runs it
has. The tables are :mod:`.schema`'s version 5 (``comparisons``, ``comparison_runs``); the same
SQL runs on SQLite and PostgreSQL through the store's database seam (:mod:`.backend`).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.errors import InputError

if TYPE_CHECKING:
    from nlu_tui.store.runstore import RunStore

PREFIX = "cmp-"
"""Every comparison id starts with it, so ``show ID`` tells a comparison from a run."""


@dataclass(frozen=True)
class ComparisonRecord:
    """One stored comparison: what suite, when, and its runs in the engines' order."""

    id: str
    suite_name: str
    suite_path: str | None
    created_at: float
    run_ids: list[str] = field(default_factory=list)


def new_comparison_id() -> str:
    return PREFIX + uuid.uuid4().hex[:12]


def is_comparison_id(text: str) -> bool:
    return text.startswith(PREFIX)


def create_comparison(
    store: RunStore, suite_name: str, suite_path: Path | str | None
) -> ComparisonRecord:
    """Record a new comparison without runs (:func:`add_run` adds them)."""
    record = ComparisonRecord(
        new_comparison_id(),
        suite_name,
        str(Path(suite_path).resolve()) if suite_path else None,
        time.time(),
    )
    with store._tx() as db:
        db.execute(
            "INSERT INTO comparisons (id, suite_name, suite_path, created_at) VALUES (?,?,?,?)",
            (record.id, record.suite_name, record.suite_path, record.created_at),
        )
    return record


def add_run(store: RunStore, comparison_id: str, run_id: str) -> None:
    """Append ``run_id`` to the comparison (a run already in it is left where it is)."""
    with store._tx() as db:
        row = db.execute(
            "SELECT count(*) FROM comparison_runs WHERE comparison_id = ?", (comparison_id,)
        ).fetchone()
        db.executemany(
            "INSERT INTO comparison_runs (comparison_id, position, run_id) VALUES (?,?,?)"
            " ON CONFLICT DO NOTHING",
            [(comparison_id, int(row[0]), run_id)],
        )


def _record(store: RunStore, row: Mapping[str, Any]) -> ComparisonRecord:
    cid = str(row["id"])
    runs = store._query(
        "SELECT run_id FROM comparison_runs WHERE comparison_id = ? ORDER BY position", (cid,)
    )
    return ComparisonRecord(
        cid,
        str(row["suite_name"]),
        row["suite_path"],
        float(row["created_at"]),
        [str(r["run_id"]) for r in runs],
    )


def find_comparison(store: RunStore, comparison_id: str) -> ComparisonRecord | None:
    """The comparison with this id, or the only one whose id starts with it."""
    rows = store._query("SELECT * FROM comparisons WHERE id = ?", (comparison_id,))
    if not rows and comparison_id:
        pattern = comparison_id.replace("\\", "").replace("%", "").replace("_", "") + "%"
        rows = store._query("SELECT * FROM comparisons WHERE id LIKE ? LIMIT 2", (pattern,))
        if len(rows) > 1:
            raise InputError(f"comparison id {comparison_id!r} is ambiguous; give more characters")
    return _record(store, rows[0]) if rows else None


def get_comparison(store: RunStore, comparison_id: str) -> ComparisonRecord:
    found = find_comparison(store, comparison_id)
    if found is None:
        raise InputError(f"no comparison with id {comparison_id!r}")
    return found


def comparisons_of_run(store: RunStore, run_id: str) -> list[ComparisonRecord]:
    """The comparisons ``run_id`` belongs to, newest first."""
    rows = store._query(
        "SELECT c.* FROM comparisons c JOIN comparison_runs r ON r.comparison_id = c.id"
        " WHERE r.run_id = ? ORDER BY c.created_at DESC",
        (run_id,),
    )
    return [_record(store, row) for row in rows]


def list_comparisons(store: RunStore, limit: int | None = None) -> list[ComparisonRecord]:
    """Every comparison, newest first (at most ``limit``)."""
    sql = "SELECT * FROM comparisons ORDER BY created_at DESC"
    rows = store._query(sql + (f" LIMIT {int(limit)}" if limit is not None else ""))
    return [_record(store, row) for row in rows]
