"""A workspace: a folder of ``*.suite.yaml`` files that the workbench lists and edits.

No Textual here: the UI calls these functions (from workers) and shows what they return, so the
same operations are testable without a terminal. Deleting moves a suite into ``.trash/`` so the
UI can offer undo; nothing is ever removed outright.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui import paths
from nlu_tui.errors import InputError
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    Suite,
    TestCase,
    ValueKind,
    digest_bytes,
    new_case_id,
)

if TYPE_CHECKING:
    from nlu_tui.formats.native import ProgressCallback, SuiteChunk

SUITE_SUFFIX = ".suite.yaml"
TRAINING_SUFFIXES = (".nlu.yml", ".nlu.yaml")
KORE_UTTERANCES = ".kore-utterances.json"
"""A Kore.ai bot's ML utterances saved by ``kore utterances``: its read-only "Developer defined
utterances" suite (``formats.kore_ml_utterances``)."""
CONVERSATION_SUFFIXES = (".e2e.yml", ".e2e.yaml")
"""Conversation suites: Rasa Pro E2E test cases (``test_cases:``), run with ``test e2e``."""
RASA_TESTS_DIR = "tests"
"""A Rasa project's test folder: its YAML files with ``test_cases:`` are conversation suites
too, so a Rasa project opened as the workspace lists its E2E tests."""
"""Rasa training files in a workspace; each shows as a read-only "developer defined
utterances" suite (and trains the embedded engine for ``x.suite.yaml`` beside ``x.nlu.yml``)."""
RASA_DATA_DIR = "data"
"""A Rasa project's training data folder: its YAML files with NLU data (``nlu:``, as Rasa's
``RasaYAMLReader.is_yaml_nlu_file`` tells them, e.g. ``data/nlu.yml``) are developer
utterances too, found in its sub-folders as ``rasa train`` finds them."""
MAX_DATA_FILES = 1000
"""Files looked at under ``data/`` at most (a huge folder must not stall the suites panel)."""
_YAML_SUFFIXES = (".yml", ".yaml")
TRASH_DIR = ".trash"
DEVELOPER_SUITE_PREFIX = "Developer defined utterances"


@dataclass
class SuiteInfo:
    """What the suites panel shows for one suite file (``error`` when it cannot be read)."""

    path: Path
    name: str
    case_count: int = 0
    intents: list[str] = field(default_factory=list)
    last_status: str | None = None
    """The latest run's status."""
    last_f1: float | None = None
    """The F1 of the latest complete run (see :class:`LastRuns`)."""
    last_partial: tuple[int, int] | None = None
    """The latest run's (done, total) when it did not complete."""
    last_passed: tuple[int, int] | None = None
    """A conversation suite's latest run: (test cases passed, test cases)."""
    read_only: bool = False
    error: str | None = None
    kind: str = "suite"
    """``suite`` (utterances), or ``e2e`` for a conversation suite (test cases)."""
    partial: bool = False
    """Counted without parsing (a big file not yet opened): intents are unknown until opened."""
    unsaved: bool = False
    """It has edits that could not be written (a full or read-only disk): see
    :meth:`Workspace.unsaved`."""


@dataclass
class UnsavedSuite:
    """An edited suite whose last save failed: the edit lives only in memory until a retry."""

    path: Path
    suite: Suite
    error: str


