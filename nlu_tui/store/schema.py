"""The run store's tables, and the migrations that bring an older file up to date.

``PRAGMA user_version`` holds the schema version; each entry of :data:`MIGRATIONS` moves the
file one version forward inside a transaction, so an older nlu-tui's store keeps working.
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 4

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

MIGRATIONS: dict[int, str] = {1: _V1, 2: _V2, 3: _V3, 4: _V4}
"""Version reached -> SQL that reaches it from the version before."""


def migrate(conn: sqlite3.Connection) -> None:
    """Bring the file to :data:`SCHEMA_VERSION`; refuse a file written by a newer nlu-tui."""
    from nlu_tui.errors import NluTuiError

    (version,) = conn.execute("PRAGMA user_version").fetchone()
    if version > SCHEMA_VERSION:
        raise NluTuiError(
            f"the run store was written by a newer nlu-tui (schema {version} > {SCHEMA_VERSION})"
        )
    while version < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            (current,) = conn.execute("PRAGMA user_version").fetchone()
            if current > version:  # another process migrated meanwhile
                conn.execute("ROLLBACK")
                version = current
                continue
            version += 1
            for statement in MIGRATIONS[version].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
