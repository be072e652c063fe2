"""The run store's two databases behind one small seam: SQLite and PostgreSQL.

:class:`~nlu_tui.store.runstore.RunStore` writes its SQL once, in SQLite's spelling (``?`` and
``:name`` placeholders, ``ON CONFLICT ... DO NOTHING``); a :class:`Database` runs it. The
PostgreSQL one rewrites the placeholders to psycopg's ``%s`` / ``%(name)s``. The differences that
are not spelling are methods: :meth:`Database.transaction` (SQLite's ``BEGIN IMMEDIATE`` takes
the one write lock up front; PostgreSQL takes a transaction-scoped advisory lock, so writers
queue the same way and a recount never misses a concurrent commit), :meth:`Database.json_is_null`
(``json_extract`` vs ``->>``), :meth:`Database.executemany`'s count of rows really inserted
(``total_changes`` vs the summed ``rowcount``) and the schema version (``PRAGMA user_version``
vs the ``nlu_tui_schema`` table). Both hold the same tables (:mod:`.schema`); timestamps and
latencies are ``DOUBLE PRECISION`` on PostgreSQL (its ``REAL`` is 4 bytes), and its ``runs``
has a ``rowid`` column, SQLite's implicit insertion order, made explicit.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from nlu_tui.errors import NluTuiError
from nlu_tui.extras import need
from nlu_tui.store_location import StoreLocation, scrub

Params = Sequence[Any] | Mapping[str, Any]

PG_LOCK_KEY = 0x6E6C7574  # "nlut": the advisory lock every writer of one database takes
CHANGES_CHANNEL = "nlu_tui_runs"
"""The PostgreSQL channel a change to ``runs`` is notified on (``LISTEN nlu_tui_runs``)."""
CHANGED_SQL = "UPDATE store_changes SET counter = counter + 1"

_own_changes = 0
_own_lock = threading.Lock()


def own_changes() -> int:
    """How many changes to ``runs`` this process has made (in any store): a change feed
    subtracts them, so a workbench is told only of other writers' changes (it reloads after
    its own already)."""
    return _own_changes


def _count_own_change() -> None:
    global _own_changes
    with _own_lock:
        _own_changes += 1


class StoreError(NluTuiError):
    """The run store cannot be used: not a store, damaged, unreachable or not writable."""

    def __init__(self, message: str, path: Path | str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


class StoreUnavailableError(StoreError):
    """The store's server cannot be reached now (connection lost or refused): a write may be
    tried again later (the run kernel keeps what it could not write and retries)."""


class Cursor(Protocol):
    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Database(Protocol):
    """What the run store needs from a database connection (shared by a process's threads)."""

    backend: str
    label: str

    def execute(self, sql: str, params: Params = ()) -> Cursor: ...

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int: ...

    def query(self, sql: str, params: Params = ()) -> list[Mapping[str, Any]]: ...

    def transaction(self) -> contextlib.AbstractContextManager[Database]: ...

    def json_is_null(self, column: str, key: str) -> str: ...

    def runs_changed(self) -> None:
        """Inside a write transaction: move the store's change counter (``store_changes``),
        and on PostgreSQL notify the listeners (delivered when the transaction commits)."""
        ...

    def schema_version(self) -> int: ...

    def close(self) -> None: ...


def open_database(location: StoreLocation) -> Database:
    """A connection to the store, its schema brought up to date (refusing a newer one)."""
    if location.backend == "postgresql":
        return PostgresDatabase(location)
    assert location.path is not None
    return SqliteDatabase(location.path)


# --- SQLite -----------------------------------------------------------------------------------


def _damaged(exc: sqlite3.DatabaseError) -> str:
    """Why a store file cannot be read, in words a user can act on."""
    text = str(exc)
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return (
            f"not a usable nlu-tui run store ({text}); move it aside or choose another "
            "with --data-dir"
        )
    return f"cannot use the run store: {text}"


def _unwritable(exc: BaseException) -> bool:
    """SQLite could not write the file (read-only file, folder or file system; disk full)."""
    name = getattr(exc, "sqlite_errorname", "")
    return isinstance(exc, sqlite3.OperationalError) and name.startswith(
        ("SQLITE_READONLY", "SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN")
    )


class SqliteDatabase:
    """One SQLite file in WAL mode: readers never wait, one writer at a time."""

    backend = "sqlite"

    def __init__(self, path: Path) -> None:
        from nlu_tui.store.schema import migrate_sqlite

        self.path = path
        self.label = str(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the run store's folder: {exc.strerror}", path
            ) from None
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the run store: {exc}", path) from None
        try:
            self._conn.execute("PRAGMA busy_timeout = 30000")
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            with self._lock:
                migrate_sqlite(self._conn)
            with contextlib.suppress(OSError):
                os.chmod(path, 0o600)
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise StoreError(_damaged(exc), path) from None
        except BaseException:
            self._conn.close()
            raise

    def execute(self, sql: str, params: Params = ()) -> Cursor:
        return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        before = self._conn.total_changes
        self._conn.executemany(sql, rows)
        return self._conn.total_changes - before

    def query(self, sql: str, params: Params = ()) -> list[Mapping[str, Any]]:
        with self._lock:
            cur = self._conn.cursor()
            cur.row_factory = sqlite3.Row
            try:
                return list(cur.execute(sql, params))
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                    raise
                raise StoreError(_damaged(exc), self.path) from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Database]:
        """A write transaction taken up front, so concurrent writers queue instead of failing."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self
            except BaseException as exc:
                self._conn.execute("ROLLBACK")
                if _unwritable(exc):  # a read-only file or folder, a full disk: one line
                    raise StoreError(f"cannot write the run store: {exc}", self.path) from None
                raise
            self._conn.execute("COMMIT")

    def json_is_null(self, column: str, key: str) -> str:
        return f"json_extract({column}, '$.{key}') IS NULL"

    def runs_changed(self) -> None:
        self._conn.execute(CHANGED_SQL)
        _count_own_change()  # before the commit: the feed never sees it as another's

    def schema_version(self) -> int:
        return int(self.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()


# --- PostgreSQL -------------------------------------------------------------------------------

_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


@functools.lru_cache(maxsize=256)
def to_psycopg(sql: str) -> str:
    """SQLite's placeholders in psycopg's spelling (``?`` -> ``%s``, ``:id`` -> ``%(id)s``)."""
    sql = sql.replace("%", "%%").replace("?", "%s")
    return _NAMED.sub(r"%(\1)s", sql)


class PostgresDatabase:
    """One psycopg 3 connection in autocommit mode; writes are explicit transactions."""

    backend = "postgresql"

    def __init__(self, location: StoreLocation) -> None:
        need("psycopg", "a PostgreSQL run store", field="--store")
        import psycopg
        from psycopg.rows import dict_row

        from nlu_tui.store.schema import migrate_postgres

        self._psycopg = psycopg
        self._dict_row = dict_row
        self.location = location
        self.label = location.label
        self._lock = threading.RLock()
        self._conn: Any = None
        self._conn = self._connect()
        try:
            with self._lock:
                migrate_postgres(self)
        except psycopg.Error as exc:
            self._conn.close()
            raise self._error("cannot use the run store", exc) from None
        except BaseException:
            self._conn.close()
            raise

    def _connect(self) -> Any:
        """A new connection. TCP keepalives and a user timeout make a server that vanished
        without closing the connection an error within about 30 s, never a hang."""
        psycopg = self._psycopg
        try:
            return psycopg.connect(
                self.location.url,
                autocommit=True,
                connect_timeout=10,
                application_name="nlu-tui",
                keepalives=1,
                keepalives_idle=10,
                keepalives_interval=5,
                keepalives_count=3,
                tcp_user_timeout=30000,
            )
        except psycopg.Error as exc:
            raise self._error("cannot connect to the run store", exc) from None
        except Exception as exc:  # a malformed conninfo string
            raise self._error("cannot connect to the run store", exc) from None

    def _live(self) -> Any:
        """The connection, opened again if the server dropped the last one (after a lost
        server, a restart or a failover the next call reconnects; a refusal is
        :class:`StoreUnavailableError`)."""
        if self._conn.closed or self._conn.broken:
            with contextlib.suppress(Exception):
                self._conn.close()
            try:
                self._conn = self._connect()
            except StoreError as exc:
                raise StoreUnavailableError(str(exc).split(": ", 1)[-1], self.label) from None
        return self._conn

    def _error(self, what: str, exc: BaseException) -> StoreError:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        first = lines[0] if lines else type(exc).__name__
        kind = (
            StoreUnavailableError
            if isinstance(exc, self._psycopg.OperationalError)
            and (self._conn is None or self._conn.closed or self._conn.broken)
            else StoreError
        )
        return kind(scrub(f"{what}: {first}", self.location), self.label)

    def execute(self, sql: str, params: Params = ()) -> Cursor:
        try:
            cursor: Cursor = self._live().execute(to_psycopg(sql), params)
            return cursor
        except self._psycopg.OperationalError as exc:
            raise self._error("lost the run store", exc) from None

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        try:
            with self._live().cursor() as cur:
                cur.executemany(to_psycopg(sql), rows)
                count: int = max(cur.rowcount, 0)
                return count
        except self._psycopg.OperationalError as exc:
            raise self._error("lost the run store", exc) from None

    def query(self, sql: str, params: Params = ()) -> list[Mapping[str, Any]]:
        with self._lock:
            try:
                with self._live().cursor(row_factory=self._dict_row) as cur:
                    cur.execute(to_psycopg(sql), params)
                    return list(cur.fetchall())
            except self._psycopg.Error as exc:
                raise self._error("cannot read the run store", exc) from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Database]:
        """One transaction holding the store's advisory lock: writers queue, as on SQLite."""
        with self._lock:
            try:
                tx = self._live().transaction()
                tx.__enter__()
            except self._psycopg.Error as exc:
                raise self._error("cannot write the run store", exc) from None
            try:
                self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (PG_LOCK_KEY,))
                yield self
            except BaseException as exc:
                with contextlib.suppress(self._psycopg.Error):
                    tx.__exit__(type(exc), exc, exc.__traceback__)
                if isinstance(exc, self._psycopg.Error):
                    raise self._error("cannot write the run store", exc) from None
                raise
            try:
                tx.__exit__(None, None, None)
            except self._psycopg.Error as exc:
                raise self._error("cannot write the run store", exc) from None

    def json_is_null(self, column: str, key: str) -> str:
        # json, not jsonb: jsonb refuses the \u0000 escape that item texts may hold
        return f"(({column})::json ->> '{key}') IS NULL"

    def runs_changed(self) -> None:
        self.execute(CHANGED_SQL)
        self.execute(f"NOTIFY {CHANGES_CHANNEL}")
        _count_own_change()

    def schema_version(self) -> int:
        return int(self.execute("SELECT version FROM nlu_tui_schema").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()
