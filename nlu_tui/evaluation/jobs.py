"""Train-and-test units (one fold, one configuration at one share of the data) and how they run.

Units are independent. The embedded engine trains them in worker processes, up to ``jobs`` at
once (scikit-learn holds the GIL while fitting, so threads would not help); a real Rasa over
HTTP trains them one after another, since its server holds one loaded model at a time. Either
way each unit's result is handed over as soon as it is done, so a caller stores it at once and
a cancel keeps every finished unit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nlu_tui.engines.base import Engine, ParseContext, TrainedModel, TrainingConfig
from nlu_tui.errors import NluTuiError
from nlu_tui.model import Prediction, RunStatus, TestCase
from nlu_tui.training import TrainingData

if TYPE_CHECKING:
    import httpx

    from nlu_tui.runner.options import RunOptions


@dataclass
class Unit:
    """What to train on, with which configuration, and what to test."""

    key: str
    train: TrainingData
    config: TrainingConfig
    test_cases: list[TestCase]
    train_cases: list[TestCase] | None = None
    """Cases of the training examples, when the training figures are wanted (cross-validation)."""
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class UnitResult:
    unit: Unit
    predictions: list[Prediction] = field(default_factory=list)
    train_metrics: dict[str, float] | None = None
    test_metrics: dict[str, float] | None = None
    train_entities: dict[str, dict[str, float]] | None = None
    """Per entity extractor, the figures of :func:`~nlu_tui.evaluation.metrics.entity_metrics`
    (cross-validation only; empty when the data has no entities)."""
    test_entities: dict[str, dict[str, float]] | None = None
    train_seconds: float = 0.0
    test_seconds: float = 0.0
    cached: bool = False
    error: str | None = None


Progress = Callable[[str, str, float | None], None]
"""``(unit key, state, seconds)``: state is training, testing, done or failed."""


def _embedded_unit(unit: Unit, use_disk: bool) -> UnitResult:
    """Train and test one unit in this process (the worker of the process pool)."""
    from nlu_tui.engines.embedded.cache import train_cached
    from nlu_tui.engines.embedded.engine import EmbeddedTrained

    config = unit.config.settings["config"]
    result = UnitResult(unit)
    started = time.perf_counter()
    try:
        model, cached = train_cached(unit.train, config, use_disk=use_disk, use_memory=False)
    except (NluTuiError, ValueError) as exc:
        result.error = str(exc)
        return result
    result.cached = cached
    result.train_seconds = time.perf_counter() - started
    trained = EmbeddedTrained(model, config, cached)
    started = time.perf_counter()
    train_predictions = None
    if unit.train_cases is not None:
        train_predictions = trained.predict_many([c.utterance for c in unit.train_cases])
    result.predictions = trained.predict_many([c.utterance for c in unit.test_cases])
    _figures(result, train_predictions)
    result.test_seconds = time.perf_counter() - started
    return result


def _figures(result: UnitResult, train_predictions: list[Prediction] | None) -> None:
    """The unit's intent figures, and per fold (train cases given) its entity figures."""
    from nlu_tui.evaluation.metrics import entity_metrics, intent_metrics

    unit = result.unit
    result.test_metrics = intent_metrics(unit.test_cases, result.predictions)
    if unit.train_cases is not None and train_predictions is not None:
        result.train_metrics = intent_metrics(unit.train_cases, train_predictions)
        result.train_entities = entity_metrics(unit.train_cases, train_predictions)
        result.test_entities = entity_metrics(unit.test_cases, result.predictions)


