"""Engine profiles: ``engines.yaml`` names engines, their settings and their run limits.

::

    engines:
      bank-rasa:
        type: rasa
        url: http://127.0.0.1:5005
        token: ${RASA_TOKEN}          # secrets only as ${ENV_VAR} references
        concurrency: 16
        published: {url: https://rasa.example.com}

A profile is found beside the suite, then in the workspace, then in the user config folder.
``embedded:PATH``, ``rasa:URL`` and ``http:URL`` need no profile; a relative PATH is looked for
in the workspace folder, then in the shell's folder (CLI and workbench alike). References are resolved only
when an engine is built; what is stored with a run (``profile_public``) keeps the references.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui import paths
from nlu_tui.engines.base import (
    Engine,
    builtin_engine_type,
    create_engine,
    engine_factory,
    engine_types,
    known_engine_type,
)
from nlu_tui.engines.httpcall import SECRET_VALUES_KEY, redact
from nlu_tui.errors import EngineError, InputError, NluTuiError

PROFILE_FILES = ("engines.yaml", "engines.yml")
STAGES = ("development", "published")
RUN_KEYS = ("concurrency", "rate_limit", "timeout", "retries", "max_raw_bytes")
CACHE_KEYS = ("cache", "cache_ttl")
"""The answer cache of a profile (``cache: true``, ``cache_ttl: SECONDS``), read by the run
kernel (:mod:`nlu_tui.runner.answer_cache`), never by the engine. An engine type that reads a
``cache`` setting of its own (the embedded engine's trained-model cache) keeps it."""
PRICE_KEY = "price_per_request"
"""What one request to the engine costs (any currency, e.g. 0.002): engines side by side
(``nlu-tui run --engine a --engine b``) show a run's cost as this times the requests sent."""
NEW_SUITES_KEY = "new_suites"
"""Whether a newly imported suite runs at once on this profile (``nlu_tui.first_runs``)."""
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_BAD_REF = re.compile(r"\$\{(?![A-Za-z_][A-Za-z0-9_]*\})")
_SECRET_KEY = re.compile(
    r"token|api[-_]?key|apikey|password|passwd|secret|auth|jwt|credential|subscription[-_]?key"
    r"|cookie|signature|passphrase|private[-_]?key|access[-_]?key|client[-_]?key"
    # short names only as the last word: "sig", "x-key", "pwd" (not "keyword", "monkey")
    r"|(?:^|[-_.])(?:sig|key|pwd)$",
    re.IGNORECASE,
)
# "key": "value" or key=value inside a string (a body template, a header, a query string).
_INLINE_PAIR = re.compile(
    r"""["']?(?P<key>[A-Za-z0-9_.\-]+)["']?\s*(?::|=)\s*(?P<value>"[^"]*"|'[^']*'|\{[a-z]+\}|(?:\$\{[A-Za-z0-9_]*\}|[^\s,;&{}\[\]"'])+)"""
)
_URL_IN_TEXT = re.compile(r"https?://[^\s'\"<>]+")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


@dataclass(frozen=True)
class RunSettings:
    """How hard a run may push the engine. ``rate_limit`` is requests per second (None: no limit)."""

    concurrency: int = 8
    rate_limit: float | None = None
    timeout: float = 30.0
    retries: int = 3
    max_raw_bytes: int = 65536
    """Engine answers above this many bytes are stored cut (see ``store.codec.cap_raw``)."""
    cache: bool = False
    """Keep the engine's answers in the run store and reuse them (the profile's ``cache:``)."""
    cache_ttl: float | None = None
    """Seconds a cached answer is reused (None: until ``nlu-tui cache clear``)."""


@dataclass
class ResolvedEngine:
    """A ready-to-open engine, the profile as stored with a run, and the run limits.

    ``secrets`` are the resolved ``${ENV}`` values, only so that :meth:`redact` can scrub them
    from any message before it is shown, logged or stored.
    """

    name: str
    engine: Engine
    profile_public: dict[str, Any]
    settings: RunSettings
    source: Path | None = None
    secrets: list[str] = field(default_factory=list, repr=False)

    def redact(self, text: str) -> str:
        return redact(text, self.secrets)

    def cache_identity(self) -> dict[str, Any]:
        """What identifies the engine's answers in the answer cache: its type, endpoint,
        model, version, stage and every other setting that shapes an answer, without the
        profile's name and file, the run limits, the cache settings, and any setting that
        may hold a secret (only its ``${ENV}`` reference is stored, and it is left out too).
        A file the profile names (training data, flows) counts by its content's digest."""
        skip = {"name", "source", NEW_SUITES_KEY, PRICE_KEY, *RUN_KEYS, *CACHE_KEYS}
        identity: dict[str, Any] = {}
        for key, value in sorted(self.profile_public.items()):
            if key in skip or _looks_secret((key,)) or key == SECRET_VALUES_KEY:
                continue
            identity[key] = _without_secrets(value)
            if key in _PATH_KEYS and isinstance(value, str) and Path(value).is_file():
                from nlu_tui.model import digest_bytes

                identity[key + "#sha256"] = digest_bytes(Path(value).read_bytes())
        return identity


# --- reading engines.yaml -------------------------------------------------------------------


@dataclass
class _Profile:
    name: str
    body: dict[str, Any]
    path: Path
    lines: dict[tuple[str, ...], int]

    def line(self, *keys: str) -> int | None:
        for n in range(len(keys), -1, -1):
            found = self.lines.get((self.name, *keys[:n]))
            if found is not None:
                return found
        return None


def _node_lines(node: Any, prefix: tuple[str, ...], out: dict[tuple[str, ...], int]) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = (*prefix, str(key_node.value))
            out[key] = key_node.start_mark.line + 1
            _node_lines(value_node, key, out)


def read_profiles(path: Path) -> dict[str, _Profile]:
    """Every profile in one file, checked (InputError naming file, line and field)."""
    from nlu_tui.formats import yaml_loader

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read engine profiles: {exc}", path=path) from None
    # the same limits as every other reader: nesting depth, alias expansion (exit 2, one line)
    root = yaml_loader.compose(text, path, prefix="not valid YAML")
    data = None if root is None else yaml_loader.construct(root, path)
    if data is None:
        return {}
    lines: dict[tuple[str, ...], int] = {}
    top: dict[tuple[str, ...], int] = {}
    if root is not None:
        _node_lines(root, (), top)
        lines = {k[1:]: v for k, v in top.items() if k and k[0] == "engines" and len(k) > 1}
    if isinstance(data, dict):
        _check_top_keys(path, data, top)
    if not isinstance(data, dict) or not isinstance(data.get("engines"), dict):
        raise InputError(
            "expected a mapping with an 'engines:' mapping", path=path, line=1, field="engines"
        )
    profiles = {}
    for name, body in data["engines"].items():
        profile = _Profile(str(name), body, path, lines)
        _check_profile(profile)
        profiles[str(name)] = profile
    return profiles


def _check_top_keys(path: Path, data: dict[Any, Any], lines: dict[tuple[str, ...], int]) -> None:
    """Only ``engines:`` at the top of the file: a misspelt key is named, never ignored."""
    from nlu_tui.engines.profile_keys import TOP_KEYS, unknown_key_message

    for key in data:
        if str(key) not in TOP_KEYS:
            raise InputError(
                unknown_key_message(str(key), TOP_KEYS, "the file"),
                path=path,
                line=lines.get((str(key),)),
                field=str(key),
            )


def _check_keys(profile: _Profile, kind: str) -> None:
    """Every key of the profile is one its engine type reads (``intnet:`` is not ``intent:``)."""
    from nlu_tui.engines.profile_keys import unknown_keys

    common = ("type", NEW_SUITES_KEY, PRICE_KEY, *RUN_KEYS, *CACHE_KEYS)
    for keys, message in unknown_keys(profile.body, kind, common):
        raise _fail(profile, message, *keys)


def _fail(profile: _Profile, message: str, *keys: str) -> InputError:
    field = ".".join(["engines", profile.name, *keys])
    return InputError(message, path=profile.path, line=profile.line(*keys), field=field)


def _check_profile(profile: _Profile) -> None:
    if not _NAME.match(profile.name):
        raise _fail(
            profile, f"profile name {profile.name!r} must be letters, digits, '-', '_' or '.'"
        )
    body = profile.body
    if not isinstance(body, dict):
        raise _fail(profile, "a profile must be a mapping with at least 'type'")
    kind = body.get("type")
    if not isinstance(kind, str) or not kind:
        raise _fail(profile, "missing 'type'", "type")
    if not known_engine_type(kind):
        raise _fail(
            profile, f"unknown engine type {kind!r}; known: {', '.join(engine_types())}", "type"
        )
    if NEW_SUITES_KEY in body and not isinstance(body[NEW_SUITES_KEY], bool):
        raise _fail(
            profile,
            f"{NEW_SUITES_KEY} must be true or false, got {body[NEW_SUITES_KEY]!r}",
            NEW_SUITES_KEY,
        )
    for stage in STAGES:
        if stage in body and not isinstance(body[stage], dict):
            raise _fail(profile, f"'{stage}' must be a mapping of overrides", stage)
    for keys, value in _walk(body):
        if isinstance(value, str) and _BAD_REF.search(value):
            raise _fail(profile, "malformed ${...} reference; write ${ENV_VAR}", *keys)
        _check_run_value(profile, keys, value)
        _check_secret(profile, keys, value)
    _check_keys(profile, kind)


def _walk(node: Any, prefix: tuple[str, ...] = ()) -> Iterable[tuple[tuple[str, ...], Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, (*prefix, str(key)))
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value, prefix)
    else:
        yield prefix, node


def _check_run_value(profile: _Profile, keys: tuple[str, ...], value: Any) -> None:
    key = keys[-1]
    if key == PRICE_KEY and (len(keys) == 1 or (len(keys) == 2 and keys[0] in STAGES)):
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise _fail(
                profile, f"{PRICE_KEY} must be a number >= 0 (per request), got {value!r}", *keys
            )
        return
    if key in CACHE_KEYS and (len(keys) == 1 or (len(keys) == 2 and keys[0] in STAGES)):
        _check_cache_value(profile, keys, value)
        return
    if key not in RUN_KEYS or (len(keys) > 1 and keys[0] not in STAGES) or len(keys) > 2:
        return
    if key == "rate_limit" and value is None:
        return
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if key in ("concurrency", "retries", "max_raw_bytes"):
        ok = isinstance(value, int) and not isinstance(value, bool)
    if ok and (value < 0 or (key != "retries" and value <= 0)):
        ok = False
    if not ok:
        raise _fail(profile, f"{key} must be a positive number, got {value!r}", *keys)


def _check_cache_value(profile: _Profile, keys: tuple[str, ...], value: Any) -> None:
    if keys[-1] == "cache" and not isinstance(value, bool):
        raise _fail(profile, f"cache must be true or false, got {value!r}", *keys)
    if keys[-1] == "cache_ttl" and (
        value is not None
        and (isinstance(value, bool) or not isinstance(value, int | float) or value <= 0)
    ):
        raise _fail(
            profile, f"cache_ttl must be a positive number of seconds, got {value!r}", *keys
        )


def _looks_secret(keys: tuple[str, ...]) -> bool:
    if keys and keys[-1].endswith("_file"):
        return False  # a path to a credentials file (Lex's credentials_file), not a secret
    return any(_SECRET_KEY.search(k) for k in keys if k not in STAGES)


def _check_secret(profile: _Profile, keys: tuple[str, ...], value: Any) -> None:
    """Refuse secrets written inline: only ``${ENV_VAR}`` references may carry them."""
    if value is None or value == "" or isinstance(value, bool):
        return
    if _looks_secret(keys) and _literal_secret(str(value)):
        raise _fail(
            profile,
            "a secret must not be written in the profile; use an environment variable "
            "reference such as ${MY_TOKEN}",
            *keys,
        )
    if not isinstance(value, str):
        return
    # Any field, not only the known ones: a URL with ?sig=..., a body template or a header
    # value with "password": "...". Only ${ENV_VAR} references may carry them.
    for url in _URL_IN_TEXT.findall(value):
        if _url_has_credential(url):
            raise _fail(
                profile,
                "the URL carries a credential; write it as an environment variable reference "
                "such as ${MY_TOKEN}",
                *keys,
            )
    for match in _INLINE_PAIR.finditer(value):
        if not _SECRET_KEY.search(match.group("key")):
            continue
        inner = match.group("value").strip("\"'")
        if _literal_secret(inner) and not _is_placeholder(inner):
            raise _fail(
                profile,
                f"{match.group('key')!r} carries a literal secret; use an environment variable "
                "reference such as ${MY_TOKEN}",
                *keys,
            )


def _literal_secret(value: str) -> bool:
    """True when ``value`` holds more than ``${ENV}`` references and a scheme word.

    "Bearer ${TOKEN}" is fine: what is left is a scheme word, not a credential.
    """
    leftover = _ENV_REF.sub("", value).strip()
    return bool(leftover) and (
        leftover == value.strip() or not re.fullmatch(r"[A-Za-z]+", leftover)
    )


def _is_placeholder(value: str) -> bool:
    """Template placeholders such as ``{text}`` are filled per request: not a credential."""
    return re.fullmatch(r"\{(text|parent|parents)\}", value) is not None


# --- resolution ----------------------------------------------------------------------------


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _resolve_env(node: Any, secrets: list[str], where: Any) -> Any:
    if isinstance(node, str):

        def sub(match: re.Match[str]) -> str:
            var = match.group(1)
            value = os.environ.get(var)
            if value is None:
                raise where(f"environment variable {var} is not set", var)
            secrets.append(value)
            return value

        return _ENV_REF.sub(sub, node)
    if isinstance(node, dict):
        return {k: _resolve_env(v, secrets, where) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve_env(v, secrets, where) for v in node]
    return node


def profile_files(suite_path: Path | None = None, workspace: Path | None = None) -> list[Path]:
    """Where profiles are looked up, in order: beside the suite, the workspace, the user config."""
    folders: list[Path] = []
    if suite_path is not None:
        folders.append(Path(suite_path).expanduser().resolve().parent)
    folders.append(Path(workspace).expanduser().resolve() if workspace else Path.cwd().resolve())
    folders.append(paths.config_dir())
    files: list[Path] = []
    for folder in folders:
        for name in PROFILE_FILES:
            candidate = folder / name
            if candidate.is_file() and candidate not in files:
                files.append(candidate)
    return files


def list_profiles(suite_path: Path | None = None, workspace: Path | None = None) -> dict[str, Path]:
    """Profile names visible from here and the file each comes from (first file wins)."""
    found: dict[str, Path] = {}
    for path in profile_files(suite_path, workspace):
        for name in read_profiles(path):
            found.setdefault(name, path)
    return found


def _without_secrets(node: Any) -> Any:
    """A setting's value with every mapping key that may hold a secret left out (headers)."""
    if isinstance(node, dict):
        return {
            str(k): _without_secrets(v) for k, v in node.items() if not _looks_secret((str(k),))
        }
    if isinstance(node, list):
        return [_without_secrets(v) for v in node]
    return node


def _engine_reads_cache(kind: str) -> bool:
    """The engine type has a ``cache`` setting of its own (the embedded engine's models)."""
    from nlu_tui.engines.profile_keys import engine_keys

    return "cache" in (engine_keys(kind) or ())


def _run_settings(body: Mapping[str, Any], kind: str = "") -> RunSettings:
    defaults = RunSettings()
    answer_cache = body.get("cache") is True and not _engine_reads_cache(kind)
    ttl = body.get("cache_ttl")
    return RunSettings(
        concurrency=int(body.get("concurrency", defaults.concurrency)),
        rate_limit=float(body["rate_limit"]) if body.get("rate_limit") is not None else None,
        timeout=float(body.get("timeout", defaults.timeout)),
        retries=int(body.get("retries", defaults.retries)),
        max_raw_bytes=int(body.get("max_raw_bytes", defaults.max_raw_bytes)),
        cache=answer_cache,
        cache_ttl=float(ttl) if ttl is not None else None,
    )


def _build(
    name: str, kind: str, settings: dict[str, Any], public: dict[str, Any], where: Any
) -> ResolvedEngine:
    secrets: list[str] = []
    resolved = _resolve_env(settings, secrets, where)
    run = _run_settings(resolved, kind)
    kept = ("cache",) if _engine_reads_cache(kind) else ()
    engine_settings = {
        k: v
        for k, v in resolved.items()
        if k in kept
        or k not in (*RUN_KEYS, *CACHE_KEYS, *STAGES, "type", NEW_SUITES_KEY, PRICE_KEY)
    }
    engine_settings["timeout"] = run.timeout
    engine_settings[SECRET_VALUES_KEY] = list(secrets)
    try:
        engine = create_engine(kind, engine_settings)
    except EngineError as exc:
        raise where(redact(str(exc), secrets), None) from None
    # secrets an engine read itself (a credentials file) are scrubbed like ${ENV} values
    secrets += [
        s for s in getattr(engine, "secrets", ()) if isinstance(s, str) and s not in secrets
    ]
    public = {"type": kind, **public}
    public.update(
        concurrency=run.concurrency,
        rate_limit=run.rate_limit,
        timeout=run.timeout,
        retries=run.retries,
    )
    return ResolvedEngine(name, engine, public, run, secrets=secrets)


def relative_bases(workspace: Path | None) -> list[Path]:
    """Where a relative path in an engine spec is looked for: the workspace folder, then the
    shell's folder (the CLI's workspace is the shell's folder)."""
    bases = [Path(workspace).expanduser().resolve()] if workspace is not None else []
    here = Path.cwd().resolve()
    return bases + ([here] if here not in bases else [])


def spec_file(value: str, workspace: Path | None) -> Path:
    """The file a spec's PATH names: absolute as it is; relative, the first that exists in
    :func:`relative_bases`. InputError names every place looked at when none does."""
    path = Path(value).expanduser()
    bases = relative_bases(workspace)
    candidates = [path.resolve()] if path.is_absolute() else [(b / path).resolve() for b in bases]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    where = (
        str(candidates[0])
        if path.is_absolute()
        else f"{value} (looked in {' and '.join(str(b) for b in bases)})"
    )
    raise InputError(f"training data not found: {where}", field="engine")


def _adhoc(spec: str, suite_path: Path | None, workspace: Path | None) -> ResolvedEngine | None:
    kind, sep, rest = spec.partition(":")
    if kind == "embedded" and not sep:
        rest = str(sibling_training_data(suite_path) or "")
        if not rest:
            return None
    elif not sep:
        return None
    elif kind not in _ADHOC_BUILTINS:
        return _adhoc_plugin(spec, kind, rest.strip(), workspace)
    rest = rest.strip()
    if not rest:
        raise InputError(
            f"engine spec {spec!r} needs a {'path' if kind == 'embedded' else 'URL'}",
            field="engine",
        )

    def where(message: str, _var: str | None) -> InputError:
        return InputError(message, field="engine")

    if kind == "embedded":
        path = spec_file(rest, workspace)
        settings: dict[str, Any] = {"nlu": str(path)}
        public: dict[str, Any] = {"name": f"embedded:{path}", "type": "embedded", "nlu": str(path)}
    else:
        if _url_has_credential(rest):
            raise InputError(
                "put credentials in an engines.yaml profile as ${ENV_VAR}, not in the URL",
                field="engine",
            )
        settings = {"url": rest}
        public = {"name": f"{kind}:{rest}", "type": kind, "url": rest}
    resolved = _build(public["name"], kind, settings, public, where)
    return resolved


_ADHOC_BUILTINS = ("embedded", "rasa", "rasa-pro", "http")
_PATH_KEYS = ("nlu", "path", "training_data", "credentials_file")
"""Settings that name a file: relative to the profile (or, on the command line, to here)."""


def _adhoc_plugin(
    spec: str, kind: str, value: str, workspace: Path | None
) -> ResolvedEngine | None:
    """``--engine TYPE:VALUE`` for a plug-in engine that declares ``adhoc_setting``."""
    if builtin_engine_type(kind) or not known_engine_type(kind):
        return None
    try:
        factory = engine_factory(kind)
    except NluTuiError as exc:  # a plug-in that fails to import: one line naming it
        raise InputError(str(exc), field="engine") from None
    key = getattr(factory, "adhoc_setting", None)
    if not isinstance(key, str) or not key:
        raise InputError(
            f"engine type {kind!r} has no {kind}:VALUE form; use an engines.yaml profile "
            f"with type: {kind}",
            field="engine",
        )
    if not value:
        raise InputError(f"engine spec {spec!r} needs a {key} after '{kind}:'", field="engine")
    if _looks_secret((key,)) or _url_has_credential(value):
        raise InputError(
            "put credentials in an engines.yaml profile as ${ENV_VAR}, not in --engine",
            field="engine",
        )
    if key in _PATH_KEYS:
        bases = relative_bases(workspace)
        path = Path(value).expanduser()
        found = [b / path for b in bases if (b / path).exists()]
        value = str((found[0] if found else bases[0] / path).resolve())

    def where(message: str, _var: str | None) -> InputError:
        return InputError(message, field="engine")

    public: dict[str, Any] = {"name": f"{kind}:{value}", "type": kind, key: value}
    return _build(public["name"], kind, {key: value}, public, where)


def _url_has_credential(url: str) -> bool:
    from urllib.parse import parse_qsl, urlsplit

    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # a malformed URL (e.g. a bad port): the engine reports it later
        return False
    if password and _ENV_REF.sub("", password):
        return True
    return any(
        _SECRET_KEY.search(k) and _ENV_REF.sub("", v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    )


def sibling_training_data(suite_path: Path | None) -> Path | None:
    """``x.suite.yaml`` trains from ``x.nlu.yml`` beside it, so ``--engine embedded`` just works."""
    if suite_path is None:
        return None
    suite_path = Path(suite_path)
    stem = suite_path.name.split(".", 1)[0]
    for name in (f"{stem}.nlu.yml", f"{stem}.nlu.yaml", "nlu.yml", "nlu.yaml"):
        candidate = suite_path.parent / name
        if candidate.is_file():
            return candidate.resolve()
    return None


def resolve_engine(
    spec: str,
    suite_path: Path | None = None,
    stage: str = "development",
    workspace: Path | None = None,
) -> ResolvedEngine:
    """Turn ``--engine`` into an engine: a profile name, or ``embedded:PATH`` / ``rasa:URL`` / ``http:URL``.

    Raises InputError for a bad or missing profile, or a missing environment variable (named,
    never its value). The engine is built but not opened.
    """
    if stage not in STAGES:
        raise InputError(f"stage must be one of {', '.join(STAGES)}, not {stage!r}", field="stage")
    spec = spec.strip()
    if ":" in spec:  # profile names have no colon: a broken engines.yaml must not block these
        adhoc = _adhoc(spec, suite_path, workspace)
        if adhoc is not None:
            return adhoc
    files = profile_files(suite_path, workspace)
    for path in files:
        profiles = read_profiles(path)
        if spec in profiles:
            return _from_profile(profiles[spec], stage)
    adhoc = _adhoc(spec, suite_path, workspace)
    if adhoc is not None:
        return adhoc
    known = sorted(list_profiles(suite_path, workspace))
    searched = ", ".join(str(p) for p in files) or "no engines.yaml found"
    hint = f"; profiles: {', '.join(known)}" if known else ""
    raise InputError(
        f"no engine profile named {spec!r} (searched: {searched}){hint}; "
        "or use embedded:PATH, rasa:URL or http:URL",
        field="engine",
    )


def _from_profile(profile: _Profile, stage: str) -> ResolvedEngine:
    body = dict(profile.body)
    overrides = body.get(stage) or {}
    merged = _merge({k: v for k, v in body.items() if k not in STAGES}, overrides)
    kind = str(merged.get("type") or body["type"])

    def where(message: str, var: str | None) -> InputError:
        keys = _find_reference(merged, var, stage, body) if var else ()
        return InputError(
            message,
            path=profile.path,
            line=profile.line(*keys),
            field=".".join(["engines", profile.name, *keys]),
        )

    if not builtin_engine_type(kind):  # a plug-in: import it now, then check its keys
        try:
            engine_factory(kind)
        except NluTuiError as exc:
            raise _fail(profile, str(exc), "type") from None
        _check_keys(profile, kind)
    # Relative paths in a profile are relative to the profile file.
    for key in _PATH_KEYS:
        value = merged.get(key)
        if isinstance(value, str) and value and not _ENV_REF.search(value):
            candidate = Path(value).expanduser()
            if not candidate.is_absolute():
                merged[key] = str((profile.path.parent / candidate).resolve())
    public: dict[str, Any] = {
        "name": profile.name,
        "stage": stage,
        "source": str(profile.path),
        **{k: v for k, v in merged.items() if k not in RUN_KEYS},
    }
    resolved = _build(profile.name, kind, merged, public, where)
    resolved.source = profile.path
    return resolved


def _find_reference(
    merged: Mapping[str, Any], var: str, stage: str, body: Mapping[str, Any]
) -> tuple[str, ...]:
    needle = "${" + var + "}"
    for keys, value in _walk(body.get(stage) or {}):
        if isinstance(value, str) and needle in value:
            return (stage, *keys)
    for keys, value in _walk(merged):
        if isinstance(value, str) and needle in value:
            return keys
    return ()


_sibling_training_data = sibling_training_data  # the TUI's run dialog imported the old name
