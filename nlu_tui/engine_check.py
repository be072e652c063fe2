"""Checking an engine spec before a run starts: can it be built, and does its server answer?

The workbench's run dialog calls :func:`check_engine` (in a worker, off the UI thread) while
the user picks or types an engine, and again on Start: a bad spec, a missing training file or
an unreachable server is said in the dialog, which stays open. The CLI reaches the same
resolution through :func:`nlu_tui.runservice.open_run`.

What is checked, by engine:

- every engine: the spec resolves (a profile, ``embedded:PATH``, ``rasa:URL``, ...) and the
  engine is built (settings, environment variables, the training file) - nothing is trained;
- a Rasa server (``rasa``, ``rasa-pro``, or the ``nlu-tui serve`` server): ``GET /version``
  (no auth), then ``GET /status`` (with the profile's token) for the loaded model's file, as
  Rasa's HTTP API documents them (engine-apis.md §1: ``/status`` answers 409 without a model);
- another HTTP engine with a ``url`` setting: any HTTP answer from that URL's host means it is
  reachable (its status code is shown; no utterance is sent);
- cloud engines without a ``url`` (their address is built per request): checked when the run
  starts.

No Textual here; every message is one line, redacted of the engine's secrets.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.errors import InputError, NluTuiError

if TYPE_CHECKING:
    from nlu_tui.engines.profiles import ResolvedEngine

CHECK_TIMEOUT = 5.0
"""Seconds a server has to answer the check (a run itself uses the profile's timeout)."""


@dataclass(frozen=True)
class EngineCheck:
    """What :func:`check_engine` found: ``ok`` false means the run would not start."""

    ok: bool
    message: str
    reached: bool = False
    """A server answered (HTTP engines only)."""
    name: str = ""
    """The engine's name as a run stores it (``embedded:/abs/path``, a profile name...)."""
    timed_out: bool = False
    """The server did not answer within the check's time (busy or slow, maybe not down): a
    UI asks again on Start rather than keep this answer."""


def quick_check(
    spec: str,
    suite_path: Path | None = None,
    workspace: Path | None = None,
    stage: str = "development",
) -> EngineCheck | None:
    """Resolve ``spec`` as a run would, without the network: a failed check (a bad spec, a
    missing file, a missing variable), a passed one for an engine that answers locally, or
    None for an HTTP engine (:func:`check_engine` asks its server). Fast enough to call on
    Start; it reads files, so a UI calls it between keys, never in a loop."""
    found = _resolved(spec, suite_path, workspace, stage)
    return found if isinstance(found, EngineCheck) else None


def _resolved(
    spec: str, suite_path: Path | None, workspace: Path | None, stage: str
) -> EngineCheck | ResolvedEngine:
    from nlu_tui.runservice import resolve_run_engine

    spec = spec.strip()
    if not spec:
        return EngineCheck(False, "no engine spec")
    try:
        resolved = resolve_run_engine(spec, suite_path, stage, workspace)
    except InputError as exc:  # the spec itself: "field 'engine'" says nothing here
        plain = exc.path is None and exc.field == "engine"
        return EngineCheck(False, exc.message if plain else str(exc))
    except NluTuiError as exc:
        return EngineCheck(False, str(exc))
    engine = resolved.engine
    if not engine.capabilities.http:
        line = _local_line(resolved.profile_public, engine.type_name)
        return EngineCheck(True, line, name=resolved.name)
    return resolved


async def check_engine(
    spec: str,
    suite_path: Path | None = None,
    workspace: Path | None = None,
    stage: str = "development",
    *,
    timeout: float | None = None,
) -> EngineCheck:
    """Resolve ``spec`` as a run would, and for an HTTP engine ask its server if it is up
    (within ``timeout`` seconds, :data:`CHECK_TIMEOUT` by default)."""
    import asyncio

    if timeout is None:
        timeout = CHECK_TIMEOUT

    from nlu_tui.engines.httpcall import HttpEngine, redact

    found = await asyncio.to_thread(_resolved, spec, suite_path, workspace, stage)
    if isinstance(found, EngineCheck):
        return found
    engine, name = found.engine, found.name
    if not isinstance(engine, HttpEngine):
        return EngineCheck(True, f"{engine.type_name}: checked when the run starts", name=name)
    import httpx

    try:
        probed = await _probe(engine, timeout)
    except httpx.TimeoutException as exc:
        text = redact(str(exc) or type(exc).__name__, found.secrets)
        line = f"not answering within {timeout:g} s ({text})"
        return EngineCheck(False, line, name=name, timed_out=True)
    except Exception as exc:  # any failure is the line shown; the secrets never are
        text = redact(str(exc) or type(exc).__name__, found.secrets)
        return EngineCheck(False, f"not reachable: {text}", name=name)
    if probed is None:
        return EngineCheck(True, f"{engine.type_name}: checked when the run starts", name=name)
    ok, line = probed
    return EngineCheck(ok, redact(line, found.secrets), reached=True, name=name)


def _local_line(public: dict[str, Any], type_name: str) -> str:
    if type_name == "embedded" and public.get("nlu"):
        return f"embedded engine, learns from {Path(str(public['nlu'])).name}"
    return f"{type_name} engine"


async def _probe(engine: Any, timeout: float) -> tuple[bool, str] | None:
    """(reachable and usable, the line to show), or None when there is no URL to ask."""
    import httpx

    from nlu_tui.engines.httpcall import safe_url
    from nlu_tui.engines.rasa_common import RasaServer

    async with httpx.AsyncClient(timeout=timeout) as client:
        if isinstance(engine, RasaServer):
            return await _probe_rasa(engine, client)
        url = getattr(engine, "url", None) or getattr(engine, "base_url", None)
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            return None
        answer = await client.get(url)
        return True, f"reachable ({safe_url(url)} answers HTTP {answer.status_code})"


async def _probe_rasa(engine: Any, client: Any) -> tuple[bool, str]:
    from nlu_tui.engines.httpcall import safe_url

    base = engine.base_url
    version = await client.get(f"{base}/version")
    body = _json(version)
    if version.status_code != 200 or not isinstance(body, dict) or "version" not in body:
        return (
            False,
            f"{safe_url(base)} answers, but not as a Rasa server (HTTP {version.status_code})",
        )
    server = f"Rasa {body['version']}"
    status = await client.get(f"{base}/status", params=engine._params, headers=engine._headers)
    state = _json(status)
    if status.status_code == 200 and isinstance(state, dict) and state.get("model_file"):
        return True, f"reachable, model {state['model_file']} ({server})"
    if status.status_code == 409:
        return False, f"reachable ({server}), but no model is loaded"
    if status.status_code in (401, 403):
        return False, f"reachable ({server}), but it refused the token (HTTP {status.status_code})"
    return True, f"reachable ({server})"


def _json(answer: Any) -> Any:
    try:
        return answer.json()
    except ValueError:
        return None