def slugify(name: str) -> str:
    """A file-name stem for a suite name: lower case, dashes, nothing a shell would trip on."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:60] or "suite"


def suite_stem(path: Path) -> str:
    name = path.name
    return name[: -len(SUITE_SUFFIX)] if name.endswith(SUITE_SUFFIX) else path.stem


class Workspace:
    """The suites under one folder, plus its trash for undoable deletes."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).expanduser().resolve()
        self._unsaved: dict[Path, UnsavedSuite] = {}
        self._unsaved_lock = threading.Lock()
        self._write_lock = threading.RLock()
        """One save at a time: an edit's save and a "save again" of the same suite from another
        thread must not race (the second would see the first's file as changed on disk)."""

    @property
    def trash(self) -> Path:
        return self.root / TRASH_DIR

    def suite_paths(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.glob(f"*{SUITE_SUFFIX}") if p.is_file())

    # --- reading ----------------------------------------------------------------------------

    def conversation_paths(self) -> list[Path]:
        """Conversation suites, listed with the suites: ``*.e2e.yml`` files, and the E2E files
        (``test_cases:``) in ``tests/``, where a Rasa project keeps them."""
        if not self.root.is_dir():
            return []
        found = [
            p for p in self.root.iterdir() if p.is_file() and p.name.endswith(CONVERSATION_SUFFIXES)
        ]
        tests = self.root / RASA_TESTS_DIR
        if tests.is_dir():
            found += [p for p in tests.iterdir() if p.is_file() and is_conversation_file(p)]
        return sorted(found)

    def training_paths(self) -> list[Path]:
        """Training files: ``*.nlu.yml`` in the folder, then the NLU files of ``data/``."""
        if not self.root.is_dir():
            return []
        found = [
            p
            for p in self.root.iterdir()
            if p.is_file() and p.name.endswith((*TRAINING_SUFFIXES, KORE_UTTERANCES))
        ]
        return sorted(found) + rasa_data_files(self.root / RASA_DATA_DIR)

    def is_training_file(self, path: Path) -> bool:
        """A file shown as developer utterances (read-only), not a suite to edit."""
        if path.name.endswith(TRAINING_SUFFIXES):
            return True
        data = self.root / RASA_DATA_DIR
        return data in Path(path).parents and is_rasa_nlu_file(Path(path))

    def _training_name(self, path: Path) -> str:
        """``banking_bot`` for ``banking_bot.nlu.yml``; ``data/nlu`` for a Rasa project's."""
        if path.name.endswith(TRAINING_SUFFIXES):
            return path.name.split(".", 1)[0]
        try:
            relative = Path(path).relative_to(self.root)
        except ValueError:
            relative = Path(path.name)
        return relative.with_suffix("").as_posix()

    def load(self, path: Path, *, on_progress: ProgressCallback | None = None) -> Suite:
        """A suite file, or the read-only suite of a training file's examples.

        Big suite files come from the parsed-suite cache when unchanged on disk; ``on_progress``
        gets each chunk of cases as a big file is parsed (see :meth:`load_chunks`).
        """
        from nlu_tui.formats.native import load_suite

        pending = self.unsaved_suite(path)
        if pending is not None:  # what the user sees is the edit, not the file behind it
            if on_progress is not None:
                on_progress(_whole(pending))
            return pending
        if path.name.endswith(KORE_UTTERANCES):
            # here, not above: it imports orjson, which the first screen does not need
            from nlu_tui.formats import kore_ml_utterances

            suite = kore_ml_utterances.developer_suite(path)
            if on_progress is not None:
                on_progress(_whole(suite))
            return suite
        if self.is_training_file(path):
            suite = developer_suite(path, self._training_name(path))
            if on_progress is not None:
                on_progress(_whole(suite))
            return suite
        return load_suite(path, on_progress=on_progress)

    def load_chunks(self, path: Path, chunk_size: int = 2000) -> Iterator[SuiteChunk]:
        """A suite a chunk of cases at a time, for a table that fills while the rest parses.

        Run it in a worker thread; append each chunk's ``cases`` to the table; the last chunk
        carries the complete ``suite`` (the one to edit and save). Errors are raised as by
        :meth:`load`, possibly after some chunks have arrived (the UI should then discard them).
        """
        from nlu_tui.formats.native import iter_suite_chunks

        pending = self.unsaved_suite(path)
        if pending is not None:
            yield _whole(pending)
            return
        if path.name.endswith(KORE_UTTERANCES):
            from nlu_tui.formats import kore_ml_utterances  # (orjson: not for the first screen)

            yield _whole(kore_ml_utterances.developer_suite(path))
            return
        if self.is_training_file(path):
            yield _whole(developer_suite(path, self._training_name(path)))
            return
        yield from iter_suite_chunks(path, chunk_size)

    def info(self, path: Path, runs: dict[str, LastRuns] | None = None) -> SuiteInfo:
        """Summarise one suite file; a broken file yields an info with ``error`` set."""
        last = (runs or {}).get(str(path), LastRuns())
        if is_conversation_file(path):
            return _conversation_info(path, last)
        if self.is_unsaved(path):
            info = self._info_of(path, last)
            info.unsaved = True
            return info
        peeked = _peek_big_suite(path)
        if peeked is not None:
            name, count = peeked
            return SuiteInfo(
                path,
                name,
                case_count=count,
                last_status=last.status,
                last_f1=last.f1,
                last_partial=last.partial,
                partial=True,
            )
        return self._info_of(path, last)

    def _info_of(self, path: Path, last: LastRuns) -> SuiteInfo:
        try:
            suite = self.load(path)
        except (InputError, OSError) as exc:
            return SuiteInfo(path=path, name=suite_stem(path), error=str(exc))
        except Exception as exc:  # a format bug must not hide the other suites
            return SuiteInfo(path=path, name=suite_stem(path), error=f"cannot read: {exc}")
        return SuiteInfo(
            path=path,
            name=suite.name,
            case_count=len(suite.cases),
            intents=suite.intents_covered(),
            last_status=last.status,
            last_f1=last.f1,
            last_partial=last.partial,
            read_only=suite.read_only,
        )

    def list_suites(self) -> list[SuiteInfo]:
        """The suite files, then one read-only developer-utterances suite per training file."""
        runs = last_runs_by_suite()
        paths = [*self.suite_paths(), *self.conversation_paths(), *self.training_paths()]
        return [self.info(p, runs) for p in paths]

    # --- changing ---------------------------------------------------------------------------

    def save(
        self,
        suite: Suite,
        path: Path | None = None,
        *,
        force: bool = False,
        notes: list[str] | None = None,
    ) -> Path:
        """Save an edited suite through the native writer (which refuses to clobber a file
        changed on disk).

        When the write fails (a full or read-only disk, a conflict), the suite is remembered as
        unsaved, with the error, until a later save of it succeeds or the edit is discarded:
        the faces show it, retry it (:meth:`save_unsaved`) and ask before quitting.
        ``notes`` receives what the writer says about the file's layout (see
        :func:`nlu_tui.formats.native.save_suite`).
        """
        target = self._target(suite, path)
        try:
            self._write(suite, target, force=force, notes=notes)
        except Exception as exc:
            with self._unsaved_lock:
                self._unsaved[target] = UnsavedSuite(target, suite, _reason(exc))
            raise
        return target

    def _target(self, suite: Suite, path: Path | None) -> Path:
        if suite.read_only:
            raise InputError("this suite is read-only; duplicate it to edit", path=suite.path)
        target = path or suite.path
        if target is None:
            raise InputError("the suite has no file yet", field="path")
        return Path(target)

    def _write(
        self,
        suite: Suite,
        path: Path | None = None,
        *,
        force: bool = False,
        notes: list[str] | None = None,
    ) -> Path:
        """Write without tracking a failure (creating, renaming, copying and moving report
        their own errors and change nothing on failure); a success clears the unsaved mark of
        this suite."""
        from nlu_tui.formats.native import save_suite

        target = self._target(suite, path)
        with self._write_lock:
            save_suite(suite, target, force=force, notes=notes)
        with self._unsaved_lock:
            pending = self._unsaved.get(target)
            if pending is not None and pending.suite is suite:
                del self._unsaved[target]
        return target

    # --- edits that could not be saved ------------------------------------------------------

    def unsaved(self) -> list[UnsavedSuite]:
        """The suites with edits not yet on disk, in the order they failed."""
        with self._unsaved_lock:
            return list(self._unsaved.values())

    def is_unsaved(self, path: Path) -> bool:
        with self._unsaved_lock:
            return Path(path) in self._unsaved

    def unsaved_suite(self, path: Path) -> Suite | None:
        """The in-memory version of a suite whose edit is not yet on disk (None when saved)."""
        with self._unsaved_lock:
            pending = self._unsaved.get(Path(path))
        return pending.suite if pending is not None else None

    def save_unsaved(self) -> list[UnsavedSuite]:
        """Try every unsaved suite again; returns those that still fail (with the new error)."""
        for pending in self.unsaved():
            with contextlib.suppress(Exception):  # the error is kept with the suite
                self.save(pending.suite, pending.path)
        return self.unsaved()

    def discard_unsaved(self, path: Path) -> None:
        """Forget an unsaved edit (the user chose to reload the file, or saved it elsewhere)."""
        with self._unsaved_lock:
            self._unsaved.pop(Path(path), None)

    def free_path(self, name: str) -> Path:
        base = slugify(name)
        candidate = self.root / f"{base}{SUITE_SUFFIX}"
        n = 2
        while candidate.exists():
            candidate = self.root / f"{base}-{n}{SUITE_SUFFIX}"
            n += 1
        return candidate

    def create(self, name: str, description: str = "", cases: list[TestCase] | None = None) -> Path:
        name = name.strip()
        if not name:
            raise InputError("a suite needs a name", field="name")
        self.root.mkdir(parents=True, exist_ok=True)
        suite = Suite(name=name, description=description.strip(), cases=list(cases or []))
        path = self.free_path(name)
        self._write(suite, path)
        return path

    def rename(self, path: Path, new_name: str) -> Path:
        """Change a suite's name and move its file to match; returns the new path."""
        new_name = new_name.strip()
        if not new_name:
            raise InputError("a suite needs a name", field="name")
        suite = self.load(path)  # its unsaved version, when it has one: saved with the name
        old_name, suite.name = suite.name, new_name
        target = path
        if slugify(new_name) != suite_stem(path):
            target = self.free_path(new_name)
        try:
            self._write(suite, path)
        except BaseException:
            suite.name = old_name
            raise
        if target != path:
            path.rename(target)
            suite.path = target
        return target

    def duplicate(self, path: Path, new_name: str | None = None) -> Path:
        suite = self.load(path)
        name = new_name or f"{suite.name} (copy)"
        copy = Suite(
            name=name,
            description=suite.description,
            cases=[_with_new_id(c, new_case_id()) for c in suite.cases],
            training=suite.training,
            extra=suite.extra,
        )
        target = self.free_path(name)
        self._write(copy, target)
        return target

    def delete(self, path: Path) -> Path:
        """Move a suite into the trash; returns where it went (pass it to :meth:`restore`)."""
        trash = self.trash
        if path.parent.name == RASA_TESTS_DIR and path.parent.parent == self.root:
            trash = trash / RASA_TESTS_DIR  # a Rasa project's E2E file goes back to tests/
        trash.mkdir(parents=True, exist_ok=True)
        self.discard_unsaved(path)
        target = trash / f"{int(time.time() * 1000)}-{path.name}"
        shutil.move(str(path), target)
        return target

    def restore(self, trashed: Path) -> Path:
        """Undo a delete: put the file back under its name (or a free one if that is taken)."""
        name = trashed.name.split("-", 1)[1] if "-" in trashed.name else trashed.name
        folder = self.root
        if trashed.parent == self.trash / RASA_TESTS_DIR:
            folder = self.root / RASA_TESTS_DIR
            folder.mkdir(exist_ok=True)
        target = folder / name
        if target.exists() and name.endswith(SUITE_SUFFIX):
            target = self.free_path(suite_stem(target))
        stem, _, ext = name.partition(".")
        n = 2
        while target.exists():  # another kind of file keeps its kind (``x-2.e2e.yml``)
            target = folder / f"{stem}-{n}.{ext}"
            n += 1
        shutil.move(str(trashed), target)
        return target

    # --- import / export --------------------------------------------------------------------

    def preview_import(self, source: Path, fmt: str | None = None) -> Any:
        """Read ``source`` in any supported format without writing anything (an ImportResult)."""
        from nlu_tui.formats.registry import import_suite

        return import_suite(Path(source), fmt)

    def add_imported(self, suite: Suite) -> Path:
        """Write a previewed import into the workspace as a new suite file."""
        self.root.mkdir(parents=True, exist_ok=True)
        target = self.free_path(suite.name or "imported")
        fresh = Suite(
            name=suite.name or "imported",
            description=suite.description,
            cases=suite.cases,
            training=suite.training,
            extra=suite.extra,
        )
        self._write(fresh, target)
        return target

    def import_file(self, source: Path, fmt: str | None = None) -> tuple[Path, list[str]]:
        result = self.preview_import(source, fmt)
        return self.add_imported(result.suite), list(result.warnings)

    def export(self, path: Path, dest: Path, fmt: str) -> list[str]:
        from nlu_tui.formats.registry import export_suite

        return export_suite(self.load(path), Path(dest), fmt)

    # --- moving cases between suites -----------------------------------------------------------

    def append_cases(self, path: Path, cases: list[TestCase]) -> None:
        suite = self.load(path)  # its unsaved version, when it has one
        before = suite.cases
        suite.cases = [*before, *cases]
        try:
            self._write(suite)
        except BaseException:
            suite.cases = before  # the move did not happen
            raise


