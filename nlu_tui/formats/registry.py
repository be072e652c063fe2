"""Which formats exist, how each is detected, and the two calls every face uses.

Each format lives in its own module exposing:

- ``NAME`` (str), ``EXTENSIONS`` (tuple of suffixes), ``DESCRIPTION`` (one line);
- ``sniff(path: Path, head: str) -> bool``: whether a file (its first 4 KiB in ``head``) is this format;
- ``read(path: Path) -> ImportResult``: raise :class:`~nlu_tui.errors.InputError` (or
  ``InputErrors``) naming file, line/row and field; nothing is written on failure;
- ``write(suite: Suite, path: Path) -> list[str]``: write atomically; return warnings about what
  the format cannot express (lost on export).

Modules are imported only when used, so the CLI starts fast. Installed packages add formats
through the ``nlu_tui.formats`` entry points (``docs/development/plugins.md``): a module, or
any object, with the same names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from nlu_tui import plugins
from nlu_tui.errors import InputError
from nlu_tui.model import Suite, TestCase

FORMAT_MODULES: dict[str, str] = {
    "native": "nlu_tui.formats.native",
    # Before kore-json (which takes any "testCases" key) and kore-csv: their sniffs are specific.
    "dialogflow-cx": "nlu_tui.formats.dialogflow_cx_tests",
    "lex-csv": "nlu_tui.formats.lex_csv",
    "kore-json": "nlu_tui.formats.kore_json",
    "kore-csv": "nlu_tui.formats.kore_csv",
    "rasa": "nlu_tui.formats.rasa_yaml",
    "nludevops": "nlu_tui.formats.nludevops",
    "luis": "nlu_tui.formats.luis_batch",
}
"""The built-in formats, as declared in pyproject.toml's ``nlu_tui.formats`` entry points (kept
in code too, for a checkout run from source). Detection tries them in this order, then the
installed plug-ins by name; the first whose ``sniff`` says yes wins."""
FORMAT_GROUP = "nlu_tui.formats"


@dataclass
class ImportResult:
    suite: Suite
    warnings: list[str] = field(default_factory=list)


class FormatModule(Protocol):
    """What a format module (built-in or plug-in) provides."""

    EXTENSIONS: tuple[str, ...]

    def sniff(self, path: Path, head: str) -> bool: ...

    def read(self, path: Path) -> ImportResult: ...

    def write(self, suite: Suite, path: Path) -> list[str]: ...


def format_plugins() -> dict[str, plugins.Plugin]:
    """Every format's plug-in entry, built-ins first in detection order (imports none)."""
    return plugins.load_group(FORMAT_GROUP, FORMAT_MODULES)


def format_names() -> list[str]:
    """Every format: the built-ins in detection order, then plug-ins by name (imports none)."""
    return list(format_plugins())


def builtin_format(name: str) -> bool:
    return name in FORMAT_MODULES


def _format_problem(found: Any) -> str | None:
    """What keeps ``found`` from being a format (None: nothing)."""
    missing = [
        name for name in ("sniff", "read", "write") if not callable(getattr(found, name, None))
    ]
    if missing:
        return f"does not define {', '.join(missing)} (a format defines sniff, read and write)"
    extensions = getattr(found, "EXTENSIONS", None)
    if not isinstance(extensions, tuple | list) or not all(isinstance(e, str) for e in extensions):
        return "needs EXTENSIONS, a tuple of file suffixes such as ('.json',)"
    return None


def format_module(name: str) -> FormatModule:
    """The format named ``name``, imported on first use (PluginError for a broken plug-in)."""
    # a built-in from the table in code, without discovery (no installed metadata is read)
    plugin = plugins.builtin_plugin(FORMAT_GROUP, name, FORMAT_MODULES)
    if plugin is None:
        plugin = format_plugins().get(name)
    if plugin is None:
        raise InputError(
            f"unknown format {name!r}; known: {', '.join(format_names())}", field="--format"
        )
    found: FormatModule = plugin.load(_format_problem)
    return found


