"""Sharded runs: N processes (CI jobs, machines) write one run in a shared store.

Each case belongs to exactly one shard, by a stable hash of its id (SHA-256, so every machine
and Python version agrees, whatever the suite's order). ``--shard I/N`` numbers shards from 1
to N, as a CI matrix does. A shard sends only its own cases not yet stored, so a shard killed
halfway is finished by any process with ``--resume RUN --shard I/N``; the run ends when every
case is in (the last shard finishes it, or ``nlu-tui run --finish RUN``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from nlu_tui.errors import InputError

SHARDS_KEY = "shards"
"""The run option that holds N for a sharded run."""

MAX_SHARDS = 1000
_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1..``count``) of a run split ``count`` ways."""

    index: int
    count: int

    def owns(self, case_id: str) -> bool:
        return shard_of(case_id, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_of(case_id: str, count: int) -> int:
    """The shard (1..count) a case belongs to."""
    digest = hashlib.sha256(case_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def parse_shard(text: str) -> Shard:
    """``I/N`` with 1 <= I <= N <= :data:`MAX_SHARDS`; anything else is bad input."""
    match = _SPEC.match(text)
    if not match:
        raise InputError(f"{text!r} is not a shard: write I/N, e.g. 1/3", field="--shard")
    index, count = int(match.group(1)), int(match.group(2))
    if not 1 <= count <= MAX_SHARDS:
        raise InputError(
            f"{text!r}: the number of shards must be 1 to {MAX_SHARDS}", field="--shard"
        )
    if not 1 <= index <= count:
        raise InputError(f"{text!r}: the shard must be 1 to {count}", field="--shard")
    return Shard(index, count)


def check_run_id(run_id: str) -> str:
    """A run id chosen by the user (``--run-id``): letters, digits, ``.``, ``_``, ``-``."""
    if not _RUN_ID.match(run_id):
        raise InputError(
            f"{run_id!r}: a run id is 1 to 64 letters, digits, '.', '_' or '-'",
            field="--run-id",
        )
    return run_id