def rasa_data_files(data: Path) -> list[Path]:
    """The NLU training files under a Rasa project's ``data/`` folder (any depth, hidden
    folders skipped, at most :data:`MAX_DATA_FILES` files looked at), sorted."""
    if not data.is_dir():
        return []
    import os

    found: list[Path] = []
    seen = 0
    for folder, dirs, files in os.walk(data):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            seen += 1
            if seen > MAX_DATA_FILES:
                return sorted(found)
            path = Path(folder) / name
            if is_rasa_nlu_file(path):
                found.append(path)
    return sorted(found)


def is_rasa_nlu_file(path: Path) -> bool:
    """A YAML file with NLU training data: Rasa's test (``is_yaml_nlu_file``: a ``.yml`` or
    ``.yaml`` file with a line starting ``nlu:``, ``rasa/shared/utils/io.py``
    ``is_key_in_yaml``), on a file's unindented lines only (a nested ``nlu:`` key is not one)."""
    if not path.name.endswith(_YAML_SUFFIXES) or path.name.startswith("."):
        return False
    try:
        with path.open(encoding="utf-8-sig", errors="replace") as handle:
            return any(line.startswith("nlu:") for line in handle)
    except OSError:
        return False


def is_conversation_file(path: Path) -> bool:
    """A conversation suite: ``*.e2e.yml``, or a YAML file with ``test_cases:`` in a ``tests/``
    folder (a Rasa project's E2E tests)."""
    if path.name.endswith(CONVERSATION_SUFFIXES):
        return True
    if path.parent.name != RASA_TESTS_DIR:
        return False
    # imported only for a file in a tests/ folder: listing the suites of a workspace (the
    # workbench's first screen) does without the conversation formats
    from nlu_tui.formats import e2e_cases

    if path.suffix not in e2e_cases.EXTENSIONS:
        return False
    try:
        with path.open(encoding="utf-8-sig", errors="replace") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return e2e_cases.sniff(path, head)


