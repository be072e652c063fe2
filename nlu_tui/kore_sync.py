"""Kore.ai batch test suites synced both ways: ``kore pull``, ``kore push``, ``kore list``.

``pull`` exports the bot's custom suites (Export Batch Test Suite) and writes each as a
``*.suite.yaml`` (atomic); ``push`` writes a suite in Kore.ai's JSON (``formats.kore_json``),
uploads it and imports it (Import Batch Test Suite, ``new`` or ``update``). What was synced is
kept next to the suites in ``.kore-sync.json``: per file, the profile, bot, remote suite name
and the SHA-256 of the local file and of the remote JSON at the last sync. So a pull never
clobbers a file edited since (unless ``force``), and a push never overwrites a remote suite that
changed since the last pull or push, nor one never pulled here (unless ``force``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlu_tui.engines.kore import KoreEngine
from nlu_tui.engines.kore_platform import KoreApiError, KorePlatform, RemoteSuite
from nlu_tui.errors import InputError
from nlu_tui.fileio import atomic_write_bytes, atomic_write_text

STATE_FILE = ".kore-sync.json"
SUFFIX = ".suite.yaml"


@dataclass
class Pulled:
    name: str
    path: Path
    cases: int
    unchanged: bool


@dataclass
class Pushed:
    name: str
    cases: int
    created: bool


def platform_for(profile: str, workspace: Path | None = None) -> KorePlatform:
    """The Kore.ai APIs of a ``kore`` profile (InputError naming the profile otherwise)."""
    return _platform(profile, workspace)[0]


def _platform(profile: str, workspace: Path | None) -> tuple[KorePlatform, dict[str, Any]]:
    """The Kore.ai APIs of a ``kore`` profile and the profile's public settings."""
    from nlu_tui.engines.profiles import resolve_engine

    resolved = resolve_engine(profile, None, "development", workspace)
    engine = resolved.engine
    if not isinstance(engine, KoreEngine):
        raise InputError(
            f"profile '{profile}' is type {engine.type_name}, not kore",
            field=f"engines.{profile}.type",
        )
    return KorePlatform(engine, profile), dict(resolved.profile_public)


def _run(platform: KorePlatform, work: Callable[[], Any]) -> Any:
    async def go() -> Any:
        try:
            return await work()
        finally:
            await platform.engine.close()

    return asyncio.run(go())


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_stem(name: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "suite"
    return stem[:100]


def _read_state(folder: Path) -> dict[str, Any]:
    path = folder / STATE_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the sync state: {exc}", path=path) from None
    return data if isinstance(data, dict) else {}


def _write_state(folder: Path, state: dict[str, Any]) -> None:
    atomic_write_text(folder / STATE_FILE, json.dumps(state, indent=2, sort_keys=True) + "\n")


def _suite_from_json(data: bytes, name: str, where: str) -> Any:
    """Kore.ai's JSON as our suite (via the kore-json reader; InputError naming the API)."""
    import tempfile

    from nlu_tui.formats import kore_json

    try:
        doc = json.loads(data)
    except ValueError:
        raise InputError(f"{where}: the export is not JSON", field="testCases") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("testCases"), list):
        raise InputError(f"{where}: the export has no testCases list", field="testCases")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "export.json"
        path.write_bytes(data)
        suite, _warnings = kore_json.load(path)
    suite.name = name
    suite.path = None
    return suite


def list_remote(profile: str, workspace: Path | None = None) -> list[RemoteSuite]:
    platform = platform_for(profile, workspace)
    result: list[RemoteSuite] = _run(platform, platform.list_suites)
    return result


def pull(
    profile: str,
    folder: Path,
    name: str | None = None,
    *,
    force: bool = False,
    workspace: Path | None = None,
) -> list[Pulled]:
    """Export the bot's custom suites (or the one named) into ``folder``. Every target is
    checked before anything is written: a file changed locally since the last sync stops the
    pull (InputError) unless ``force``."""
    from nlu_tui.formats.native_writer import dump_suite

    platform = platform_for(profile, workspace)
    folder.mkdir(parents=True, exist_ok=True)
    state = _read_state(folder)

    async def fetch() -> list[tuple[RemoteSuite, bytes]]:
        suites = await platform.list_suites()
        chosen = [s for s in suites if s.kind in ("", "custom")]
        if name is not None:
            chosen = [s for s in chosen if s.name == name]
            if not chosen:
                raise InputError(
                    f"profile '{profile}': the bot has no custom batch test suite named {name!r}",
                    field="SUITE_NAME",
                )
        return [(s, await platform.export_suite(s.name)) for s in chosen]

    exported: list[tuple[RemoteSuite, bytes]] = _run(platform, fetch)
    planned: list[tuple[str, Path, bytes, bytes, int]] = []
    for remote, data in exported:
        where = f"Kore.ai Export Batch Test Suite API (suite {remote.name!r})"
        suite = _suite_from_json(data, remote.name, where)
        suite.description = remote.description
        text = dump_suite(suite).encode("utf-8")
        target = folder / (file_stem(remote.name) + SUFFIX)
        record = state.get(target.name)
        if target.exists() and not force:
            current = _sha(target.read_bytes())
            if not isinstance(record, dict) or record.get("local") != current:
                raise InputError(
                    f"{target.name} changed locally since the last pull (or was never pulled); "
                    "push it first or pull again with --force",
                    path=target,
                )
        planned.append((remote.name, target, text, data, len(suite.cases)))
    done: list[Pulled] = []
    for remote_name, target, text, data, cases in planned:
        unchanged = target.exists() and target.read_bytes() == text
        if not unchanged:
            atomic_write_bytes(target, text)
        state[target.name] = {
            "profile": profile,
            "bot": platform.engine.bot_id,
            "suite": remote_name,
            "local": _sha(text),
            "remote": _sha(data),
        }
        done.append(Pulled(remote_name, target, cases, unchanged))
    _write_state(folder, state)
    return done


