"""Starting, resuming and finishing a run: the one service both faces call.

``nlu-tui run`` and the workbench's Runs tab used to orchestrate a run each in its own way. Both
now describe what they want as a :class:`RunRequest` and hand it to :func:`open_run`, which
checks the input (nothing is run or written when it is bad), applies the resume rules, reads
the gate inputs (``--fail-on``, thresholds, a baseline run or statistics file), resolves the
engine and registers the run in the store. The caller then awaits :meth:`RunJob.execute`,
which runs it and finishes it: reports are written and gates checked, and the
:class:`RunOutcome` says how it ended. Faces keep only what is theirs: argument parsing,
progress display, signals, exit codes (CLI); dialogs, sessions and panes (workbench).

Run kinds: every kind of run (``suite``, ``e2e``, ``stories``, ``dut``, or a plug-in's) is a
strategy of the one run kernel (:mod:`nlu_tui.runner.kernel`), registered in
:mod:`nlu_tui.run_kinds` (entry-point group ``nlu_tui.run_kinds``). This service opens the
kinds a :class:`RunRequest` describes: :data:`RUNNERS` maps each to the factory of its runner
(``suite``: every case of a suite against one engine, with gates, baselines and reports); the
conversation and DUT kinds are opened by :mod:`nlu_tui.conversation.service` and
:mod:`nlu_tui.dut.service`, on the same kernel and store.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from nlu_tui.errors import InputError
from nlu_tui.extras import need
from nlu_tui.model import MAX_NOTE_CHARS, RunStatus, Suite
from nlu_tui.repeats import MAX_REPEAT, repeat_of, run_stability
from nlu_tui.runner.shards import check_run_id, parse_shard

if TYPE_CHECKING:
    from nlu_tui.compare.bridge import Statistics, TestSettings
    from nlu_tui.engines.profiles import ResolvedEngine
    from nlu_tui.runner.answer_cache import AnswerCache
    from nlu_tui.runner.events import ProgressEvent
    from nlu_tui.runner.options import RunOptions
    from nlu_tui.scoring.stability import StabilityReport
    from nlu_tui.scoring.summary import Summary
    from nlu_tui.store.records import RunRecord
    from nlu_tui.store.runstore import RunStore, StoredResult

SUITE_RUN = "suite"
"""The kind of run that sends every case of a suite to one engine."""

MAX_STORE_RETRY = 86400.0
"""``--store-retry`` at most a day: results kept in memory longer are better resumed."""
_UNFINISHED = (RunStatus.CANCELED, RunStatus.FAILED, RunStatus.INTERRUPTED)

_METRIC = re.compile(r"^(f1|precision|recall|intent|entity)\s*<\s*([0-9]*\.?[0-9]+)$")


@dataclass(frozen=True)
class RunRequest:
    """What a face asks for. A new run needs a suite (loaded, or a file) and an engine spec; a
    resume (``resume`` = run id) takes the suite, engine and version of the stored run unless
    given here."""

    kind: str = SUITE_RUN
    suite: Suite | None = None
    """The suite as the caller already has it (the workbench's open suite)."""
    suite_path: Path | None = None
    """A suite file to load (any format) when ``suite`` is not given."""
    engine: str | None = None
    """A profile name, ``embedded:PATH``, ``rasa:URL`` or ``http:URL``."""
    stage: str | None = None
    """``development`` or ``published`` (default: development, or the resumed run's)."""
    note: str = ""
    resume: str | None = None
    """The id of a canceled, interrupted or failed run to finish."""
    workspace: Path | None = None
    """Where profiles are looked up besides next to the suite."""
    max_error_rate: float | None = None
    concurrency: int | None = None
    rate_limit: float | None = None
    timeout: float | None = None
    retries: int | None = None
    max_raw_bytes: int | None = None
    """Cap on each stored raw answer, in bytes (scoring always reads the whole answer)."""
    reports: dict[str, Path] = field(default_factory=dict)
    """Report targets by format (json, csv, junit, rasa), written when the run ends."""
    fail_on: str | None = None
    """``--fail-on`` conditions, e.g. ``errors,f1<0.9``."""
    baseline: str | None = None
    """A stored run id or an NLU.DevOps ``statistics.json`` to compare with."""
    thresholds: Path | None = None
    """NLU.DevOps test settings with thresholds."""
    rasa_successes: bool = False
    """The Rasa reports also list the examples predicted right (``rasa test nlu --successes``)."""
    rasa_errors: bool = True
    """The Rasa reports list the examples predicted wrong (false: ``--no-errors``)."""
    repeat: int | None = None
    """Send each case this many times and measure how stable the answers are (a resume keeps
    the stored run's count)."""
    quarantine_flaky: bool = False
    """Leave the flaky cases of a repeated run out of ``--fail-on`` and the gates."""
    rasa_plots: bool = True
    """The Rasa reports include the PNG plots (false: ``--no-plot``)."""
    no_cache: bool = False
    """Neither read nor write the profile's answer cache in this run (``--no-cache``)."""
    cache_repeats: bool = False
    """A repeated run reads the answer cache too (by default it only writes it)."""
    store_retry: float | None = None
    """Seconds the run store may be away mid-run before the run ends ``interrupted``
    (:attr:`nlu_tui.runner.options.RunOptions.store_retry`; None: its default)."""
    rerun_failed: str | None = None
    """The id of a run whose failed and errored cases a child run sends again
    (:mod:`nlu_tui.reruns`); its suite, version and engine unless given here."""
    shard: str | None = None
    """``I/N``: send only shard I of N of the shared run ``run_id`` (or of ``resume``)."""
    run_id: str | None = None
    """The id every shard of a sharded run gives (the first one creates the run)."""
    finish: str | None = None
    """End the sharded run with this id once every shard's cases are in (nothing is sent)."""
    robustness_of: str | None = None
    """This run is of a perturbed copy of the suite of that run (``run --robustness``)."""


class Runner(Protocol):
    """What the service needs of a kind's runner (``nlu_tui.runner.Run`` for suites)."""

    on_progress: Callable[[ProgressEvent], None] | None

    @property
    def run_id(self) -> str: ...

    def prepare(self) -> RunRecord: ...

    async def execute(self) -> RunRecord: ...

    def cancel(self) -> None: ...


RunnerFactory = Callable[["RunPlan", "RunStore"], Runner]


@dataclass
class RunPlan:
    """A checked request: the suite, the resolved engine and the options, before it runs."""

    request: RunRequest
    suite: Suite
    stage: str
    resolved: ResolvedEngine
    options: RunOptions
    previous: RunRecord | None
    """The stored run being resumed (None for a new run)."""
    rerun_of: RunRecord | None = None
    """The run whose failed cases this run sends again (``--rerun-failed``)."""


def answer_cache(plan: RunPlan, store: RunStore) -> AnswerCache | None:
    """The profile's answer cache for this run (None: the profile has none, or ``--no-cache``).
    A repeated run only writes it, unless ``--cache-repeats``; a rerun of failed cases only
    writes it (it asks the engine again: the cached answers are the ones that failed)."""
    settings = plan.resolved.settings
    if plan.request.no_cache or not getattr(settings, "cache", False):
        return None
    from nlu_tui.runner.answer_cache import AnswerCache

    repeat = repeat_of(plan.previous) if plan.previous is not None else plan.options.repeat
    return AnswerCache(
        store,
        plan.resolved.name,
        plan.resolved.cache_identity(),
        ttl=settings.cache_ttl,
        read=(repeat < 2 or plan.request.cache_repeats) and plan.rerun_of is None,
    )


def _suite_runner(plan: RunPlan, store: RunStore) -> Runner:
    from nlu_tui.runner import Run

    # kore-batch:PROFILE: the same suite run, its answers from Kore.ai's own batch test
    factory: type[Run] = Run
    if plan.resolved.name.startswith("kore-batch:"):  # kore_batch.PREFIX
        from nlu_tui.runner.kore_batch import KoreBatchRun

        factory = KoreBatchRun
    return factory(
        plan.suite,
        plan.resolved,
        store,
        stage=plan.stage,
        note=plan.request.note,
        options=plan.options,
        resume_run_id=plan.previous.id if plan.previous else None,
        cache=answer_cache(plan, store),
        shard=parse_shard(plan.request.shard) if plan.request.shard else None,
        shared_run_id=plan.request.run_id or plan.request.finish,
    )


RUNNERS: dict[str, RunnerFactory] = {SUITE_RUN: _suite_runner}
"""Run kinds and the factories of their runners."""


# --- gates --------------------------------------------------------------------------------------


@dataclass
class FailOn:
    """``--fail-on`` conditions: flags (errors, fp, fn, any) and ``METRIC<VALUE`` limits."""

    flags: set[str]
    metrics: list[tuple[str, float]]

    @classmethod
    def parse(cls, text: str | None) -> FailOn:
        flags: set[str] = set()
        metrics: list[tuple[str, float]] = []
        for raw in (text or "").split(","):
            item = raw.strip().lower()
            if not item:
                continue
            if item in ("errors", "error", "fp", "fn", "any"):
                flags.add("errors" if item == "error" else item)
                continue
            m = _METRIC.match(item)
            if not m:
                raise InputError(f"unknown --fail-on condition {raw.strip()!r}", field="--fail-on")
            metrics.append((m.group(1), float(m.group(2))))
        return cls(flags, metrics)

    def __bool__(self) -> bool:
        return bool(self.flags or self.metrics)

    def failures(self, rows: list[StoredResult]) -> list[str]:
        from nlu_tui.scoring.summary import summarize

        s = summarize([r for _c, _p, r in rows])
        out = []
        if "errors" in self.flags and s.errors:
            out.append(f"{s.errors} cases errored")
        if "fp" in self.flags and s.fp:
            out.append(f"{s.fp} false positives")
        if "fn" in self.flags and s.fn:
            out.append(f"{s.fn} false negatives")
        if "any" in self.flags and (s.fp or s.fn or s.errors):
            out.append(f"{s.fp + s.fn + s.errors} cases not right")
        values = {
            "f1": s.f1,
            "precision": s.precision,
            "recall": s.recall,
            "intent": s.intent_success,
            "entity": s.entity_success if s.entity_success is not None else 1.0,
        }
        for name, limit in self.metrics:
            if values[name] < limit:
                out.append(f"{name} {values[name]:.4f} < {limit:g}")
        return out


def _gate_inputs(
    request: RunRequest, store: RunStore, warn: Callable[[str], None] | None = None
) -> tuple[TestSettings | None, Statistics | None]:
    """Read the thresholds and baseline before running, so bad input stops us early."""
    if not request.baseline and not request.thresholds:
        return None, None
    from nlu_tui.compare.bridge import (
        TestSettings,
        Threshold,
        load_settings,
        load_statistics,
        statistics_from_run,
    )

    settings = load_settings(request.thresholds) if request.thresholds else TestSettings()
    if warn is not None:
        for warning in settings.warnings:
            warn(f"{request.thresholds}: {warning}")
    if not settings.thresholds:
        # With a baseline and no thresholds: overall intent and entity F1 may not drop.
        settings.thresholds = [Threshold(type="intent"), Threshold(type="entity")]
    baseline = None
    if request.baseline:
        path = Path(request.baseline)
        if path.is_file():
            baseline = load_statistics(path)
        else:
            rows = store.load_results(store.get_run(request.baseline).id)
            baseline = statistics_from_run(
                [c for c, _p, _r in rows], [p for _c, p, _r in rows], settings
            )
    return settings, baseline


@dataclass(frozen=True)
class GateResult:
    """One regression gate: its description (``PASS ...``/``FAIL ...``) and verdict."""

    description: str
    passed: bool


# --- the service --------------------------------------------------------------------------------


@dataclass
class RunOutcome:
    """How a run ended, once reports are written and gates checked."""

    record: RunRecord
    reports: list[Path] = field(default_factory=list)
    """The report files written."""
    gates: list[GateResult] = field(default_factory=list)
    """Every regression gate checked (thresholds, baseline), passed or not."""
    problems: list[str] = field(default_factory=list)
    """Why the run does not pass: failed ``--fail-on`` conditions, then failed gates."""
    stability: StabilityReport | None = None
    """How stable the answers were (a repeated run only)."""
    quarantined: list[str] = field(default_factory=list)
    """The flaky cases left out of ``--fail-on`` and the gates (``quarantine_flaky``)."""
    merged: Summary | None = None
    """A rerun's merged figures: its parent's passes and its own answers (what the suite now
    scores; ``--fail-on`` and the gates judge these)."""
    merged_total: int = 0

    @property
    def status(self) -> RunStatus:
        return self.record.status

    ended_elsewhere: bool = False
    """A shard whose run another shard ended (and wrote the reports of)."""

    @property
    def waiting(self) -> bool:
        """A shard of a sharded run ended with its own cases in, others' still missing, or with
        the run ended by another shard."""
        return self.record.status == RunStatus.RUNNING or self.ended_elsewhere

    @property
    def completed(self) -> bool:
        """The run was not canceled, interrupted or failed: its gates were checked."""
        return self.record.status not in _UNFINISHED


class RunJob:
    """A registered run: ``await execute()`` runs and finishes it; ``cancel()`` from anywhere."""

    def __init__(
        self,
        plan: RunPlan,
        runner: Runner,
        record: RunRecord,
        store: RunStore,
        fail_on: FailOn,
        gate_settings: TestSettings | None,
        baseline: Statistics | None,
    ) -> None:
        self.plan = plan
        self.runner = runner
        self.record = record
        self.store = store
        self._fail_on = fail_on
        self._gate_settings = gate_settings
        self._baseline = baseline

    @property
    def run_id(self) -> str:
        return self.record.id

    @property
    def engine_name(self) -> str:
        return self.plan.resolved.name

    @property
    def stage(self) -> str:
        return self.plan.stage

    @property
    def resumed(self) -> bool:
        return self.plan.previous is not None

    @property
    def on_progress(self) -> Callable[[ProgressEvent], None] | None:
        return self.runner.on_progress

    @on_progress.setter
    def on_progress(self, callback: Callable[[ProgressEvent], None] | None) -> None:
        self.runner.on_progress = callback

    def redact(self, text: str) -> str:
        """``text`` without the engine's resolved secrets."""
        return self.plan.resolved.redact(text)

    def cancel(self) -> None:
        self.runner.cancel()

    async def execute(self) -> RunOutcome:
        """Run the cases, then :meth:`finish` (reports and gates)."""
        return self.finish(await self.runner.execute())

    def finish(self, final: RunRecord) -> RunOutcome:
        """Write the reports of an ended run; check ``--fail-on`` and gates when it completed."""
        self.record = final
        outcome = RunOutcome(final)
        outcome.ended_elsewhere = getattr(self.runner, "ended_by_another_shard", False)
        request = self.plan.request
        if outcome.waiting:  # the last shard (or --finish) writes the reports, checks gates
            return outcome
        if final.status is RunStatus.INTERRUPTED:  # the store went away: --resume finishes it
            return outcome
        repeated = repeat_of(final) > 1
        needs_rows = request.reports or self._fail_on or self._gate_settings is not None
        rerun = self.plan.rerun_of is not None
        if not needs_rows and not repeated and not rerun:
            return outcome
        rows = self.store.load_results(final.id)
        summary: dict[str, object] = dict(final.summary)
        if repeated:
            outcome.stability = run_stability(self.store, final, rows)
            assert outcome.stability is not None
            summary["stability"] = outcome.stability.headline_dict()
        if rerun:
            from nlu_tui.reruns import MERGED, merged_figures, merged_results
            from nlu_tui.scoring.summary import summarize

            rows = merged_results(self.store, final)  # what the suite now scores
            outcome.merged = summarize(r for _c, _p, r in rows)
            outcome.merged_total = len(rows)
            summary[MERGED] = merged_figures(outcome.merged, len(rows))
        if repeated or rerun:
            self.record = final = self.store.set_summary(final.id, summary)
            outcome.record = final
        if request.reports:
            from nlu_tui.reports import RunMeta, write_reports
            from nlu_tui.reports.rasa_report import RasaOptions

            meta = RunMeta.from_record(final)
            if outcome.stability is not None:
                meta.stability = outcome.stability.as_dict(quarantined=request.quarantine_flaky)
            outcome.reports = write_reports(
                request.reports,
                meta,
                rows,
                rasa=RasaOptions(
                    successes=request.rasa_successes,
                    errors=request.rasa_errors,
                    plots=request.rasa_plots,
                ),
            )
        if not outcome.completed:
            return outcome
        if request.quarantine_flaky and outcome.stability is not None:
            flaky = outcome.stability.flaky_ids
            outcome.quarantined = [c.id for c, _p, _r in rows if c.id in flaky]
            rows = [row for row in rows if row[0].id not in flaky]
        from nlu_tui.reports.metric_spec import KORE, NLUDEVOPS, label

        # Both kinds of numbers end up on one screen: each line says whose definition it uses.
        outcome.problems = [f"{p} {label(KORE)}" for p in self._fail_on.failures(rows)]
        if self._gate_settings is not None:
            from nlu_tui.compare.bridge import check_gates, statistics_from_run

            settings = self._gate_settings
            current = statistics_from_run(
                [c for c, _p, _r in rows], [p for _c, p, _r in rows], settings
            )
            checked = check_gates(current, self._baseline, settings.thresholds)
            outcome.gates = [
                GateResult(f"{g.description} {label(NLUDEVOPS)}", g.passed) for g in checked
            ]
            outcome.problems += [
                g.description.removeprefix("FAIL ") for g in outcome.gates if not g.passed
            ]
        return outcome


def check_request(request: RunRequest) -> FailOn:
    """Checks that need neither the store nor the engine (bad input: nothing is done)."""
    if request.kind not in RUNNERS:
        raise InputError(
            f"unknown run kind {request.kind!r}; known: {', '.join(RUNNERS)}", field="kind"
        )
    if len(request.note) > MAX_NOTE_CHARS:
        raise InputError(f"a note holds at most {MAX_NOTE_CHARS} characters", field="--note")
    if "rasa" in request.reports and request.rasa_plots:
        need("matplotlib", "the Rasa reports' PNG plots (--rasa-no-plot skips them)", "--rasa")
    if request.concurrency is not None and request.concurrency < 1:
        raise InputError("must be at least 1", field="--concurrency")
    if request.max_raw_bytes is not None and request.max_raw_bytes < 1:
        raise InputError("must be at least 1", field="--max-raw-bytes")
    if request.store_retry is not None and not 0 <= request.store_retry <= MAX_STORE_RETRY:
        raise InputError(f"must be from 0 to {MAX_STORE_RETRY:.0f} seconds", field="--store-retry")
    if request.repeat is not None and not 1 <= request.repeat <= MAX_REPEAT:
        raise InputError(f"must be from 1 to {MAX_REPEAT}", field="--repeat")
    if request.rerun_failed and (request.resume or request.suite_path or request.suite):
        raise InputError(
            "--rerun-failed takes the run's own suite: give no SUITE and no --resume",
            field="--rerun-failed",
        )
    if request.cache_repeats and request.no_cache:
        raise InputError(
            "--cache-repeats reads the cache that --no-cache turns off", field="--no-cache"
        )
    if (request.repeat or 1) > 1 and (request.engine or "").startswith("kore-batch:"):
        raise InputError(
            "a kore-batch run is one Kore.ai batch test: run it again instead of --repeat",
            field="--repeat",
        )
    if request.quarantine_flaky and not request.resume and (request.repeat or 1) < 2:
        raise InputError(
            "flaky cases are found by sending each case several times: add --repeat N (N >= 2)",
            field="--quarantine-flaky",
        )
    _check_shards(request)
    fail_on = FailOn.parse(request.fail_on)
    if request.reports:
        from nlu_tui.reports import check_targets

        # refused now, not after a long run
        check_targets(request.reports, {fmt: f"--{fmt}" for fmt in request.reports})
    return fail_on


def _check_shards(request: RunRequest) -> None:
    """``--shard I/N`` with ``--run-id ID`` (a new shard) or ``--resume ID``; ``--finish ID``
    alone."""
    if request.shard is not None:
        parse_shard(request.shard)
        if not (request.run_id or request.resume):
            raise InputError(
                "a shard writes into a shared run: give --run-id ID (the same in every shard)",
                field="--shard",
            )
        if request.repeat is not None and request.repeat > 1:
            raise InputError("a sharded run cannot be repeated", field="--repeat")
    if request.run_id is not None:
        check_run_id(request.run_id)
        if request.shard is None:
            raise InputError("--run-id names a sharded run: give --shard I/N", field="--run-id")
        if request.resume:
            raise InputError("give --run-id ID or --resume ID, not both", field="--run-id")
    if request.finish is not None and (
        request.shard or request.resume or request.suite_path or request.suite or request.engine
    ):
        raise InputError(
            "--finish RUN takes no SUITE, --engine, --shard or --resume", field="--finish"
        )


def read_before_the_store(
    request: RunRequest, warn: Callable[[str], None] | None = None
) -> RunRequest:
    """A new run's suite read and its engine resolved before the store is opened, so a missing
    or bad suite file or engine profile creates nothing (not even an empty ``runs.sqlite3``).
    The suite is handed on in the request (:func:`open_run` does not read it again); a resume
    needs the store, and is left to :func:`open_run`."""
    from dataclasses import replace

    if request.resume or request.rerun_failed:
        return request
    if request.suite is not None or request.suite_path is None:
        return request
    if not request.engine:
        return request  # open_run says what is missing
    suite = load_suite_file(request.suite_path, warn)
    stage = request.stage or "development"
    resolve_run_engine(request.engine, request.suite_path, stage, request.workspace)
    return replace(request, suite=suite)


def resolve_engine_spec(request: RunRequest) -> None:
    """Resolve ``request.engine`` for its suite and version, storing nothing: a bad profile or
    spec raises now (engines side by side check every engine before the first run)."""
    path = request.suite.path if request.suite is not None else request.suite_path
    if request.engine:
        resolve_run_engine(request.engine, path, request.stage or "development", request.workspace)


def load_suite_file(path: Path, warn: Callable[[str], None] | None = None) -> Suite:
    """A suite file in any format (import warnings go to ``warn``)."""
    if not path.is_file():
        raise InputError("no such suite file", path=path)
    name = path.name.lower()
    if name.endswith((".suite.yaml", ".suite.yml")):
        from nlu_tui.formats.native import load_suite

        return load_suite(path)
    from nlu_tui.formats.registry import import_suite

    result = import_suite(path)
    if warn is not None:
        for warning in result.warnings:
            warn(warning)
    result.suite.path = result.suite.path or path
    return result.suite


def _resumed_run(request: RunRequest, store: RunStore) -> RunRecord:
    """The stored run to finish, if it can be resumed (unfinished, not succeeded)."""
    assert request.resume is not None
    previous = store.get_run(request.resume)
    stored = repeat_of(previous)
    if request.repeat is not None and request.repeat != stored:
        raise InputError(
            f"run {previous.id} sends each case {stored} time(s); a resume keeps that count",
            field="--repeat",
        )
    if request.quarantine_flaky and stored < 2:
        raise InputError(
            f"run {previous.id} was not repeated: it has no flaky cases to quarantine",
            field="--quarantine-flaky",
        )
    if previous.evaluation is not None and previous.done < previous.total:
        raise InputError(
            f"run {previous.id} is a `test nlu` {previous.evaluation} run: its cases were "
            "tested on models trained for it, so it cannot be resumed; run the evaluation "
            "again (its trained models are cached)",
            field="--resume",
        )
    if not previous.resumable:
        raise InputError(
            f"run {previous.id} is {previous.status.value} with {previous.done}/"
            f"{previous.total} cases done; only unfinished canceled, interrupted or failed "
            "runs can be resumed",
            field="--resume",
        )
    return previous


@dataclass
class _Target:
    """The suite, version and engine spec a request comes to, by the resume rules."""

    suite: Suite
    suite_path: Path | None
    stage: str
    engine: str
    previous: RunRecord | None
    rerun_of: RunRecord | None = None


def _target(request: RunRequest, store: RunStore, warn: Callable[[str], None] | None) -> _Target:
    """A resume takes the stored run's suite file, version and engine unless the request names
    them; a new run needs a suite and an engine."""
    given_path = request.suite.path if request.suite is not None else request.suite_path
    if request.rerun_failed:
        from nlu_tui.reruns import rerun_suite

        parent, rerun_cases = rerun_suite(store, request.rerun_failed)
        return _Target(
            rerun_cases,
            rerun_cases.path,
            request.stage or parent.stage,
            request.engine or parent.engine_name,
            None,
            parent,
        )
    shared = request.finish or (request.resume if request.shard else None)
    if shared:  # a shard resumed, or --finish: the stored run says what it runs, on what
        previous = store.get_run(shared)
        suite_path = Path(previous.suite_path) if previous.suite_path else None
        return _Target(
            Suite(name=previous.suite_name, path=suite_path),
            suite_path,
            previous.stage,
            request.engine or previous.engine_name,
            previous,
        )
    if request.resume:
        previous = _resumed_run(request, store)
        suite_path = given_path or (Path(previous.suite_path) if previous.suite_path else None)
        return _Target(
            request.suite or Suite(name=previous.suite_name, path=suite_path),
            suite_path,
            request.stage or previous.stage,
            request.engine or previous.engine_name,
            previous,
        )
    if request.suite is None and request.suite_path is None:
        raise InputError("give a SUITE file (or --resume RUN_ID)", field="SUITE")
    if not request.engine:
        raise InputError(
            "give --engine (a profile name, embedded:PATH or rasa:URL)", field="--engine"
        )
    suite = request.suite
    if suite is None:
        assert request.suite_path is not None
        suite = load_suite_file(request.suite_path, warn)
    return _Target(suite, given_path, request.stage or "development", request.engine, None)


def _options(request: RunRequest, resolved: ResolvedEngine) -> RunOptions:
    """The profile's run settings, then the face's overrides (None keeps the profile's)."""
    from dataclasses import replace

    from nlu_tui.runner import RunOptions

    options = RunOptions().with_settings(resolved.settings)
    if request.max_error_rate is not None:
        options = replace(options, max_error_rate=request.max_error_rate)
    if request.store_retry is not None:
        options = replace(options, store_retry=request.store_retry)
    return options.with_settings(request)


def resolve_run_engine(
    spec: str, suite_path: Path | None, stage: str, workspace: Path | None
) -> ResolvedEngine:
    """The engine of ``--engine``; ``kore-batch:PROFILE`` is the kore profile PROFILE, named
    so (the run's engine name) that a resume runs it on Kore.ai's batch testing again."""
    from nlu_tui.engines.profiles import resolve_engine

    if not spec.startswith("kore-batch:"):  # kore_batch.PREFIX: Kore.ai's modules not needed
        return resolve_engine(spec, suite_path, stage, workspace)
    from nlu_tui.engines.kore import KoreEngine
    from nlu_tui.runner.kore_batch import PREFIX, batch_spec

    profile = batch_spec(spec)
    assert profile is not None
    if not profile:
        raise InputError("kore-batch needs a kore profile: kore-batch:PROFILE", field="engine")
    resolved = resolve_engine(profile, suite_path, stage, workspace)
    if not isinstance(resolved.engine, KoreEngine):
        raise InputError(
            f"kore-batch:{profile}: profile '{profile}' is type "
            f"{resolved.engine.type_name}, not kore",
            field=f"engines.{profile}.type",
        )
    resolved.name = PREFIX + resolved.name
    resolved.profile_public = {**resolved.profile_public, "name": resolved.name, "batch": "kore"}
    return resolved


def raw_check_warnings(suite: Suite, engine: Any) -> list[str]:
    """One line per ``raw:`` check whose path can never match the engine type's declared
    answer shape (``Engine.answer_shape``), naming the file, line and case."""
    shape = getattr(engine, "answer_shape", None)
    if shape is None:
        return []
    from nlu_tui.raw_checks import shape_warnings

    out = []
    for case in suite.cases:
        if not case.raw_checks:
            continue
        for check, why in shape_warnings(case.raw_checks, shape):
            where = str(suite.path) if suite.path is not None else suite.name
            if case.line is not None:
                where += f", line {case.line}"
            out.append(
                f"{where}, field 'raw': case {case.id}: {check!r} can never match a "
                f"{engine.type_name} answer ({why})"
            )
    return out


def open_run(
    request: RunRequest, store: RunStore, *, warn: Callable[[str], None] | None = None
) -> RunJob:
    """Check ``request``, apply the resume rules, read the gate inputs, resolve the engine,
    build the runner of the request's kind and register the run in the store.

    Bad input raises (InputError, the store's errors) before anything is stored. Blocking (a
    new run's cases are all written): the workbench calls it in a thread. Import warnings of
    a suite file go to ``warn``.
    """
    fail_on = check_request(request)
    target = _target(request, store, warn)
    gate_settings, baseline = _gate_inputs(request, store, warn)
    resolved = resolve_run_engine(target.engine, target.suite_path, target.stage, request.workspace)
    options = _options(request, resolved)
    if request.robustness_of is not None:
        from dataclasses import replace

        options = replace(options, robustness_of=request.robustness_of)
    shape_warnings = raw_check_warnings(target.suite, resolved.engine)
    if shape_warnings:
        from dataclasses import replace

        options = replace(options, warnings=tuple(shape_warnings))
        for line in shape_warnings:
            if warn is not None:
                warn(line)
    rerun_of = target.rerun_of
    if rerun_of is None and target.previous is not None:  # a resumed rerun is still one
        from nlu_tui.reruns import parent_of

        parent = parent_of(target.previous)
        rerun_of = store.get_run(parent) if parent else None
    if rerun_of is not None:
        from dataclasses import replace

        options = replace(options, rerun_of=rerun_of.id)
    plan = RunPlan(
        request, target.suite, target.stage, resolved, options, target.previous, rerun_of
    )
    runner = RUNNERS[request.kind](plan, store)
    record = runner.prepare()
    return RunJob(plan, runner, record, store, fail_on, gate_settings, baseline)