def _conversation_info(path: Path, last: LastRuns) -> SuiteInfo:
    """A conversation suite's entry: its test cases counted (no F1: its runs pass or fail)."""
    from nlu_tui.formats import e2e_cases

    suffix = next((s for s in CONVERSATION_SUFFIXES if path.name.endswith(s)), path.suffix)
    name = path.name[: -len(suffix)]
    try:
        data = e2e_cases.read(path)
    except (InputError, OSError) as exc:
        return SuiteInfo(path=path, name=name, kind="e2e", error=str(exc))
    return SuiteInfo(
        path=path,
        name=name,
        case_count=len(data.test_cases),
        kind="e2e",
        last_status=last.status,
        last_partial=last.partial,
        last_passed=last.passed,
    )


def _reason(exc: Exception) -> str:
    """One line for the user: an OS error with its errno, not a traceback."""
    if isinstance(exc, OSError) and exc.errno is not None:
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc} [Errno {exc.errno}]"
    return str(exc)


def _whole(suite: Suite) -> SuiteChunk:
    from nlu_tui.formats.native import SuiteChunk

    return SuiteChunk(list(suite.cases), len(suite.cases), 1.0, suite)


def _with_new_id(case: TestCase, new_id: str) -> TestCase:
    from dataclasses import replace

    return replace(case, id=new_id)


