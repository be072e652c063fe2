"""A throwaway PostgreSQL server on loopback, for the tracker-store import test.

Uses the machine's PostgreSQL binaries (Debian's ``postgresql`` package puts them in
``/usr/lib/postgresql/N/bin``; ``.ci/run`` installs it): ``initdb`` a cluster in a fresh folder
with password (SCRAM) authentication, ``pg_ctl start`` it on a free port, yield its address,
then stop it (by its data folder, never by name) and delete the folder. PostgreSQL refuses to
run as root, so as root the server runs as the ``postgres`` system user. Skips, saying why,
when no server can be had.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from rasa_peer import free_port

PASSWORD = "pg-Test-pw-7731"


def _bin_dir() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@contextlib.contextmanager
def postgres_server() -> Iterator[tuple[str, int]]:
    """A running server: yields (host, port); user ``postgres`` with :data:`PASSWORD`."""
    bin_dir = _bin_dir()
    if bin_dir is None:
        pytest.skip("no PostgreSQL server binaries (initdb): apt-get install postgresql")
    prefix: list[str] = []
    owner = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run PostgreSQL as")
        prefix = ["runuser", "-u", "postgres", "--"]
    folder = Path(tempfile.mkdtemp(prefix="nlu-tui-pg-"))
    data = folder / "data"
    try:
        if owner is not None:
            os.chown(folder, owner.pw_uid, owner.pw_gid)
        pwfile = folder / "pw"
        pwfile.write_text(PASSWORD + "\n", encoding="utf-8")
        if owner is not None:
            os.chown(pwfile, owner.pw_uid, owner.pw_gid)
        init = subprocess.run(
            [*prefix, str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres",
             "-A", "scram-sha-256", f"--pwfile={pwfile}"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if init.returncode != 0:
            pytest.skip(f"initdb failed: {init.stderr.strip()[-300:]}")
        port = free_port()
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1"
        start = subprocess.run(
            [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options,
             "-l", str(folder / "log"), "-w", "-t", "60", "start"],
            capture_output=True, text=True, timeout=90,
        )  # fmt: skip
        if start.returncode != 0:
            log = (folder / "log").read_text(errors="replace") if (folder / "log").is_file() else ""
            pytest.skip(f"PostgreSQL did not start: {(start.stderr + log).strip()[-300:]}")
        try:
            yield "127.0.0.1", port
        finally:
            subprocess.run(
                [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                capture_output=True, timeout=60,
            )  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)
