"""Plug-ins: engines and file formats found through entry points (``nlu_tui.plugins``).

Most tests put a distribution's metadata (``NAME-VERSION.dist-info`` with ``METADATA`` and
``entry_points.txt``, the files an installer writes) and its module in a folder on ``sys.path``:
that is what ``importlib.metadata`` reads. The last tests install the example plug-in of
``tests/fixtures/plugins/nlu_keywords`` with pip and run a suite through it in a fresh process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from nlu_tui import plugins
from nlu_tui.engines.base import (
    BUILTIN_ENGINES,
    Engine,
    create_engine,
    engine_factory,
    engine_types,
)
from nlu_tui.engines.rasa import RasaEngine
from nlu_tui.errors import InputError
from nlu_tui.formats.registry import FORMAT_MODULES, format_names, import_suite

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "tests" / "fixtures" / "plugins" / "nlu_keywords"

ENGINE_MODULE = """
from nlu_tui.engines.base import Engine
from nlu_tui.model import Prediction

class Echo(Engine):
    type_name = "echo"

    def __init__(self, settings):
        self.settings = dict(settings)

    async def parse(self, text, context):
        return Prediction(intent=text)

class NotAnEngine:
    def __init__(self, settings):
        pass

def not_an_engine_factory(settings):
    return "an engine, honest"

def crashing_factory(settings):
    return settings["missing"]