def seed_default(root: Path) -> list[Path]:
    """Copy the sample suites into a new workspace; returns what was copied (once only)."""
    marker = root / ".seeded"
    if marker.exists():
        return []
    root.mkdir(parents=True, exist_ok=True)
    copied: list[Path] = []
    samples = paths.sample_suites_dir()
    if samples.is_dir():
        sources = [*samples.glob(f"*{SUITE_SUFFIX}")]
        sources += [p for p in samples.iterdir() if p.name.endswith(TRAINING_SUFFIXES)]
        for src in sorted(sources):
            target = root / src.name
            if not target.exists():
                shutil.copyfile(src, target)
                copied.append(target)
    marker.write_text("seeded with the sample suites\n", encoding="utf-8")
    return copied


def open_workspace(folder: str | Path | None) -> Workspace:
    """The workspace the user named, or the default one, seeded on first start."""
    if folder is None:
        root = paths.default_workspace()
        seed_default(root)
        return Workspace(root)
    root = Path(folder).expanduser()
    if root.exists() and not root.is_dir():
        raise InputError("the workspace must be a folder of *.suite.yaml files", path=root)
    root.mkdir(parents=True, exist_ok=True)
    return Workspace(root)


@dataclass(frozen=True)
class LastRuns:
    """What the suites panel says about a suite's runs.

    ``status`` is the latest run's; ``f1`` is that of the latest *complete* run (every case
    answered, success or success with warning), so a canceled run of 40 of 54 cases never
    stands in for the suite's score. ``partial`` is the latest run's (done, total) when that run
    is not complete (canceled, interrupted, failed part way, still running).
    """

    status: str | None = None
    f1: float | None = None
    partial: tuple[int, int] | None = None
    passed: tuple[int, int] | None = None
    """(passed, total) of the latest run whose units pass or fail (conversation test cases)."""