def _worker_init() -> None:
    from nlu_tui.engines.embedded.classifier import limit_blas_threads

    limit_blas_threads()


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with a real standard error.

    The tracker hands its child ``sys.stderr.fileno()``; in the workbench Textual has replaced
    ``sys.stderr`` with a capture whose ``fileno()`` is -1, and starting the fork server then
    fails with "bad value(s) in fds_to_keep". The tracker starts once per process, so this
    lends it the process's own standard error for that moment only.
    """
    import sys
    from multiprocessing import resource_tracker

    try:
        usable = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        usable = False
    if usable or sys.__stderr__ is None:
        return
    captured, sys.stderr = sys.stderr, sys.__stderr__
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = captured


async def _run_in_processes(
    units: Sequence[Unit], jobs: int, use_disk: bool, progress: Progress | None
) -> AsyncIterator[UnitResult]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    loop = asyncio.get_running_loop()
    if jobs <= 1:
        for unit in units:
            if progress:
                progress(unit.key, "training", None)
            result = await asyncio.to_thread(_embedded_unit, unit, use_disk)
            yield result
        return
    from nlu_tui.reports.parallel import fork_is_safe

    context: multiprocessing.context.BaseContext
    if fork_is_safe():
        # Forked workers start at once with scikit-learn already imported; with other threads
        # alive (the workbench) a fork could inherit a held lock, so a fresh server forks them.
        import sklearn.feature_extraction.text
        import sklearn.linear_model  # noqa: F401

        context = multiprocessing.get_context("fork")
    else:
        _start_resource_tracker()
        context = multiprocessing.get_context("forkserver")
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(units)) or 1, mp_context=context, initializer=_worker_init
    )
    try:
        pending: set[asyncio.Future[UnitResult]] = set()
        queue = list(units)
        while queue or pending:
            while queue and len(pending) < jobs:
                unit = queue.pop(0)
                if progress:
                    progress(unit.key, "training", None)
                pending.add(loop.run_in_executor(pool, _embedded_unit, unit, use_disk))
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                yield future.result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


async def _run_over_engine(
    engine: Engine,
    units: Sequence[Unit],
    client: httpx.AsyncClient | None,
    progress: Progress | None,
) -> AsyncIterator[UnitResult]:
    for unit in units:
        result = UnitResult(unit)
        if progress:
            progress(unit.key, "training", None)
        started = time.perf_counter()
        try:
            model = await engine.train(unit.train, unit.config, client)
        except NluTuiError as exc:
            result.error = str(exc)
            yield result
            continue
        result.train_seconds = time.perf_counter() - started
        result.cached = bool(model.describe().get("cached"))
        if progress:
            progress(unit.key, "testing", result.train_seconds)
        started = time.perf_counter()
        try:
            train_predictions = None
            if unit.train_cases is not None:
                train_predictions = await _parse(model, unit.key, unit.train_cases)
            result.predictions = await _parse(model, unit.key, unit.test_cases)
            _figures(result, train_predictions)
        except Exception as exc:  # a transport failure while testing fails this unit only
            result.error = f"testing failed: {exc}"
            result.predictions = []
        finally:
            await model.release()
        result.test_seconds = time.perf_counter() - started
        yield result


class _ServedModel(Engine):
    """A trained model served elsewhere, as the run kernel sees an engine: the model holds its
    own connection (opened by training), so the kernel's client is not used."""

    type_name = "trained"

    def __init__(self, model: TrainedModel) -> None:
        self.model = model

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        return await self.model.parse(text, context)


async def _parse(
    model: TrainedModel, unit: str, cases: Sequence[TestCase], options: RunOptions | None = None
) -> list[Prediction]:
    """A unit's answers: in one batch from an in-process model; otherwise case by case on the
    run kernel (concurrency, the attempt deadline, retries with the capped Retry-After)."""
    if model.in_process:
        return await model.parse_many([c.utterance for c in cases])
    from nlu_tui.runner.options import RunOptions
    from nlu_tui.runner.parse_all import parse_all
    from nlu_tui.store.records import RunRecord

    # the kernel's handle on this unit's parse (nothing is stored: the evaluation keeps the
    # answers with its own figures)
    handle = RunRecord(
        id=f"evaluation-{unit}",
        suite_name=unit,
        suite_path=None,
        suite_hash="",
        engine_name="trained model",
        engine_profile={},
        stage="development",
        status=RunStatus.RUNNING,
        reason=None,
        note="",
        total=len(cases),
        done=0,
        tp=0,
        tn=0,
        fp=0,
        fn=0,
        errors=0,
        started_at=time.time(),
        finished_at=None,
    )
    run_options = options if options is not None else RunOptions(concurrency=8)
    return await parse_all(_ServedModel(model), cases, handle, run_options)


async def run_units(
    engine: Engine,
    units: Sequence[Unit],
    *,
    jobs: int = 1,
    use_cache: bool = True,
    client: httpx.AsyncClient | None = None,
    progress: Progress | None = None,
) -> AsyncIterator[UnitResult]:
    """Each unit's result as it finishes (order of finishing)."""
    from nlu_tui.engines.embedded.engine import EmbeddedEngine

    if isinstance(engine, EmbeddedEngine):
        source = _run_in_processes(units, jobs, use_cache and engine.use_cache, progress)
    else:
        source = _run_over_engine(engine, units, client, progress)
    async for result in source:
        if progress:
            state = "failed" if result.error else "done"
            progress(result.unit.key, state, result.train_seconds + result.test_seconds)
        yield result
