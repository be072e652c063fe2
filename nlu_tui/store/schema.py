"""The run store's tables, and the migrations that bring an older store up to date.

One schema, two backends. On SQLite ``PRAGMA user_version`` holds the schema version; on
PostgreSQL the one row of ``nlu_tui_schema``. Each entry of :data:`MIGRATIONS` moves the store
one version forward inside a transaction, so an older nlu-tui's store keeps working, and a store
written by a newer nlu-tui is refused before anything is written. PostgreSQL runs the same SQL
through :func:`postgres_sql` (8-byte floats, and ``runs.rowid`` for insertion order).
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from typing import Any, Protocol

from nlu_tui.errors import NluTuiError


class _Database(Protocol):
    """What a migration needs of :class:`nlu_tui.store.backend.PostgresDatabase`."""

    def execute(self, sql: str, params: Any = ()) -> Any: ...

    def transaction(self) -> contextlib.AbstractContextManager[Any]: ...


SCHEMA_VERSION = 6

_V1 = """
CREATE TABLE runs (
    id            TEXT PRIMARY KEY,
    suite_name    TEXT NOT NULL,
    suite_path    TEXT,
    suite_hash    TEXT NOT NULL,
    engine_name   TEXT NOT NULL,
    engine_json   TEXT NOT NULL DEFAULT '{}',
    stage         TEXT NOT NULL,
    status        TEXT NOT NULL,
    reason        TEXT,
    note          TEXT NOT NULL DEFAULT '',
    total         INTEGER NOT NULL,
    done          INTEGER NOT NULL DEFAULT 0,
    tp            INTEGER NOT NULL DEFAULT 0,
    tn            INTEGER NOT NULL DEFAULT 0,
    fp            INTEGER NOT NULL DEFAULT 0,
    fn            INTEGER NOT NULL DEFAULT 0,
    errors        INTEGER NOT NULL DEFAULT 0,
    started_at    REAL NOT NULL,
    finished_at   REAL,
    pid           INTEGER,
    host          TEXT,
    heartbeat_at  REAL,
    options_json  TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX runs_by_suite ON runs (suite_path, started_at);
CREATE INDEX runs_by_status ON runs (status);

CREATE TABLE cases (
    run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    case_id    TEXT NOT NULL,
    case_json  TEXT NOT NULL,
    PRIMARY KEY (run_id, seq),
    UNIQUE (run_id, case_id)
);

CREATE TABLE results (
    run_id           TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    case_id          TEXT NOT NULL,
    seq              INTEGER NOT NULL,
    result           TEXT NOT NULL,
    latency_ms       REAL,
    prediction_json  TEXT NOT NULL,
    result_json      TEXT NOT NULL,
    PRIMARY KEY (run_id, case_id)
);
CREATE INDEX results_by_seq ON results (run_id, seq);
"""

_V2 = """
CREATE INDEX IF NOT EXISTS runs_by_start ON runs (started_at);
"""
"""Listing the newest runs (``nlu-tui runs``, newest 50 by default) reads the index backwards
instead of sorting every run."""

_V3 = """
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'suite';
ALTER TABLE runs ADD COLUMN passed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN summary_json TEXT NOT NULL DEFAULT '{}';
CREATE TABLE items (
    run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    item_id     TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    outcome     TEXT NOT NULL,
    latency_ms  REAL,
    item_json   TEXT NOT NULL,
    PRIMARY KEY (run_id, item_id)
);
CREATE INDEX items_by_seq ON items (run_id, seq);
"""
"""Runs that are not one utterance per case (conversations, dialogue understanding tests,
repeated attempts, folds) keep their kind, pass/fail counters, a summary of kind-specific
figures, and one ``items`` row per unit of work, stored as it finishes like ``results``."""

_V4 = """
CREATE TABLE answer_cache (
    key          TEXT PRIMARY KEY,
    profile      TEXT NOT NULL,
    stored_at    REAL NOT NULL,
    answer_json  TEXT NOT NULL
);
CREATE INDEX answer_cache_by_profile ON answer_cache (profile);
"""
"""The answer cache of paid engines (a profile's ``cache: true``): one row per engine answer,
keyed by a digest of the engine's identity, the request and its parent context
(:mod:`nlu_tui.runner.answer_cache`); ``profile`` names the profile that stored it (``nlu-tui
cache clear PROFILE``). Never a secret: the key is a digest, the answer is what results store."""

_V5 = """
CREATE TABLE comparisons (
    id          TEXT PRIMARY KEY,
    suite_name  TEXT NOT NULL,
    suite_path  TEXT,
    created_at  REAL NOT NULL
);
CREATE INDEX comparisons_by_start ON comparisons (created_at);
CREATE TABLE comparison_runs (
    comparison_id  TEXT NOT NULL REFERENCES comparisons (id) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    run_id         TEXT NOT NULL,
    PRIMARY KEY (comparison_id, position),
    UNIQUE (comparison_id, run_id)
);
CREATE INDEX comparison_runs_by_run ON comparison_runs (run_id);
"""
"""Engines side by side (``nlu-tui run SUITE --engine a --engine b``): one ``comparisons`` row
links the runs of one suite on several engines, one ``comparison_runs`` row per run in the
order the engines were given (:mod:`nlu_tui.store.comparisons`). A run of a comparison is an
ordinary run; deleting it leaves the comparison, which then names it as missing."""

_V6 = """
ALTER TABLE runs ADD COLUMN started_by TEXT;
ALTER TABLE runs ADD COLUMN started_on TEXT;
CREATE TABLE store_changes (counter INTEGER NOT NULL);
INSERT INTO store_changes (counter) VALUES (0);
"""
"""Who ran what: the user and the host that started a run (``started_by``, ``started_on``; the
older ``host`` column is the host running it *now*, for liveness, and is cleared when a shard
rejoins). ``store_changes`` holds one counter that every change to ``runs`` (a run added,
ended, resumed, deleted, its note edited) moves in the same transaction: what a workbench polls
to refresh when another writer adds a run (:mod:`nlu_tui.store.changes`)."""

MIGRATIONS: dict[int, str] = {1: _V1, 2: _V2, 3: _V3, 4: _V4, 5: _V5, 6: _V6}
"""Version reached -> SQL that reaches it from the version before."""


POSTGRES_EXTRA: dict[int, str] = {1: "ALTER TABLE runs ADD COLUMN rowid BIGSERIAL"}
"""PostgreSQL's own statements after a version's: SQLite's implicit ``rowid`` (the order runs
were added in, the tie-break of listings), as a column."""


class NewerSchemaError(NluTuiError):
    """The store was written by a newer nlu-tui: refuse it rather than write an old shape."""

    def __init__(self, version: int) -> None:
        super().__init__(
            f"the run store was written by a newer nlu-tui (schema {version} > {SCHEMA_VERSION});"
            " upgrade nlu-tui to use it"
        )


def postgres_sql(sql: str) -> str:
    """A migration in PostgreSQL's types: its ``REAL`` is 4 bytes, too few for epoch times."""
    return re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql)


