"""Fuzzing every reader and every writer (issue 10, items 10-12).

Readers: whatever bytes a file holds, reading it ends in an :class:`InputError` (the CLI's one
``nlu-tui: error:`` line and exit 2) or in a suite that saves and re-reads identically; never
another exception, a crash, a hang or unbounded memory. Most examples run in-process; a sample
runs the real command line in a child with bounded memory and time (marked slow).

Writers: every format's writer produces a file nlu-tui reads back, and a second trip through the
format changes nothing more (a lossy format loses what it cannot hold once, then is stable).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nlu_tui.errors import InputError
from nlu_tui.formats import native
from nlu_tui.formats.registry import FORMAT_MODULES, export_suite, import_suite
from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase, ValueKind

FILE_NAMES = {
    "native": "f.suite.yaml",
    "kore-json": "f.json",
    "kore-csv": "f.csv",
    "rasa": "f.yml",
    "nludevops": "f.json",
    "luis": "f.json",
    "lex-csv": "f.lex.csv",
    "dialogflow-cx": "f.json",
}
SEEDS = {
    "native": (
        "nlu_tui_suite: 1\nname: seed\ncases:\n"
        "  - id: a1\n    utterance: book a flight to Paris\n    intents: [book]\n"
        "    entities:\n      - {name: city, value: Paris}\n    tags: [smoke]\n"
        "    extra:\n      note: {k: [1, 2]}\n"
        "  - utterance: hello\n    intents: [greet]\n"
    ),
    "kore-json": (
        '{"testCases": [{"input": "book a flight to Paris", "intent": "book", '
        '"entities": [{"entityName": "city", "entityValue": "Paris"}], "x": {"y": [1]}},\n'
        '{"input": "hello", "intent": "greet"}]}'
    ),
    "kore-csv": (
        "input,intent,parentIntent,entityName,entityValue,entityOrder\n"
        "book a flight to Paris,book,,city,Paris,\nhello,greet,,,,\n"
    ),
    "rasa": (
        'version: "3.1"\nnlu:\n- intent: book\n  examples: |\n'
        "    - book a flight to [Paris](city)\n- intent: greet\n  examples: |\n    - hello\n"
    ),
    "nludevops": (
        '[{"text": "book a flight to Paris", "intent": "book", "entities": '
        '[{"entityType": "city", "matchText": "Paris"}]},\n{"text": "hello", "intent": "greet"}]'
    ),
    "luis": (
        '[{"text": "book a flight to Paris", "intent": "book", "entities": '
        '[{"entity": "city", "startPos": 17, "endPos": 21}]},\n'
        '{"text": "hello", "intent": "greet", "entities": []}]'
    ),
}
SEEDS["lex-csv"] = (
    "Line #,Conversation #,Source,Input,Expected Output Intent,Expected Output Slot 1\r\n"
    "1,,User,book a cleaning appointment tomorrow,MakeAppointment,AppointmentType = cleaning\r\n"
    "1,1,User,Can you help me book an appointment?,MakeAppointment,\r\n"
    "2,1,Agent,What type of appointment would you like to schedule?,,\r\n"
)
SEEDS["dialogflow-cx"] = (
    '{"testCases": [{"displayName": "t", "testCaseConversationTurns": [{"userInput": {"input": '
    '{"text": {"text": "book a flight"}}}, "virtualAgentOutput": {"triggeredIntent": '
    '{"displayName": "book"}, "sessionParameters": {"city": "Paris"}}}]}]}'
)
HOSTILE = [
    "[" * 3000,
    "{" * 3000,
    "- " * 2000,
    "]]]}}}",
    "&a [x, x, x, x, x, x, x, x]",
    "*a",
    "&b [*a, *a, *a, *a, *a, *a, *a, *a]",
    "&c [*b, *b, *b, *b, *b, *b, *b, *b]",
    "&d [*c, *c, *c, *c, *c, *c, *c, *c]",
    "<<: *a",
    '"\\udcff"',
    '"\\ud800\\udc00"',
    '"\\u0000"',
    "\x00",
    "\x01\x1b[2J",
    "\x85\u2028\u2029",
    "\ufeff",
    "\r\n",
    "\t",
    "'",
    '"',
    "“",
    "#",
    ": ",
    "? ",
    "!!python/object:os.system",
    "!!binary AAAA",
    "%YAML 1.1\n---\n",
    "---\n...\n",
    "k" * 1100 + ": 1",
    "1e999999",
    "NaN",
    "-Infinity",
    ".nan",
    "2001-02-30",
    "2001-12-14t21:59:43.10-05:00",
    "0o777777777777777777777",
    "0x" + "f" * 5000,
    "-0",
    "9" * 5000,
    ",,,,",
    '"",',
    "\n" * 3,
]
EXAMPLES = int(os.environ.get("NLU_TUI_FUZZ_EXAMPLES", "60"))
"""Examples per reader and writer; raise it for a deeper run (the CLI sample takes a tenth)."""

HOSTILE_BYTES = [b"\xff", b"\xc3", b"\xed\xb3\xbf", b"\xe9", b"\x00\x00"]


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    limit = 1024 * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@st.composite
def hostile_file(draw: st.DrawFn, fmt: str) -> bytes:
    """A seed file of ``fmt`` with hostile pieces spliced in, or random bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=300))
    data = SEEDS[fmt].encode("utf-8")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        piece = draw(
            st.sampled_from(HOSTILE).map(lambda s: s.encode("utf-8", "surrogatepass"))
            | st.sampled_from(HOSTILE_BYTES)
            | st.text(max_size=8).map(lambda s: s.encode("utf-8", "surrogatepass"))
        )
        cut = draw(st.integers(0, 3))
        data = data[:at] + piece + data[at + cut :]
    return data