"""


class Site:
    """A folder on ``sys.path`` into which distributions are 'installed'."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def add(
        self,
        name: str,
        groups: Mapping[str, Mapping[str, str]],
        modules: Mapping[str, str] | None = None,
        version: str = "1.0",
    ) -> None:
        info = self.path / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
        )
        points = "".join(
            f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n"
            for group, entries in groups.items()
        )
        (info / "entry_points.txt").write_text(points, encoding="utf-8")
        for module, source in (modules or {}).items():
            (self.path / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        plugins.refresh()


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    plugins.refresh()
    yield Site(folder)
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", "") or "").startswith(str(folder)):
            del sys.modules[name]
    monkeypatch.undo()
    plugins.refresh()


# --- the built-ins ---------------------------------------------------------------------------


def test_pyproject_declares_exactly_the_builtins_kept_in_code() -> None:
    """The built-ins are entry points of nlu-tui itself, and a table in code for a checkout
    whose metadata is stale: the two must not drift."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    points = project["entry-points"]
    assert points["nlu_tui.engines"] == BUILTIN_ENGINES
    assert list(points["nlu_tui.formats"].items()) == list(FORMAT_MODULES.items())


def test_installed_metadata_of_nlu_tui_lists_the_builtins() -> None:
    """Where nlu-tui is installed from this checkout (``pip install -e .``), its entry points
    are the built-ins; an install from an older pyproject has none (the next test)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution("nlu-tui")
    except PackageNotFoundError:
        pytest.skip("nlu-tui is not installed")
    points = {p.name: p.value for p in dist.entry_points if p.group == "nlu_tui.engines"}
    if not points:
        pytest.skip("the installed nlu-tui metadata predates the entry points")
    assert points == BUILTIN_ENGINES
    found = plugins.load_group("nlu_tui.engines", {})  # the metadata alone, no table in code
    assert {name for name, p in found.items() if p.builtin} == set(BUILTIN_ENGINES)
    assert {p.distribution for p in found.values()} == {f"nlu-tui {dist.version}"}


def test_every_builtin_entry_point_loads_an_engine_or_a_format() -> None:
    for name in BUILTIN_ENGINES:
        factory = engine_factory(name)
        assert getattr(factory, "type_name", None) == name
    from nlu_tui.formats.registry import format_module

    for name in FORMAT_MODULES:
        assert getattr(format_module(name), "NAME", None) == name


def test_builtins_work_when_the_installed_metadata_has_no_entry_points(site: Site) -> None:
    """An install made before the entry points existed (or a source checkout run through
    PYTHONPATH beside an old install): nlu-tui's metadata lists no engine, every built-in
    is still found, from the table in code."""
    site.add("nlu-tui", {"console_scripts": {"nlu-tui": "nlu_tui.__main__:main"}})
    assert set(BUILTIN_ENGINES) <= set(engine_types())
    assert format_names()[: len(FORMAT_MODULES)] == list(FORMAT_MODULES)
    assert isinstance(create_engine("rasa", {"url": "http://127.0.0.1:9"}), RasaEngine)


def test_code_wins_over_stale_metadata_of_nlu_tui_itself(site: Site) -> None:
    """nlu-tui's own metadata naming a module that moved: the code that runs is the truth.
    A name only the metadata has (a group without a table in code) is a built-in too."""
    site.add(
        "nlu-tui",
        {"nlu_tui.engines": {"rasa": "nlu_tui.engines.gone:RasaEngine", "echo": "echoes:Echo"}},
        {"echoes": ENGINE_MODULE},
        version="0.0.1",
    )
    with _no_plugin_warnings():
        found = plugins.load_group("nlu_tui.engines", BUILTIN_ENGINES)
    assert found["rasa"].value == BUILTIN_ENGINES["rasa"]
    assert found["echo"].builtin and found["echo"].distribution == "nlu-tui 0.0.1"
    assert isinstance(create_engine("rasa", {"url": "http://127.0.0.1:9"}), RasaEngine)


# --- discovery, loading and errors -----------------------------------------------------------


def test_discovery_lists_names_without_importing_the_plugin(site: Site) -> None:
    site.add(
        "nlu-echo", {"nlu_tui.engines": {"echo": "nlu_echo:Echo"}}, {"nlu_echo": ENGINE_MODULE}
    )
    assert "echo" in engine_types()
    assert "nlu_echo" not in sys.modules
    engine = create_engine("echo", {"x": 1})
    assert "nlu_echo" in sys.modules
    assert type(engine).__name__ == "Echo" and engine.settings == {"x": 1}  # type: ignore[attr-defined]


def test_a_plugin_that_fails_to_import_is_one_line_naming_it_and_its_distribution(
    site: Site,
) -> None:
    site.add(
        "nlu-broken",
        {"nlu_tui.engines": {"broken": "nlu_broken:Engine"}},
        {"nlu_broken": "import a_module_that_is_not_installed\n"},
        version="2.3",
    )
    with pytest.raises(plugins.PluginError) as caught:
        create_engine("broken", {})
    message = str(caught.value)
    assert "\n" not in message
    assert "plug-in 'broken'" in message and "nlu-broken 2.3" in message
    assert "ModuleNotFoundError" in message and "a_module_that_is_not_installed" in message


def test_a_profile_of_a_broken_plugin_names_the_file_line_and_plugin(
    site: Site, tmp_path: Path
) -> None:
    from nlu_tui.engines.profiles import resolve_engine

    site.add(
        "nlu-broken",
        {"nlu_tui.engines": {"broken": "nlu_broken:Engine"}},
        {"nlu_broken": "raise ImportError('needs libfoo')\n"},
    )
    (tmp_path / "engines.yaml").write_text(
        "engines:\n  b:\n    url: http://x\n    type: broken\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as caught:
        resolve_engine("b", workspace=tmp_path)
    assert str(caught.value) == (
        f"{tmp_path / 'engines.yaml'}, line 4, field 'engines.b.type': plug-in 'broken' "
        "(nlu_tui.engines, from nlu-broken 1.0) failed to import nlu_broken:Engine: "
        "ImportError: needs libfoo"
    )


def test_a_missing_attribute_is_named(site: Site) -> None:
    site.add("nlu-echo", {"nlu_tui.engines": {"e": "nlu_echo:Nope"}}, {"nlu_echo": ENGINE_MODULE})
    with pytest.raises(plugins.PluginError, match=r"plug-in 'e' .*nlu-echo 1.0.*AttributeError"):
        create_engine("e", {})


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("nlu_echo:NotAnEngine", "not a subclass of nlu_tui.engines.base.Engine"),
        ("nlu_echo:not_an_engine_factory", "returned a str, not an nlu_tui.engines.base.Engine"),
        ("nlu_echo:crashing_factory", "failed to build an engine: KeyError: 'missing'"),
        ("nlu_echo", "is a module, not an Engine subclass or a factory function"),
        ("nlu_tui.engines.base:Engine", "is abstract (it does not define parse)"),
    ],
)
def test_a_plugin_without_the_engine_interface_is_refused(
    site: Site, value: str, problem: str
) -> None:
    site.add("nlu-echo", {"nlu_tui.engines": {"odd": value}}, {"nlu_echo": ENGINE_MODULE})
    with pytest.raises(plugins.PluginError) as caught:
        create_engine("odd", {})
    assert problem in str(caught.value)
    assert "plug-in 'odd' (nlu_tui.engines, from nlu-echo 1.0)" in str(caught.value)


