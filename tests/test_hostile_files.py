"""Hostile and broken files (issue 10, items 10-13): a clear one-line error and exit 2, never a
crash, a hang, a traceback or a file nlu-tui cannot read back."""

from __future__ import annotations

import json
import os
import resource
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nlu_tui.errors import InputError, NluTuiError
from nlu_tui.formats import native
from nlu_tui.formats.registry import import_suite
from nlu_tui.model import ExpectedIntent, Suite, TestCase

MAX_DEPTH = 64
"""The documented nesting limit (README): lists and mappings, counted from the top of a file."""

MEMORY_LIMIT = 1024 * 1024 * 1024
"""Address space for a CLI under test: far more than any of these files needs."""


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def cli(*args: str | Path, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The real command line, in a child with bounded memory and time, without a terminal."""
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        preexec_fn=_limit_memory,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )


def one_error(proc: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit 2, exactly one ``nlu-tui: error:`` line on stderr, no traceback; the line.

    ``validate`` reports an unreadable file as its own problem line on stdout
    (``FILE:LINE: error: [unreadable] ...``) and goes on with the next file; that line counts.
    """
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    if proc.args[3:4] == ["validate"]:
        lines = [line for line in proc.stdout.splitlines() if "error: [unreadable]" in line]
        assert len(lines) == 1, proc.stdout
        for needle in needles:
            assert needle.replace("line ", ":") in lines[0], lines[0]
        return lines[0]
    lines = [line for line in proc.stderr.splitlines() if line.startswith("nlu-tui: error:")]
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# --- item 10: alias bombs and deep nesting ------------------------------------------------------


def test_one_documented_limit_for_yaml_and_json() -> None:
    from nlu_tui import jsonfile
    from nlu_tui.formats import yaml_loader

    assert jsonfile.MAX_DEPTH == yaml_loader.MAX_DEPTH == MAX_DEPTH


ALIAS_BOMB = """nlu_tui_suite: 1
name: bomb
cases:
  - utterance: hi
    extra:
      a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
      b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
      c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
      d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
      e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
      f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
      g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
      h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
      i: [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def deep_suite(levels: int) -> str:
    return (
        "nlu_tui_suite: 1\nname: deep\ncases:\n  - utterance: hi\n    extra:\n"
        f"      a: {'[' * levels}{']' * levels}\n"
    )


def test_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    path = tmp_path / "bomb.suite.yaml"
    path.write_text(ALIAS_BOMB, encoding="utf-8")
    assert len(ALIAS_BOMB.splitlines()) == 14
    for command in (["validate", path], ["import", path, "-o", tmp_path / "out.suite.yaml"]):
        started = time.monotonic()
        line = one_error(cli(*command, cwd=tmp_path), str(path), "line ", "alias")
        assert time.monotonic() - started < 30, line
    assert not (tmp_path / "out.suite.yaml").exists()
    with pytest.raises(InputError, match="alias") as info:
        native.load_suite(path)
    assert info.value.line is not None and 6 <= info.value.line <= 14


def test_a_few_aliases_are_still_fine(tmp_path: Path) -> None:
    path = tmp_path / "anchors.suite.yaml"
    path.write_text(
        "nlu_tui_suite: 1\nname: a\ncases:\n"
        "  - utterance: one\n    extra: &shared {team: [a, b]}\n"
        "  - utterance: two\n    extra: *shared\n",
        encoding="utf-8",
    )
    suite = native.load_suite(path)
    assert suite.cases[1].extra == {"team": ["a", "b"]}


@pytest.mark.slow
def test_thirty_thousand_nested_brackets_do_not_crash(tmp_path: Path) -> None:
    path = tmp_path / "deep.suite.yaml"
    path.write_text(deep_suite(30_000), encoding="utf-8")
    one_error(cli("validate", path, cwd=tmp_path), str(path), "line 6", f"{MAX_DEPTH} levels")
    kore = tmp_path / "deep.json"
    kore.write_text(
        '{"testCases": [{"input": "hi", "intent": "x", "x": ' + "[" * 30_000 + "]" * 30_000 + "}]}",
        encoding="utf-8",
    )
    one_error(cli("validate", kore, cwd=tmp_path), str(kore), f"{MAX_DEPTH} levels")


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 1_000, 30_000])
def test_deep_native_suite_is_refused_in_process(tmp_path: Path, levels: int) -> None:
    path = tmp_path / "deep.suite.yaml"
    path.write_text(deep_suite(levels), encoding="utf-8")
    with pytest.raises(InputError, match=f"more than {MAX_DEPTH} levels") as info:
        native.load_suite(path)
    assert info.value.line == 6


def test_the_depth_limit_itself_is_accepted(tmp_path: Path) -> None:
    # the suite mapping, cases, a case and its extra are four levels; the list adds the rest
    path = tmp_path / "limit.suite.yaml"
    path.write_text(deep_suite(MAX_DEPTH - 4), encoding="utf-8")
    value = native.load_suite(path).cases[0].extra["a"]
    for _ in range(MAX_DEPTH - 5):
        value = value[0]
    assert value == []


def test_block_nesting_counts_too(tmp_path: Path) -> None:
    body = "".join(f"{' ' * (2 * i)}k:\n" for i in range(MAX_DEPTH + 5))
    path = tmp_path / "block.suite.yaml"
    path.write_text(
        "nlu_tui_suite: 1\nname: b\ncases: []\nextra:\n"
        + "\n".join("  " + line for line in body.splitlines())
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="levels"):
        native.load_suite(path)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "kore.json",
            '{"testCases": [{"input": "hi", "intent": "x", "x": ' + "[" * 1000 + "]" * 1000 + "}]}",
        ),
        ("dev.json", '[{"text": "hi", "intent": "x", "y": ' + "[" * 1000 + "]" * 1000 + "}]"),
        (
            "luis.json",
            '[{"text": "hi", "intent": "x", "entities": [], "startPos": '
            + "[" * 1000
            + "]" * 1000
            + "}]",
        ),
        (
            "nlu.yml",
            'version: "3.1"\nnlu:\n- intent: greet\n  metadata: '
            + "[" * 1000
            + "]" * 1000
            + "\n  examples: |\n    - hi\n",
        ),
    ],
    ids=["kore-json", "nludevops", "luis", "rasa"],
)
def test_deep_json_and_rasa_files_are_refused(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=f"more than {MAX_DEPTH} levels") as info:
        import_suite(path)
    assert str(path) in str(info.value)


def test_rasa_alias_bomb_is_refused(tmp_path: Path) -> None:
    lines = ['version: "3.1"', "nlu:", "- intent: greet", "  metadata:"]
    lines.append('    a: &a ["x","x","x","x","x","x","x","x","x","x"]')
    previous = "a"
    for name in "bcdefgh":
        lines.append(f"    {name}: &{name} [" + ",".join([f"*{previous}"] * 10) + "]")
        previous = name
    lines += ["  examples: |", "    - hi"]
    path = tmp_path / "nlu.yml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="alias"):
        import_suite(path)


def test_recursive_alias_is_refused() -> None:
    with pytest.raises(InputError, match="contains it"):
        native.parse_suite("nlu_tui_suite: 1\ncases: []\nextra: &a {x: *a}\n", "r.suite.yaml")


# --- item 11: what is imported saves and reads back ------------------------------------------


def test_lone_surrogate_in_kore_json_is_refused_on_import(tmp_path: Path) -> None:
    source = tmp_path / "kore.json"
    source.write_text(
        '{"testCases": [\n{"input": "ok", "intent": "a"},\n{"input": "bad \\udcff", "intent": "b"}]}',
        encoding="utf-8",
    )
    out = tmp_path / "kore.suite.yaml"
    one_error(cli("import", source, "-o", out, cwd=tmp_path), str(source), "line 3", "surrogate")
    assert not out.exists()


def test_paired_surrogate_escapes_are_text(tmp_path: Path) -> None:
    source = tmp_path / "dev.json"
    source.write_text('[{"text": "smile \\ud83d\\ude00", "intent": "a"}]', encoding="utf-8")
    suite = import_suite(source).suite
    assert suite.cases[0].utterance == "smile \U0001f600"
    again = native.parse_suite(native.dump_suite(suite))
    assert again.cases == suite.cases


def test_lone_surrogate_in_nludevops_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "dev.json"
    source.write_text('[{"text": "hi", "intent": "a", "note": "\\udcff"}]', encoding="utf-8")
    with pytest.raises(InputError, match="surrogate"):
        import_suite(source)


def test_long_key_in_extra_is_refused_on_import(tmp_path: Path) -> None:
    key = "k" * 1025
    source = tmp_path / "kore.json"
    source.write_text(
        json.dumps({"testCases": [{"input": "hi", "intent": "a", key: 1}]}), encoding="utf-8"
    )
    out = tmp_path / "kore.suite.yaml"
    one_error(cli("import", source, "-o", out, cwd=tmp_path), str(source), "1,024")
    assert not out.exists()
    # a key at the limit is written so that it reads back
    fine = tmp_path / "fine.json"
    fine.write_text(
        json.dumps({"testCases": [{"input": "hi", "intent": "a", "k" * 1024: 1}]}),
        encoding="utf-8",
    )
    suite = import_suite(fine).suite
    assert native.parse_suite(native.dump_suite(suite)).cases == suite.cases


def test_native_suite_with_an_explicit_long_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "long.suite.yaml"
    path.write_text(
        f'nlu_tui_suite: 1\ncases:\n  - utterance: hi\n    extra:\n      ? "{"k" * 1100}"\n      : 1\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="1,024"):
        native.load_suite(path)


# --- item 12: clear errors instead of tracebacks ----------------------------------------------


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("dev.json", b'[{"text": "caf\xe9", "intent": "x"}]'),
        (
            "luis.json",
            b'[{"text": "caf\xe9", "intent": "x", "entities": [{"entity": "a", "startPos": 0, '
            b'"endPos": 1}]}]',
        ),
        ("kore.json", b'{"testCases": [\n{"input": "caf\xe9", "intent": "x"}]}'),
    ],
    ids=["nludevops", "luis", "kore-json"],
)
def test_non_utf8_json_is_one_error(tmp_path: Path, name: str, data: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    fmt = {"dev.json": "nludevops", "luis.json": "luis", "kore.json": "kore-json"}[name]
    out = tmp_path / "out.suite.yaml"
    one_error(cli("import", path, "-f", fmt, "-o", out, cwd=tmp_path), str(path), "UTF-8")
    assert not out.exists()


def test_control_character_in_native_yaml_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "ctrl.suite.yaml"
    path.write_bytes(
        b"nlu_tui_suite: 1\nname: x\ncases:\n  - utterance: ok\n  - utterance: c\x02d\n"
    )
    for command in (["validate", path], ["import", path, "-o", tmp_path / "o.suite.yaml"]):
        one_error(cli(*command, cwd=tmp_path), str(path), "line 5", "U+0002")


def test_lone_surrogate_utterance_from_nludevops_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "dev.json"
    path.write_text('[{"text": "hi \\udcff", "intent": "x"}]', encoding="utf-8")
    for command in (["validate", path], ["run", path, "--engine", "embedded:nowhere.yml"]):
        one_error(cli(*command, cwd=tmp_path), str(path), "surrogate")


@pytest.mark.parametrize(
    "content",
    [b"this is not an SQLite file at all\n" * 20, b"SQLite format 3\x00" + b"\xff" * 5000],
    ids=["text", "bad-header"],
)
def test_store_that_is_not_sqlite_is_one_error(tmp_path: Path, content: bytes) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "runs.sqlite3").write_bytes(content)
    proc = cli("--data-dir", data, "runs", cwd=tmp_path)
    one_error(proc, "runs.sqlite3")
    from nlu_tui.store import RunStore

    with pytest.raises(NluTuiError, match=r"runs\.sqlite3"):
        RunStore(data / "runs.sqlite3")


def test_store_damaged_after_opening_is_one_error(tmp_path: Path) -> None:
    from nlu_tui.store import RunStore

    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    store.create_run(Suite("s", cases=[TestCase("hi", id="a")]), engine_name="e")
    store.close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = path.stat().st_size
    with path.open("r+b") as handle:  # wreck every page but the header
        handle.seek(100)
        handle.write(b"\xa5" * (size - 100))
    with pytest.raises(NluTuiError, match=r"runs\.sqlite3"), RunStore(path) as damaged:
        damaged.list_runs()


# --- item 13: a mistyped command, no terminal, a missing suite ---------------------------------


def test_mistyped_command_is_a_usage_error(tmp_path: Path) -> None:
    proc = cli("runn", cwd=tmp_path, timeout=30)
    one_error(proc, "'runn'", "did you mean run?")
    assert "usage:" in proc.stderr
    assert not (tmp_path / "runn").exists()


def test_a_file_is_not_a_workspace(tmp_path: Path) -> None:
    (tmp_path / "a.suite.yaml").write_text("nlu_tui_suite: 1\ncases: []\n", encoding="utf-8")
    one_error(cli("a.suite.yaml", cwd=tmp_path, timeout=30), "a.suite.yaml", "not a folder")


@pytest.mark.parametrize("args", [[], ["."]])
def test_workbench_without_a_terminal_exits(tmp_path: Path, args: list[str]) -> None:
    proc = cli(*args, cwd=tmp_path, timeout=30)
    one_error(proc, "terminal")
    assert "\x1b" not in proc.stdout


def test_runs_of_a_missing_suite_file_is_an_error(tmp_path: Path) -> None:
    one_error(cli("runs", "nosuch.suite.yaml", cwd=tmp_path), "nosuch.suite.yaml", "no such file")
    proc = cli("runs", "some name", cwd=tmp_path)
    assert proc.returncode == 0 and "no runs yet" in proc.stdout


# --- found by tests/test_fuzz_readers.py --------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("dev.json", '[{"text": "hi", "intent": "x", "n": ' + "9" * 5000 + "}]"),
        ("kore.json", '{"testCases": [{"input": "hi", "intent": "x", "n": ' + "9" * 5000 + "}]}"),
        (
            "n.suite.yaml",
            "nlu_tui_suite: 1\ncases:\n  - utterance: hi\n    extra: {n: " + "9" * 5000 + "}\n",
        ),
    ],
    ids=["nludevops", "kore-json", "native"],
)
def test_a_number_of_5000_digits_is_one_error(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="digits"):
        import_suite(path)


def test_deep_json_in_a_rasa_entity_annotation_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "nlu.yml"
    annotation = '[{"entity": "city", "x": ' + "[" * 2000 + "]" * 2000 + "}]"
    path.write_text(
        f'version: "3.1"\nnlu:\n- intent: book\n  examples: |\n    - to [Paris]{annotation}\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="levels"):
        import_suite(path)


def test_rasa_export_of_astral_characters_reads_back(tmp_path: Path) -> None:
    suite = Suite(
        "s", cases=[TestCase("hi \U0001f600", intents=[ExpectedIntent("smile \U00010000")])]
    )
    path = tmp_path / "nlu.yml"
    from nlu_tui.formats.registry import export_suite

    export_suite(suite, path, "rasa")
    back = import_suite(path, "rasa").suite
    assert back.cases[0].intents[0].name == "smile \U00010000"
    assert back.cases[0].utterance == "hi \U0001f600"


def test_kore_csv_export_keeps_curly_quotes_in_names(tmp_path: Path) -> None:
    from nlu_tui.formats.registry import export_suite
    from nlu_tui.model import ExpectedEntity

    suite = Suite(
        "s", cases=[TestCase("hi", entities=[ExpectedEntity("“", "0"), ExpectedEntity("a”b", "x")])]
    )
    path = tmp_path / "s.csv"
    export_suite(suite, path, "kore-csv")
    back = import_suite(path, "kore-csv")
    assert [(e.name, e.value) for e in back.suite.cases[0].entities] == [("“", "0"), ("a”b", "x")]
    assert back.warnings == []


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("settings.yml", "thresholds: " + "[" * 1000 + "]" * 1000 + "\n"),
        ("settings.json", '{"thresholds": ' + "[" * 1000 + "]" * 1000 + "}"),
        ("bomb.yml", ALIAS_BOMB.replace("nlu_tui_suite: 1\n", "")),
    ],
    ids=["yaml", "json", "alias-bomb"],
)
def test_compare_settings_are_bounded_too(tmp_path: Path, name: str, text: str) -> None:
    from nlu_tui.compare.settings import load_settings

    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"levels|alias"):
        load_settings(path)


def test_engine_profiles_and_theme_files_have_the_same_limits(tmp_path: Path) -> None:
    """engines.yaml and theme/settings files are read with the bounded loader too."""
    from nlu_tui.engines.profiles import read_profiles
    from nlu_tui.themes import parse_theme

    engines = tmp_path / "engines.yaml"
    engines.write_text(
        "engines:\n  bomb:\n" + "\n".join("    " + line for line in ALIAS_BOMB.splitlines()),
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="alias"):
        read_profiles(engines)
    deep = tmp_path / "deep.yaml"
    deep.write_text("engines: " + "[" * 1000 + "]" * 1000 + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="levels"):
        read_profiles(deep)
    theme = tmp_path / "theme.yaml"
    theme.write_text(ALIAS_BOMB, encoding="utf-8")
    with pytest.raises(ValueError, match="alias"):
        parse_theme(theme)