def reads_back(suite: Suite) -> None:
    """What a reader accepted saves as a native suite that reads back identically."""
    text = native.dump_suite(suite)
    again = native.parse_suite(text)
    assert again.cases == suite.cases
    assert (again.name, again.description, again.extra, again.training) == (
        suite.name,
        suite.description,
        suite.extra,
        suite.training,
    )


def read_or_refuse(path: Path, fmt: str) -> Suite | None:
    """The suite, or None when refused with an InputError naming the file."""
    try:
        return import_suite(path, fmt).suite
    except InputError as exc:
        assert exc.path is None or str(exc.path) == str(path) or "--format" in str(exc)
        assert "\n" not in str(exc).strip() or "Traceback" not in str(exc)
        return None


@pytest.mark.parametrize("fmt", list(FORMAT_MODULES))
@settings(
    max_examples=EXAMPLES,
    deadline=5000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_every_reader_refuses_or_reads_back(fmt: str, data: st.DataObject) -> None:
    content = data.draw(hostile_file(fmt))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / FILE_NAMES[fmt]
        path.write_bytes(content)
        suite = read_or_refuse(path, fmt)
        if suite is not None:
            reads_back(suite)
        # detection too: any file is either refused or read as some format
        try:
            detected = import_suite(path).suite
        except InputError:
            return
        reads_back(detected)


def _cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        preexec_fn=_limit_memory,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(FORMAT_MODULES))
@settings(
    max_examples=max(3, EXAMPLES // 10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_the_command_line_refuses_or_imports(fmt: str, data: st.DataObject) -> None:
    content = data.draw(hostile_file(fmt))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / FILE_NAMES[fmt]
        path.write_bytes(content)
        out = Path(tmp) / "out.suite.yaml"
        proc = _cli("import", path, "--format", fmt, "-o", out, cwd=Path(tmp))
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
        if proc.returncode == 0:
            assert out.exists()
            reads_back(native.load_suite(out))
            imported = import_suite(path, fmt).suite  # the same again, in-process
            ids = "native" if fmt == "native" else "luis"  # files without ids get new ones
            assert _comparable(native.load_suite(out), ids) == _comparable(imported, ids)
            return
        assert proc.returncode == 2, (proc.returncode, proc.stderr[-3000:])
        errors = [line for line in proc.stderr.splitlines() if line.startswith("nlu-tui: error:")]
        assert len(errors) == 1, proc.stderr
        assert not out.exists()


# --- every writer: write -> read -> equal ---------------------------------------------------------

_any_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)),  # lone surrogates are refused on import
    max_size=12,
)
_name = _any_text.filter(lambda s: s.strip() != "")
_key = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8) | (
    st.integers(1000, 1024).map(lambda n: "k" * n)
)
_free = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | _any_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_key, inner, max_size=3),
    max_leaves=8,
)
_entity = st.builds(
    ExpectedEntity,
    name=_name,
    value=_any_text,
    kind=st.sampled_from(list(ValueKind)),
    alternatives=st.lists(_any_text, max_size=2),
)
_case = st.builds(
    TestCase,
    utterance=_name,
    intents=st.lists(st.builds(ExpectedIntent, name=_name), max_size=2),
    entities=st.lists(_entity, max_size=2),
    tags=st.lists(_name, max_size=2),
    id=st.text(alphabet="0123456789abcdef", min_size=12, max_size=12),
    extra=st.dictionaries(_key, _free, max_size=2),
)
_suite = st.builds(Suite, name=_name, cases=st.lists(_case, max_size=4))


def _trip(suite: Suite, fmt: str, folder: Path, n: int) -> Suite:
    path = folder / f"{n}{FILE_NAMES[fmt]}"
    export_suite(suite, path, fmt)
    return import_suite(path, fmt).suite


KEEPS_IDS = ("native", "nludevops")
"""Formats that hold case ids; the others give read cases new ones."""


def _comparable(suite: Suite, fmt: str = "native") -> list[TestCase]:
    drop_id = {} if fmt in KEEPS_IDS else {"id": ""}
    return [TestCase(**{**c.__dict__, "line": None, **drop_id}) for c in suite.cases]


@pytest.mark.parametrize("fmt", list(FORMAT_MODULES))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(suite=_suite)
def test_every_writer_writes_what_reads_back(fmt: str, suite: Suite) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if fmt == "lex-csv" and any("=" in e.name for c in suite.cases for e in c.entities):
            # a Lex slot cell is "SlotName = value": a name with '=' is refused, nothing written
            with pytest.raises(InputError, match="holds '=', which a Lex test set cannot hold"):
                _trip(suite, fmt, folder, 1)
            assert not list(folder.iterdir())
            return
        once = _trip(suite, fmt, folder, 1)
        if fmt == "native":
            assert _comparable(once) == _comparable(suite)
        twice = _trip(once, fmt, folder, 2)
        assert _comparable(twice, fmt) == _comparable(once, fmt)
        reads_back(once)