def test_a_plugin_cannot_replace_a_builtin(site: Site) -> None:
    """The rule for a clash with a built-in: the built-in stays, the plug-in is ignored and
    named in a warning (it is never imported)."""
    site.add(
        "nlu-evil",
        {"nlu_tui.engines": {"rasa": "nlu_evil:Echo"}, "nlu_tui.formats": {"native": "nlu_evil"}},
        {"nlu_evil": ENGINE_MODULE},
    )
    with pytest.warns(plugins.PluginWarning, match=r"'rasa'.*nlu-evil 1.0.*built-in name"):
        types = engine_types()
    assert types.count("rasa") == 1
    assert isinstance(create_engine("rasa", {"url": "http://127.0.0.1:9"}), RasaEngine)
    with pytest.warns(plugins.PluginWarning, match=r"'native'.*nlu-evil 1.0.*built-in name"):
        assert format_names() == list(FORMAT_MODULES)
    assert "nlu_evil" not in sys.modules


def test_two_plugins_with_one_name_the_first_on_sys_path_wins(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    later = tmp_path / "later"
    Site(later).add(
        "nlu-second",
        {"nlu_tui.engines": {"echo": "nlu_second:Echo"}},
        {"nlu_second": ENGINE_MODULE},
    )
    monkeypatch.syspath_prepend(str(later))
    site.add(
        "nlu-first", {"nlu_tui.engines": {"echo": "nlu_first:Echo"}}, {"nlu_first": ENGINE_MODULE}
    )
    sys.path.remove(str(later))
    sys.path.append(str(later))  # after the fixture's folder
    plugins.refresh()
    with pytest.warns(
        plugins.PluginWarning, match=r"nlu-second 1.0\) is ignored: nlu-first 1.0 already provides"
    ):
        found = plugins.load_group("nlu_tui.engines", BUILTIN_ENGINES)
    assert found["echo"].distribution == "nlu-first 1.0"
    assert type(create_engine("echo", {})).__module__ == "nlu_first"


def test_an_unusable_name_is_ignored_with_a_warning(site: Site) -> None:
    site.add(
        "nlu-echo", {"nlu_tui.engines": {"my:engine": "nlu_echo:Echo"}}, {"nlu_echo": ENGINE_MODULE}
    )
    with pytest.warns(plugins.PluginWarning, match="'my:engine'.*is ignored"):
        assert "my:engine" not in engine_types()


def test_engine_type_value_needs_the_plugin_to_name_its_setting(site: Site, tmp_path: Path) -> None:
    """``--engine TYPE:VALUE`` fills the setting a plug-in names in ``adhoc_setting``; a
    plug-in that names none is used through a profile only."""
    from nlu_tui.engines.profiles import resolve_engine

    site.add(
        "nlu-echo",
        {"nlu_tui.engines": {"echo": "nlu_echo:Echo", "echo-url": "nlu_echo:EchoUrl"}},
        {"nlu_echo": ENGINE_MODULE + "\nclass EchoUrl(Echo):\n    adhoc_setting = 'url'\n"},
    )
    with pytest.raises(InputError, match="engine type 'echo' has no echo:VALUE form"):
        resolve_engine("echo:anything", workspace=tmp_path)
    resolved = resolve_engine("echo-url:http://127.0.0.1:9/x", workspace=tmp_path)
    assert resolved.engine.settings["url"] == "http://127.0.0.1:9/x"  # type: ignore[attr-defined]
    assert resolved.profile_public["type"] == "echo-url"
    with pytest.raises(InputError, match="credentials"):
        resolve_engine("echo-url:http://127.0.0.1:9/x?token=abc", workspace=tmp_path)


def test_plugins_command_lists_checks_and_names_what_was_ignored(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    from nlu_tui.cli.main import run

    site.add(
        "nlu-mixed",
        {
            "nlu_tui.engines": {"echo": "nlu_mixed:Echo", "rasa": "nlu_mixed:Echo"},
            "nlu_tui.formats": {"broken": "nlu_mixed:NotAnEngine"},
        },
        {"nlu_mixed": ENGINE_MODULE},
        version="0.2",
    )
    assert run(["plugins"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == "nlu_tui.engines:"
    assert [line.split()[:2] for line in lines if "nlu-mixed" in line] == [
        ["echo", "nlu-mixed"],
        ["broken", "nlu-mixed"],
    ]
    assert "rasa           built-in" in out
    assert err == (
        "nlu-tui: warning: plug-in 'rasa' (nlu_tui.engines, from nlu-mixed 0.2) is ignored: "
        "'rasa' is a built-in name, which a plug-in cannot replace; rename its entry point\n"
    )

    assert run(["plugins", "--check"]) == 2
    out, err = capsys.readouterr()
    assert [line.split()[0] for line in out.splitlines() if line.endswith("BROKEN")] == ["broken"]
    assert err.splitlines()[-1] == (
        "nlu-tui: error: plug-in 'broken' (nlu_tui.formats, from nlu-mixed 0.2): "
        "nlu_mixed:NotAnEngine does not define sniff, read, write (a format defines sniff, "
        "read and write)"
    )


# --- formats ---------------------------------------------------------------------------------

LINES_FORMAT = """
from nlu_tui.formats.registry import ImportResult
from nlu_tui.model import ExpectedIntent, Suite, TestCase

EXTENSIONS = (".lines",)

def sniff(path, head):
    return path.suffix == ".lines"

def read(path):
    cases = [
        TestCase(text.split(" ", 1)[1], intents=[ExpectedIntent(text.split(" ", 1)[0])])
        for text in path.read_text().splitlines()
    ]
    return ImportResult(Suite(name=path.stem, cases=cases))

def write(suite, path):
    return []
"""


def test_a_format_plugin_is_detected_after_the_builtins_and_reads_a_suite(
    site: Site, tmp_path: Path
) -> None:
    site.add(
        "nlu-lines",
        {"nlu_tui.formats": {"lines": "nlu_lines", "half": "nlu_half"}},
        {"nlu_lines": LINES_FORMAT, "nlu_half": "def sniff(path, head):\n    return False\n"},
    )
    assert format_names() == [*FORMAT_MODULES, "half", "lines"]
    source = tmp_path / "cases.lines"
    source.write_text("greet hello there\nbye see you\n", encoding="utf-8")
    # "half" is tried before "lines", and it has no read/write: named, one line
    with pytest.raises(plugins.PluginError, match=r"plug-in 'half' .*does not define read, write"):
        import_suite(source)
    result = import_suite(source, "lines")
    assert [(c.intents[0].name, c.utterance) for c in result.suite.cases] == [
        ("greet", "hello there"),
        ("bye", "see you"),
    ]
    with pytest.raises(InputError, match=r"unknown format 'nope'; known: native.*half, lines"):
        import_suite(source, "nope")


def test_a_native_file_is_detected_without_importing_any_format_plugin(
    site: Site, tmp_path: Path
) -> None:
    site.add(
        "nlu-broken",
        {"nlu_tui.formats": {"broken": "nlu_broken"}},
        {"nlu_broken": "raise RuntimeError('boom')\n"},
    )
    suite = tmp_path / "x.suite.yaml"
    suite.write_bytes((REPO / "sample_suites" / "banking_bot.suite.yaml").read_bytes())
    assert import_suite(suite).suite.cases
    with pytest.raises(plugins.PluginError, match=r"plug-in 'broken'.*RuntimeError: boom"):
        import_suite(suite, "broken")


# --- start-up --------------------------------------------------------------------------------


def _no_discovery(group: str) -> tuple[tuple[str, str, str], ...]:
    raise AssertionError(f"plug-ins of {group} discovered")


def test_a_run_on_a_builtin_engine_and_format_discovers_no_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discovery (importlib.metadata, the entry points of every installed distribution: ~80 ms
    of CPU) is for names the code does not know: ``--engine rasa:URL``, a profile of a built-in
    type and a native suite file (detected or named) never call it (issue 27, item 3)."""
    from nlu_tui.engines.profiles import resolve_engine

    plugins.refresh()
    monkeypatch.setattr(plugins, "_discover", _no_discovery)
    assert isinstance(resolve_engine("rasa:http://127.0.0.1:9").engine, RasaEngine)
    (tmp_path / "engines.yaml").write_text(
        "engines:\n  r:\n    url: http://127.0.0.1:9\n    type: rasa\n", encoding="utf-8"
    )
    assert isinstance(resolve_engine("r", workspace=tmp_path).engine, RasaEngine)
    assert isinstance(create_engine("rasa-pro", {"url": "http://127.0.0.1:9"}), Engine)
    suite = tmp_path / "x.suite.yaml"
    suite.write_bytes((REPO / "sample_suites" / "banking_bot.suite.yaml").read_bytes())
    assert import_suite(suite).suite.cases
    assert import_suite(suite, "native").suite.cases


def test_a_builtin_engine_spec_does_not_import_importlib_metadata(tmp_path: Path) -> None:
    """In a fresh process: resolving ``--engine rasa:URL`` and a profile of a built-in type,
    and reading a native suite, leave ``importlib.metadata`` unimported."""
    (tmp_path / "engines.yaml").write_text(
        "engines:\n  r:\n    url: http://127.0.0.1:9\n    type: rasa\n", encoding="utf-8"
    )
    suite = REPO / "sample_suites" / "banking_bot.suite.yaml"
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from nlu_tui.engines.profiles import resolve_engine\n"
        "from nlu_tui.formats.registry import import_suite\n"
        "resolve_engine('rasa:http://127.0.0.1:9')\n"
        f"resolve_engine('r', workspace=Path({str(tmp_path)!r}))\n"
        f"assert import_suite(Path({str(suite)!r})).suite.cases\n"
        "print(','.join(m for m in ('importlib.metadata',) if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_a_plugin_engine_and_format_are_still_discovered_by_name(
    site: Site, tmp_path: Path
) -> None:
    """The other side of skipping discovery for built-ins: a profile of a plug-in's type, and
    a file no built-in format reads, still find their plug-ins."""
    from nlu_tui.engines.profiles import resolve_engine

    site.add(
        "nlu-echo",
        {"nlu_tui.engines": {"echo": "nlu_echo:Echo"}, "nlu_tui.formats": {"lines": "nlu_lines"}},
        {"nlu_echo": ENGINE_MODULE, "nlu_lines": LINES_FORMAT},
    )
    (tmp_path / "engines.yaml").write_text("engines:\n  e:\n    type: echo\n", encoding="utf-8")
    resolved = resolve_engine("e", workspace=tmp_path)
    assert type(resolved.engine).__name__ == "Echo"
    source = tmp_path / "cases.lines"
    source.write_text("greet hello there\n", encoding="utf-8")
    assert [c.utterance for c in import_suite(source).suite.cases] == ["hello there"]


def test_help_does_not_discover_plugins(tmp_path: Path) -> None:
    """Discovery (importlib.metadata, a scan of every installed distribution) waits until an
    engine or a format is needed."""
    code = (
        "import contextlib, io, sys\n"
        "from nlu_tui.cli.main import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        run(['run', '--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(','.join(m for m in ('nlu_tui.plugins', 'importlib.metadata') if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == ""


# --- a real installation ---------------------------------------------------------------------


def _install_example(tmp_path: Path) -> Path:
    """pip-install tests/fixtures/plugins/nlu_keywords into a folder, offline."""
    target = tmp_path / "site-packages"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",  # hatchling comes from the dev dependencies
            "--no-index",
            "--disable-pip-version-check",
            "--target",
            str(target),
            str(EXAMPLE),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (target / "nlu_keywords-0.1.0.dist-info" / "entry_points.txt").is_file()
    return target


def _nlu_tui(args: list[str], cwd: Path, *extra_path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, extra_path), str(REPO)])
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_an_installed_plugin_engine_and_format_run_a_suite(tmp_path: Path) -> None:
    """The example plug-in (one module, one pyproject line per plug-in) installed with pip:
    ``nlu-tui run cases.kwtsv --engine keywords:kw.json`` reads the suite with its format and
    asks its engine; the results are the keyword engine's answers."""
    target = _install_example(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    (work / "cases.kwtsv").write_text(
        "greet\thello there\ngreet\thi bot\nbye\tgoodbye now\nbye\tsee you later\n",
        encoding="utf-8",
    )
    (work / "kw.json").write_text('{"greet": ["hello", "hi"], "bye": ["goodbye"]}')
    args = ["run", "cases.kwtsv", "--engine", "keywords:kw.json", "--json", "out.json"]

    without = _nlu_tui(args, work)  # not installed: neither the format nor the engine exists
    assert without.returncode == 2, without.stderr
    assert "cannot tell the format" in without.stderr

    done = _nlu_tui(args, work, target)
    assert done.returncode == 0, done.stderr
    report = json.loads((work / "out.json").read_text(encoding="utf-8"))
    assert report["run"]["engine"] == f"keywords:{work / 'kw.json'}"
    answers = {r["utterance"]: (r["matched_intent"], r["result"]) for r in report["results"]}
    assert answers == {
        "hello there": ("greet", "TP"),
        "hi bot": ("greet", "TP"),
        "goodbye now": ("bye", "TP"),
        "see you later": (None, "FN"),  # no keyword: the engine gives no intent
    }

    # a profile of the plug-in's type: its path is relative to engines.yaml, a typo is named
    (work / "engines.yaml").write_text(
        "engines:\n  kw:\n    type: keywords\n    path: kw.json\n", encoding="utf-8"
    )
    profiled = _nlu_tui(["run", "cases.kwtsv", "--engine", "kw"], work, target)
    assert profiled.returncode == 0, profiled.stderr
    assert "TP 3 TN 0 FP 0 FN 1" in profiled.stdout
    (work / "engines.yaml").write_text(
        "engines:\n  kw:\n    type: keywords\n    pth: kw.json\n", encoding="utf-8"
    )
    typo = _nlu_tui(["run", "cases.kwtsv", "--engine", "kw"], work, target)
    assert typo.returncode == 2
    assert "line 4" in typo.stderr and "unknown key 'pth'" in typo.stderr
    assert "did you mean 'path'?" in typo.stderr


class _no_plugin_warnings:
    """Fail on any PluginWarning inside the block."""

    def __enter__(self) -> None:
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("error", plugins.PluginWarning)

    def __exit__(self, *exc: object) -> None:
        self._catch.__exit__(*exc)
