"""``nlu-tui store copy FROM TO``: move run history between stores (SQLite <-> PostgreSQL).

Every run of the source is copied with its cases, results and items, oldest first (so the
destination lists them in the same order), one transaction per run: a copy stopped halfway
leaves whole runs only, and running it again copies just the runs still missing. A run whose
id the destination already holds is skipped, never overwritten. Rows are copied as stored
(the JSON texts byte for byte), so ``show -f json`` gives the same output from either store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from nlu_tui.store.runstore import RunStore

RUN_COLUMNS = (
    "id", "suite_name", "suite_path", "suite_hash", "engine_name", "engine_json", "stage",
    "status", "reason", "note", "total", "done", "tp", "tn", "fp", "fn", "errors", "started_at",
    "finished_at", "pid", "host", "heartbeat_at", "options_json", "kind", "passed", "failed",
    "summary_json", "started_by", "started_on",
)  # fmt: skip
CHILD_TABLES: dict[str, tuple[str, ...]] = {
    "cases": ("run_id", "seq", "case_id", "case_json"),
    "results": (
        "run_id",
        "case_id",
        "seq",
        "result",
        "latency_ms",
        "prediction_json",
        "result_json",
    ),
    "items": ("run_id", "item_id", "seq", "outcome", "latency_ms", "item_json"),
}
"""The tables of :mod:`.schema` (version 6) and their columns, in the order runs need them."""


@dataclass
class CopyReport:
    copied: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    rows: int = 0
    comparisons: list[str] = field(default_factory=list)
    """The comparisons (engines side by side) copied; one the destination holds is skipped."""


def _insert(table: str, columns: tuple[str, ...]) -> str:
    marks = ",".join("?" * len(columns))
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"


def copy_history(
    source: RunStore,
    destination: RunStore,
    *,
    progress: Callable[[str, int], None] | None = None,
) -> CopyReport:
    """Copy every run of ``source`` missing from ``destination``; returns what was done."""
    report = CopyReport()
    runs = source._query(f"SELECT {', '.join(RUN_COLUMNS)} FROM runs ORDER BY started_at, rowid")
    for run in runs:
        run_id = run["id"]
        if destination._query("SELECT id FROM runs WHERE id=?", (run_id,)):
            report.skipped.append(run_id)
            continue
        children = {
            table: [
                tuple(row[c] for c in columns)
                for row in source._query(
                    f"SELECT {', '.join(columns)} FROM {table} WHERE run_id=?", (run_id,)
                )
            ]
            for table, columns in CHILD_TABLES.items()
        }
        with destination._tx() as db:
            rows = db.executemany(
                _insert("runs", RUN_COLUMNS) + " ON CONFLICT DO NOTHING",
                [tuple(run[c] for c in RUN_COLUMNS)],
            )
            if not rows:  # another copy got there first
                report.skipped.append(run_id)
                continue
            for table, columns in CHILD_TABLES.items():
                if children[table]:
                    rows += db.executemany(
                        _insert(table, columns) + " ON CONFLICT DO NOTHING", children[table]
                    )
            db.runs_changed()
        report.copied.append(run_id)
        report.rows += rows
        if progress is not None:
            progress(run_id, rows)
    _copy_comparisons(source, destination, report)
    return report


COMPARISON_COLUMNS = ("id", "suite_name", "suite_path", "created_at")
COMPARISON_RUN_COLUMNS = ("comparison_id", "position", "run_id")


def _copy_comparisons(source: RunStore, destination: RunStore, report: CopyReport) -> None:
    """Every comparison of ``source`` missing from ``destination``, oldest first, with the
    list of its runs (schema version 5), one transaction each."""
    comparisons = source._query(
        f"SELECT {', '.join(COMPARISON_COLUMNS)} FROM comparisons ORDER BY created_at, id"
    )
    for comparison in comparisons:
        members = [
            tuple(row[c] for c in COMPARISON_RUN_COLUMNS)
            for row in source._query(
                f"SELECT {', '.join(COMPARISON_RUN_COLUMNS)} FROM comparison_runs"
                " WHERE comparison_id=? ORDER BY position",
                (comparison["id"],),
            )
        ]
        with destination._tx() as db:
            if not db.executemany(
                _insert("comparisons", COMPARISON_COLUMNS) + " ON CONFLICT DO NOTHING",
                [tuple(comparison[c] for c in COMPARISON_COLUMNS)],
            ):
                continue
            if members:
                db.executemany(
                    _insert("comparison_runs", COMPARISON_RUN_COLUMNS) + " ON CONFLICT DO NOTHING",
                    members,
                )
        report.comparisons.append(str(comparison["id"]))