def detect_format(path: Path) -> str:
    """The format of ``path``, from its content first and its name second."""
    try:
        head = path.read_text(encoding="utf-8-sig", errors="replace")[:4096]
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=path) from None
    # the built-ins first, in detection order; plug-ins are discovered only when none matches
    for name in FORMAT_MODULES:
        if format_module(name).sniff(path, head):
            return name
    for name in format_names():
        if name not in FORMAT_MODULES and format_module(name).sniff(path, head):
            return name
    raise InputError(
        f"cannot tell the format of this file; pass --format ({', '.join(format_names())})",
        path=path,
    )


def import_suite(path: Path, fmt: str | None = None) -> ImportResult:
    """Read any supported file into a suite (the format is detected when not given)."""
    name = fmt or detect_format(path)
    result: ImportResult = format_module(name).read(path)
    check_writable(result.suite, path)
    return result


def _texts(value: Any) -> Iterator[str]:
    """Every string in free-form data, keys included (the data is at most 64 levels deep)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)


def _case_texts(case: TestCase) -> Iterator[str]:
    yield from (case.utterance, case.id, *case.traits, *case.parent_intents)
    yield from (*case.entity_order, *case.tags)
    for intent in case.intents:
        yield from (intent.name, intent.bot or "")
    for e in case.entities:
        yield from (e.name, e.value, e.text or "", e.role or "", e.group or "", *e.alternatives)
        yield from _texts(e.json_value)
    yield from _texts(case.extra)


def _depth(value: Any) -> int:
    """Levels of lists and mappings in free-form data (a scalar is 0)."""
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list | tuple):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _too_deep_to_save(suite: Suite, path: Path) -> InputError | None:
    """Free-form data that sits deeper in a native suite than in its source: ``extra`` of a
    case is at level 4 of a suite file, an entity's ``json_value`` at level 6."""
    from nlu_tui.jsonfile import MAX_DEPTH

    def error(line: int | None, field: str) -> InputError:
        return InputError(
            f"nested too deeply to save as a suite (at most {MAX_DEPTH} levels in a file)",
            path=path,
            line=line,
            field=field,
        )

    if 1 + max(_depth(suite.extra), _depth(suite.training)) > MAX_DEPTH:
        return error(None, "extra")
    for case in suite.cases:
        if 3 + _depth(case.extra) > MAX_DEPTH:
            return error(case.line, "extra")
        if any(5 + _depth(e.json_value) > MAX_DEPTH for e in case.entities):
            return error(case.line, "json_value")
    return None


def check_writable(suite: Suite, path: Path) -> None:
    """Refuse what no suite file can hold, so that whatever is imported saves and reads back:
    lone surrogates (``\\udcff`` from JSON escapes) and over-long keys in free-form data."""
    from nlu_tui.formats.yaml_loader import long_key_error
    from nlu_tui.jsonfile import has_lone_surrogate

    for case in suite.cases:
        if any(has_lone_surrogate(text) for text in _case_texts(case)):
            raise InputError(
                "the case holds a lone UTF-16 surrogate (such as \\udcff), which is not text",
                path=path,
                line=case.line,
            )
        error = long_key_error(
            [case.extra, [e.json_value for e in case.entities]], path, case.line, "extra"
        )
        if error is not None:
            raise error
    for name, value in (("extra", suite.extra), ("training", suite.training)):
        error = long_key_error(value, path, None, name)
        if error is not None:
            raise error
    deep = _too_deep_to_save(suite, path)
    if deep is not None:
        raise deep
    free = _texts([suite.name, suite.description, suite.extra, suite.training])
    if any(has_lone_surrogate(text) for text in free):
        raise InputError("the suite holds a lone UTF-16 surrogate, which is not text", path=path)


def export_suite(suite: Suite, path: Path, fmt: str) -> list[str]:
    """Write ``suite`` in format ``fmt``; returns warnings about what the format cannot hold."""
    warnings: list[str] = format_module(fmt).write(suite, path)
    return warnings
