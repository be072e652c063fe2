"""Both run store backends for one test: an SQLite file, or a fresh database on a throwaway
PostgreSQL server (:mod:`postgres_peer`, started once per session/worker).

A test module imports :func:`store_where` (and, for PostgreSQL only, :func:`pg_url`) and takes
it as an argument; ``store_where`` is parametrized over ``sqlite`` and ``postgresql``, giving a
:class:`Path` or a URL that :class:`~nlu_tui.store.RunStore` and ``--store`` both accept.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres_peer import PASSWORD, postgres_server

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[tuple[str, int]]:
    with postgres_server() as address:
        yield address


def new_database(server: tuple[str, int]) -> str:
    """A new, empty database on the server; its URL (with the test password)."""
    import psycopg

    host, port = server
    name = f"nlu_{uuid.uuid4().hex[:12]}"
    admin = f"postgresql://postgres:{PASSWORD}@{host}:{port}/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return f"postgresql://postgres:{PASSWORD}@{host}:{port}/{name}"


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> str:
    """A fresh PostgreSQL store URL (the server is started on first use)."""
    server: tuple[str, int] = request.getfixturevalue("pg_server")
    return new_database(server)


@pytest.fixture(params=BACKENDS)
def store_where(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """An empty store of each backend: an SQLite file path, or a PostgreSQL URL."""
    if request.param == "sqlite":
        return tmp_path / "runs.sqlite3"
    return str(request.getfixturevalue("pg_url"))