COMPLETE_STATUSES = ("success", "success_with_warning")


def last_runs_by_suite() -> dict[str, LastRuns]:
    """The last runs' status and F1 per suite path, from the run store when there is one.

    The store is optional (a fresh install has none), so any failure here just means "no runs
    yet" rather than a broken suites panel. F1 uses the pooled counts, as the headline does.
    """
    try:
        from nlu_tui.store_location import configured

        where = configured()
        if where.path is not None and not where.path.exists():
            return {}  # before importing the store: a fresh install's first screen needs none
        from nlu_tui.scoring.summary import f1_score, safe_div
        from nlu_tui.store import RunStore

        with RunStore(where.url) as store:
            records = store.list_runs()
    except Exception:
        return {}
    newest: dict[str, Any] = {}
    complete_f1: dict[str, float | None] = {}
    for record in records:  # newest first
        path = record.suite_path
        if not path:
            continue
        newest.setdefault(path, record)
        complete = str(record.status) in COMPLETE_STATUSES and record.done >= record.total
        if complete and path not in complete_f1:
            precision = safe_div(record.tp, record.tp + record.fp)
            recall = safe_div(record.tp, record.tp + record.fn)
            merged = record.merged_f1  # a rerun: what the suite scored after it
            if merged is not None:
                complete_f1[path] = merged
            else:
                complete_f1[path] = f1_score(precision, recall) if record.done else None
    latest: dict[str, LastRuns] = {}
    for path, record in newest.items():
        partial = (record.done, record.total) if record.done < record.total else None
        passed = (record.passed, record.total) if record.kind != "suite" else None
        latest[path] = LastRuns(str(record.status), complete_f1.get(path), partial, passed)
    return latest


def developer_suite(training_file: Path, engine_name: str) -> Suite:
    """The read-only suite of an engine's own training examples ("developer defined utterances").

    Each training example becomes a case expecting its intent and annotated entities, so a run
    of it shows how well the engine has learnt what it was taught.
    """
    from nlu_tui.formats.rasa_yaml import load_training_data

    data = load_training_data(Path(training_file))
    cases: list[TestCase] = []
    for example in data.examples:
        entities = [
            ExpectedEntity(
                name=e.name,
                value=e.value,
                kind=ValueKind.EXACT if e.kind == ValueKind.AUTO else e.kind,
                text=e.text,
                start=e.start,
                end=e.end,
                role=e.role,
                group=e.group,
            )
            for e in example.entities
        ]
        cases.append(
            TestCase(
                utterance=example.text,
                intents=[ExpectedIntent(example.intent)] if example.intent else [],
                entities=entities,
                id=f"dev-{len(cases) + 1:06d}",
                line=example.line,
            )
        )
    suite = Suite(
        name=f"{DEVELOPER_SUITE_PREFIX} ({engine_name})",
        description=f"Training examples of {engine_name}, from {training_file}",
        cases=cases,
        path=Path(training_file),
        read_only=True,
    )
    return suite


def _peek_big_suite(path: Path) -> tuple[str, int] | None:
    """Name and count of a big suite file that is not in the parsed-suite cache, cheaply.

    A cached suite loads fast enough to summarise in full; an uncached big one is only
    counted, so that opening it streams its first cases instead of waiting for a full parse.
    """
    from nlu_tui.formats import native, suite_cache

    if not path.name.endswith(native.EXTENSIONS):
        return None
    try:
        if path.stat().st_size < suite_cache.MIN_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if suite_cache.entry_path(digest_bytes(data)).exists():
        return None
    return native.peek_suite(path, data)