def push(
    path: Path,
    profile: str | None = None,
    *,
    name: str | None = None,
    force: bool = False,
    workspace: Path | None = None,
) -> Pushed:
    """Import the suite file into the bot (as Kore.ai JSON). Refuses, unless ``force``, to
    overwrite a remote suite that changed since the last sync or that was never synced here."""
    from nlu_tui.formats import kore_json
    from nlu_tui.runservice import load_suite_file

    path = Path(path)
    folder = path.parent
    state = _read_state(folder)
    record = state.get(path.name) if isinstance(state.get(path.name), dict) else None
    profile = profile or (record or {}).get("profile")
    if not profile:
        raise InputError(
            f"{path.name} was never pulled: name the profile with --profile", field="--profile"
        )
    suite = load_suite_file(path)
    remote_name = name or (record or {}).get("suite") or suite.name
    text, _warnings = kore_json.dumps(suite)
    data = text.encode("utf-8")
    platform = platform_for(profile, workspace)

    async def go() -> bool:
        suites = await platform.list_suites()
        exists = any(s.name == remote_name for s in suites)
        if exists and not force:
            current = _sha(await platform.export_suite(remote_name))
            synced = record is not None and record.get("bot") == platform.engine.bot_id
            if not synced:
                raise InputError(
                    f"profile '{profile}': the bot already has a suite {remote_name!r} that was "
                    "never pulled here; pull it first or push with --force",
                    path=path,
                )
            if current != (record or {}).get("remote"):
                raise InputError(
                    f"profile '{profile}': the remote suite {remote_name!r} changed since the "
                    "last pull; pull it again or push with --force",
                    path=path,
                )
        await platform.import_suite(remote_name, data, update=exists, description=suite.description)
        return not exists

    try:
        created: bool = _run(platform, go)
    except KoreApiError:
        raise
    state[path.name] = {
        "profile": profile,
        "bot": platform.engine.bot_id,
        "suite": remote_name,
        "local": _sha(path.read_bytes()),
        "remote": _sha(data),
    }
    _write_state(folder, state)
    return Pushed(remote_name, len(suite.cases), created)


def _timestamp(text: str, field: str, end: bool) -> str:
    """A ``--from``/``--to`` date (``YYYY-MM-DD``) or ISO time as Get Analytics' timestamp."""
    from datetime import UTC, datetime

    value = text.strip()
    try:
        if len(value) == 10:
            day = datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=UTC)
            stamp = day.replace(hour=23, minute=59, second=59, microsecond=999000) if end else day
        else:
            stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
            stamp = stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)
    except ValueError:
        raise InputError(
            f"{value!r} is not a date (YYYY-MM-DD) or an ISO time", field=field
        ) from None
    return (
        stamp.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"
    )


def live_success_records(
    profile: str, start: str, end: str, workspace: Path | None = None
) -> tuple[list[Any], int]:
    """The records of Get Analytics for intents found and tasks completed between two dates
    (every page of both types), and how many pages were read."""
    from nlu_tui.successes_kore import kore_records

    since = _timestamp(start, "--from", end=False)
    until = _timestamp(end, "--to", end=True)
    if since > until:
        raise InputError(f"--from {start} is after --to {end}", field="--from")
    platform = platform_for(profile, workspace)

    async def go() -> list[dict[str, Any]]:
        found = await platform.analytics("successintent", since, until)
        done = await platform.analytics("successtask", since, until)
        return [*found, *done]

    pages: list[dict[str, Any]] = _run(platform, go)
    return kore_records(pages, f"Kore.ai Get Analytics API (profile '{profile}')"), len(pages)


@dataclass
class PulledUtterances:
    path: Path
    utterances: int
    cases: int


def pull_utterances(
    profile: str, folder: Path, stage: str = "development", workspace: Path | None = None
) -> PulledUtterances:
    """Save the bot's ML utterances (ML Utterances Export, JSON) as
    ``FOLDER/PROFILE.kore-utterances.json``: the workspace lists it as the read-only
    "Developer defined utterances" suite. The export is checked before anything is written
    (a file in an unexpected shape is refused, the old file kept), then written atomically."""
    from nlu_tui.formats.kore_ml_utterances import SUFFIX, developer_suite, read_entries

    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder", field="--dir")
    platform, public = _platform(profile, workspace)
    poll = float(public.get("batch_poll_seconds") or 2.0)
    deadline = float(public.get("batch_deadline_seconds") or 600.0)

    async def go() -> bytes:
        data: bytes = await platform.ml_utterances(stage, poll=poll, deadline=deadline)
        return data

    data: bytes = _run(platform, go)
    pairs = read_entries(data, f"Kore.ai ML Utterances Export (profile '{profile}')")
    path = folder / f"{file_stem(profile)}{SUFFIX}"
    atomic_write_bytes(path, data)
    return PulledUtterances(path, len(pairs), len(developer_suite(path, profile).cases))