def _statements(sql: str) -> list[str]:
    return [s for s in sql.split(";") if s.strip()]


def migrate_postgres(db: _Database) -> None:
    """Bring the database to :data:`SCHEMA_VERSION` in one transaction under the store's lock."""
    with db.transaction():
        db.execute("CREATE TABLE IF NOT EXISTS nlu_tui_schema (version INTEGER NOT NULL)")
        row = db.execute("SELECT version FROM nlu_tui_schema").fetchone()
        if row is None:
            db.execute("INSERT INTO nlu_tui_schema (version) VALUES (0)")
        version = 0 if row is None else int(row[0])
        if version > SCHEMA_VERSION:
            raise NewerSchemaError(version)
        while version < SCHEMA_VERSION:
            version += 1
            for statement in _statements(MIGRATIONS[version]):
                db.execute(postgres_sql(statement))
            for statement in _statements(POSTGRES_EXTRA.get(version, "")):
                db.execute(statement)
        db.execute("UPDATE nlu_tui_schema SET version = ?", (version,))


def migrate(conn: sqlite3.Connection) -> None:
    """Bring the file to :data:`SCHEMA_VERSION`; refuse a file written by a newer nlu-tui."""
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    if version > SCHEMA_VERSION:
        raise NewerSchemaError(version)
    while version < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            (current,) = conn.execute("PRAGMA user_version").fetchone()
            if current > version:  # another process migrated meanwhile
                conn.execute("ROLLBACK")
                version = current
                continue
            version += 1
            for statement in _statements(MIGRATIONS[version]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


migrate_sqlite = migrate
