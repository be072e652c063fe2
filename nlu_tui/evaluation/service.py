"""``test nlu`` as one service for the CLI and the workbench: held-out, cross-validation and
pipeline comparison, each checked before anything trains, stored as it goes, reported at the end.

- **held-out**: the ``--nlu`` file is the test set. With ``--train FILE`` the engine is trained
  on it first (with ``--config``, or the engine's default configuration); otherwise the engine
  is used as it is (``embedded:PATH`` learns from PATH, ``rasa:URL`` keeps its loaded model).
- **cross-validation**: intents with fewer examples than folds are dropped (and listed), the
  rest split by ``StratifiedKFold(shuffle=True, random_state=seed)``; every fold trains on the
  others and tests its own examples; ``runs`` repeats it with seeds ``seed``, ``seed+1``, ...
- **comparison**: Rasa's ``compare_nlu``: intents under 5 examples dropped; per run a stratified
  80/20 split (seed ``seed+run``), then for each exclusion percentage the training part loses
  that share (Rasa's split again, so 0 % still leaves out one example per intent, as Rasa
  does), and every configuration trains on the rest and is tested on the run's fixed test part.

Held-out and cross-validation runs are ordinary suite runs in the store (the test examples
are the cases; a fold's predictions are stored as soon as the fold is done), so they show in
history, diff and gates; a comparison is stored as an item run (one item per trained model).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.engines.base import Engine, TrainingConfig
from nlu_tui.errors import InputError
from nlu_tui.evaluation.jobs import Progress, Unit, UnitResult, run_units
from nlu_tui.extras import need
from nlu_tui.model import Prediction, RunStatus, Suite, TestCase
from nlu_tui.training import TrainingData

if TYPE_CHECKING:
    from nlu_tui.store.records import RunRecord
    from nlu_tui.store.runstore import RunStore

HELD_OUT = "held-out"
SPLIT = "split"
"""Held-out on a split made on the fly (``data split nlu`` then ``test nlu``, in one go)."""
CROSS_VALIDATION = "cross-validation"
COMPARISON = "comparison"
COMPARISON_KIND = "nlu-comparison"
COMPARISON_CUTOFF = 5
"""``compare_nlu_models`` drops intents with fewer examples than this."""
RESULTS_FILE = "results.json"
GRAPH_FILE = "nlu_model_comparison_graph.svg"


@dataclass
class EvalRequest:
    """What a face asks for (see the module docstring for the modes)."""

    nlu: Path
    engine: str
    mode: str = HELD_OUT
    configs: list[Path] = field(default_factory=list)
    train: Path | None = None
    folds: int = 5
    seed: int | None = None
    runs: int = 1
    percentages: list[int] = field(default_factory=lambda: [0, 25, 50, 75, 90])
    training_fraction: float = 0.8
    jobs: int = 1
    out: Path | None = None
    cache: bool = True
    workspace: Path | None = None
    note: str = ""
    successes: bool = False
    errors: bool = True
    plots: bool = True
    """Rasa's confusion matrix and histogram images beside the reports (``--no-plot``: none)."""


@dataclass
class Plan:
    """A checked request: engine, data, configurations and seed, before anything trains."""

    request: EvalRequest
    engine: Engine
    engine_name: str
    profile: dict[str, Any]
    data: TrainingData
    configs: list[TrainingConfig]
    seed: int
    train_data: TrainingData | None = None
    kept: list[int] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    redact: Callable[[str], str] = str
    duplicates: int = 0
    """Examples dropped because they repeat an earlier one (Rasa's reader drops them)."""


@dataclass
class FoldFigures:
    run: int
    fold: int
    seed: int
    train: dict[str, float] | None
    test: dict[str, float] | None
    train_seconds: float
    test_seconds: float
    cached: bool
    error: str | None = None
    train_entities: dict[str, dict[str, float]] | None = None
    """Per entity extractor: accuracy, F1 and precision on the training part (as Rasa)."""
    test_entities: dict[str, dict[str, float]] | None = None


@dataclass
class EvalOutcome:
    """What an evaluation did: stored runs, per-fold figures, comparison results, files."""

    mode: str
    status: RunStatus
    runs: list[RunRecord] = field(default_factory=list)
    folds: list[FoldFigures] = field(default_factory=list)
    results: dict[str, list[list[float | None]]] = field(default_factory=dict)
    examples: list[int] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    seed: int = 0
    metrics: dict[str, float] = field(default_factory=dict)


# --- checks -------------------------------------------------------------------------------------


def _engine(
    spec: str, nlu: Path, workspace: Path | None
) -> tuple[Engine, str, dict[str, Any], Any]:
    from nlu_tui.engines.base import create_engine

    spec = spec.strip()
    if spec == "embedded":
        engine = create_engine("embedded", {"nlu": str(nlu)})
        return engine, "embedded", {"name": "embedded", "type": "embedded"}, str
    from nlu_tui.engines.profiles import resolve_engine

    resolved = resolve_engine(spec, nlu, "development", workspace)
    return resolved.engine, resolved.name, dict(resolved.profile_public), resolved.redact


def _load(path: Path, what: str) -> TrainingData:
    from nlu_tui.formats.rasa_yaml import load_training_data

    if not Path(path).exists():
        raise InputError(f"no such {what} file", path=path)
    return load_training_data(path)


def plan(request: EvalRequest) -> Plan:
    """Check everything that can be checked before training (InputError/EngineError): the
    options, the data, every configuration, that the engine can train, that folds fit."""
    if request.mode not in (HELD_OUT, SPLIT, CROSS_VALIDATION, COMPARISON):
        raise InputError(f"unknown mode {request.mode!r}", field="mode")
    if request.runs < 1:
        raise InputError("must be at least 1", field="--runs")
    if request.jobs < 1:
        raise InputError("must be at least 1", field="--jobs")
    if request.plots:  # `make start` installs no matplotlib: say so before training, not after
        need("matplotlib", "the PNG plots (--no-plot skips them)")
    if request.mode == CROSS_VALIDATION and request.folds < 2:
        raise InputError("cross-validation needs at least 2 folds", field="--folds")
    if request.mode == COMPARISON:
        if len(request.configs) < 1:
            raise InputError("give the configurations to compare", field="--config")
        if not request.percentages:
            raise InputError("give at least one percentage", field="--percentages")
        for p in request.percentages:
            if not 0 <= p < 100:
                raise InputError(f"must be within 0..99, got {p}", field="--percentages")
    elif len(request.configs) > 1:
        raise InputError(
            "several configurations compare pipelines; cross-validation and held-out take one",
            field="--config",
        )
    data = _load(request.nlu, "NLU data")
    engine, name, profile, redact = _engine(request.engine, request.nlu, request.workspace)
    trains = request.mode != HELD_OUT or request.train is not None
    if request.mode == SPLIT and not 0.0 < request.training_fraction < 1.0:
        raise InputError("must be between 0 and 1", field="--training-fraction")
    if trains and not engine.capabilities.training:
        raise InputError(
            f"engine {name} cannot train; engines that can: embedded, rasa", field="--engine"
        )
    if not trains and request.configs and engine.capabilities.training:
        for path in request.configs:  # a bad configuration is the first thing to report
            engine.load_training_config(path)
    if not trains and request.configs:
        raise InputError(
            "a held-out test without --train uses the engine as it is: give --train FILE to "
            "train it with this configuration",
            field="--config",
        )
    if not trains and request.engine.strip() == "embedded":
        raise InputError(
            "say what the embedded engine learns from: --train FILE or --engine embedded:PATH",
            field="--engine",
        )
    configs: list[TrainingConfig] = []
    if trains:
        paths: list[Path | None] = list(request.configs) or [None]
        configs = [engine.load_training_config(p) for p in paths]
        names = [c.name for c in configs]
        if len(set(names)) != len(names):
            raise InputError(
                f"two configurations are named {max(names, key=names.count)!r}; results are "
                "keyed by file name",
                field="--config",
            )
    seed = request.seed if request.seed is not None else random.randrange(2**31)
    result = Plan(request, engine, name, profile, data, configs, seed, redact=redact)
    labels = [e.intent for e in data.examples]
    if request.mode == HELD_OUT and request.train is not None:
        result.train_data = _load(request.train, "training data")
    elif request.mode == SPLIT:
        from nlu_tui.evaluation.data import rasa_split_parts
        from nlu_tui.formats.rasa_yaml import load_responses

        # the same parts as `rasa data split nlu --random-seed SEED` (example for example;
        # retrieval intents' responses are part of Rasa's example identity)
        responses = load_responses(data.path) if data.path is not None else {}
        result.train_data, result.data, result.duplicates = rasa_split_parts(
            data, request.training_fraction, seed, responses
        )
    elif request.mode in (CROSS_VALIDATION, COMPARISON):
        from nlu_tui.evaluation.data import without_duplicates
        from nlu_tui.evaluation.split import drop_rare

        result.data, result.duplicates = without_duplicates(data)
        labels = [e.intent for e in result.data.examples]

        cutoff = request.folds if request.mode == CROSS_VALIDATION else COMPARISON_CUTOFF
        result.kept, result.dropped = drop_rare(labels, cutoff)
        intents = {labels[i] for i in result.kept}
        if len(intents) < 2:
            raise InputError(
                f"{len(intents)} intent(s) have at least {cutoff} examples (needed "
                f"{'for ' + str(cutoff) + ' folds' if request.mode == CROSS_VALIDATION else 'to compare'}"
                "); at least 2 are needed",
                path=request.nlu,
            )
    if request.out is not None and request.out.exists() and not request.out.is_dir():
        raise InputError("is a file, not a directory", path=request.out, field="--out")
    return result


# --- running ------------------------------------------------------------------------------------


class Cancel:
    """Set from anywhere (a signal, the workbench) to stop after the units under way."""

    def __init__(self) -> None:
        self.requested = False

    def set(self) -> None:
        self.requested = True


def _scored(
    cases: list[TestCase], predictions: list[Prediction]
) -> list[tuple[int, Prediction, Any]]:
    from nlu_tui.scoring.case import score_case

    return [
        (i, p, score_case(c, p)) for i, (c, p) in enumerate(zip(cases, predictions, strict=True))
    ]


def _profile(plan: Plan, **extra: Any) -> dict[str, Any]:
    profile = dict(plan.profile)
    profile.update(extra)
    return profile


def _suite_name(plan: Plan) -> str:
    from nlu_tui.formats.rasa_yaml import _suite_name as name_of

    return name_of(plan.request.nlu)


def _write_reports(plan: Plan, record: RunRecord, store: RunStore, directory: Path) -> list[Path]:
    from nlu_tui.reports import RunMeta, write_reports
    from nlu_tui.reports.rasa_report import RasaOptions

    rows = store.load_results(record.id)
    written = write_reports(
        {"rasa": directory},
        RunMeta.from_record(record),
        rows,
        rasa=RasaOptions(
            successes=plan.request.successes,
            errors=plan.request.errors,
            plots=plan.request.plots,
        ),
    )
    written.append(_write_confusion(directory, rows))
    return written


def _write_confusion(directory: Path, rows: list[Any]) -> Path:
    """``intent_confusion.json``: labels and the matrix of Rasa's evaluated intents (Rasa
    draws it as ``intent_confusion_matrix.png``)."""
    from collections import Counter

    from nlu_tui.fileio import atomic_write_text
    from nlu_tui.reports.rasa_report import rasa_examples

    examples = rasa_examples(rows)
    pairs = Counter((t, p) for _x, t, p, _c in examples)
    labels = sorted({label for pair in pairs for label in pair})
    matrix = [[pairs.get((t, p), 0) for p in labels] for t in labels]
    path = directory / "intent_confusion.json"
    atomic_write_text(
        path, json.dumps({"labels": labels, "matrix": matrix}, indent=2, ensure_ascii=False)
    )
    return path


async def run_held_out(
    plan: Plan, store: RunStore, progress: Progress | None = None, cancel: Cancel | None = None
) -> EvalOutcome:
    """Train (with ``--train``) or take the engine as it is, test every example of ``--nlu``."""
    from nlu_tui.evaluation.data import cases_suite
    from nlu_tui.evaluation.metrics import intent_metrics

    request = plan.request
    suite = cases_suite(plan.data, _suite_name(plan))
    cases = suite.cases
    config = plan.configs[0] if plan.configs else None
    extra: dict[str, Any] = {"evaluation": HELD_OUT}
    if config is not None:
        extra["config"] = config.name
    record = store.create_run(
        suite,
        engine_name=plan.engine_name,
        engine_profile=_profile(plan, **extra),
        note=request.note,
    )
    outcome = EvalOutcome(HELD_OUT, RunStatus.RUNNING, seed=plan.seed)
    try:
        if plan.train_data is not None and config is not None:
            unit = Unit("held-out", plan.train_data, config, cases)
            results = [
                r
                async for r in run_units(
                    plan.engine, [unit], jobs=1, use_cache=request.cache, progress=progress
                )
            ]
            result = results[0]
            if result.error:
                raise _TrainingFailed(plan.redact(result.error))
            predictions = result.predictions
        else:
            if progress:
                progress("held-out", "testing", None)
            from nlu_tui.runner.options import RunOptions
            from nlu_tui.runner.parse_all import parse_all

            # the run kernel: concurrency, the attempt deadline, retries, cancel
            predictions = await parse_all(plan.engine, cases, record, RunOptions(concurrency=8))
            for prediction in predictions:
                if prediction.error:
                    prediction.error = plan.redact(prediction.error)
            if progress:
                progress("held-out", "done", None)
        store.add_results(record.id, _scored(cases, predictions))
        outcome.metrics = intent_metrics(cases, predictions)
        final = store.finish_run(record.id, RunStatus.SUCCESS)
        store.set_summary(record.id, {"evaluation": HELD_OUT, "intent": outcome.metrics})
    except _TrainingFailed as exc:
        store.finish_run(record.id, RunStatus.FAILED, str(exc))
        raise
    except (asyncio.CancelledError, KeyboardInterrupt):
        store.finish_run(record.id, RunStatus.CANCELED, "canceled")
        raise
    except Exception as exc:  # an unreachable engine...: the run ends failed, never "running"
        store.finish_run(record.id, RunStatus.FAILED, plan.redact(str(exc)) or type(exc).__name__)
        raise
    outcome.status = final.status
    outcome.runs.append(store.get_run(record.id))
    if request.out is not None:
        outcome.files = _write_reports(plan, outcome.runs[0], store, request.out)
    return outcome


class _TrainingFailed(InputError):
    def __init__(self, message: str) -> None:
        super().__init__(f"training failed: {message}")


async def run_cross_validation(
    plan: Plan, store: RunStore, progress: Progress | None = None, cancel: Cancel | None = None
) -> EvalOutcome:
    """``--cross-validation``: every fold stored as it finishes; reports of the accumulated
    test-fold predictions of each run."""
    from nlu_tui.evaluation.data import cases_suite, subset
    from nlu_tui.evaluation.split import stratified_folds

    request = plan.request
    data = subset(plan.data, plan.kept)
    labels = [e.intent for e in data.examples]
    suite = cases_suite(data, _suite_name(plan))
    cases = suite.cases
    config = plan.configs[0]
    outcome = EvalOutcome(CROSS_VALIDATION, RunStatus.SUCCESS, dropped=plan.dropped, seed=plan.seed)
    for run in range(request.runs):
        seed = plan.seed + run
        folds = stratified_folds(labels, request.folds, seed)
        units = []
        for k, (train_idx, test_idx) in enumerate(folds):
            units.append(
                Unit(
                    _fold_key(run, k, request.runs),
                    subset(data, train_idx),
                    config,
                    [cases[i] for i in test_idx],
                    [cases[i] for i in train_idx],
                    {"run": run, "fold": k, "test_idx": test_idx, "seed": seed},
                )
            )
        record = store.create_run(
            suite,
            engine_name=plan.engine_name,
            engine_profile=_profile(
                plan,
                evaluation=CROSS_VALIDATION,
                config=config.name,
                folds=request.folds,
                seed=seed,
            ),
            note=request.note,
        )
        figures: list[FoldFigures] = []
        status = RunStatus.SUCCESS
        reason = None
        try:
            async for result in run_units(
                plan.engine, units, jobs=request.jobs, use_cache=request.cache, progress=progress
            ):
                info = result.unit.info
                figure = _figure(result, info["run"], info["fold"], seed, plan)
                figures.append(figure)
                if result.error is None:
                    test_idx = info["test_idx"]
                    store.add_results(
                        record.id,
                        [
                            (i, p, r)
                            for i, (_seq, p, r) in zip(
                                test_idx,
                                _scored(result.unit.test_cases, result.predictions),
                                strict=True,
                            )
                        ],
                    )
                else:
                    status, reason = RunStatus.FAILED, f"fold {info['fold'] + 1}: {figure.error}"
                if cancel is not None and cancel.requested:
                    status, reason = RunStatus.CANCELED, "canceled"
                    break
        except (asyncio.CancelledError, KeyboardInterrupt):
            _finish_cv(store, record, figures, RunStatus.CANCELED, "canceled", plan)
            outcome.folds.extend(figures)
            raise
        except Exception as exc:  # a broken worker pool...: the run ends failed, folds kept
            reason = plan.redact(str(exc)) or type(exc).__name__
            _finish_cv(store, record, figures, RunStatus.FAILED, reason, plan)
            raise
        figures.sort(key=lambda f: f.fold)
        outcome.folds.extend(figures)
        final = _finish_cv(store, record, figures, status, reason, plan)
        outcome.runs.append(final)
        if status is not RunStatus.SUCCESS:
            outcome.status = status
            outcome.failures += [f"fold {f.fold + 1}: {f.error}" for f in figures if f.error]
        if request.out is not None and final.done:
            directory = request.out if request.runs == 1 else request.out / f"run_{run + 1}"
            outcome.files += _write_reports(plan, final, store, directory)
        if status is RunStatus.CANCELED:
            break
    return outcome


def _fold_key(run: int, fold: int, runs: int) -> str:
    return f"run {run + 1} fold {fold + 1}" if runs > 1 else f"fold {fold + 1}"


def _figure(result: UnitResult, run: int, fold: int, seed: int, plan: Plan) -> FoldFigures:
    return FoldFigures(
        run,
        fold,
        seed,
        result.train_metrics,
        result.test_metrics,
        result.train_seconds,
        result.test_seconds,
        result.cached,
        plan.redact(result.error) if result.error else None,
        result.train_entities,
        result.test_entities,
    )


def _finish_cv(
    store: RunStore,
    record: RunRecord,
    figures: list[FoldFigures],
    status: RunStatus,
    reason: str | None,
    plan: Plan,
) -> RunRecord:
    from nlu_tui.evaluation.metrics import METRICS, summarise, summarise_entities

    good = [f for f in figures if f.test is not None and f.train is not None]
    summary: dict[str, Any] = {
        "evaluation": CROSS_VALIDATION,
        "folds": plan.request.folds,
        "seed": figures[0].seed if figures else plan.seed,
        "dropped_intents": plan.dropped,
        "per_fold": [
            {
                "fold": f.fold + 1,
                "train": f.train,
                "test": f.test,
                "train_seconds": round(f.train_seconds, 3),
                "test_seconds": round(f.test_seconds, 3),
                "error": f.error,
                **(
                    {"entities": {"train": f.train_entities, "test": f.test_entities}}
                    if f.test_entities
                    else {}
                ),
            }
            for f in sorted(figures, key=lambda f: f.fold)
        ],
    }
    for side in ("train", "test"):
        stats = summarise([getattr(f, side) for f in good]) if good else {}
        summary[side] = (
            {name: {"mean": stats[name][0], "std": stats[name][1]} for name in METRICS}
            if stats
            else {}
        )
    entities: dict[str, dict[str, Any]] = {}
    for side in ("train", "test"):
        per_fold = [getattr(f, f"{side}_entities") or {} for f in good]
        for extractor, stats in summarise_entities(per_fold).items():
            entities.setdefault(extractor, {})[side] = {
                name: {"mean": stats[name][0], "std": stats[name][1]} for name in METRICS
            }
    if entities:
        summary["entities"] = entities
    store.set_summary(record.id, summary)
    return store.finish_run(record.id, status, reason)


async def run_comparison(
    plan: Plan, store: RunStore, progress: Progress | None = None, cancel: Cancel | None = None
) -> EvalOutcome:
    """``--config a.yml b.yml --runs R --percentages ...``: Rasa's comparison procedure."""
    from nlu_tui.evaluation.data import all_cases, subset, training_yaml
    from nlu_tui.evaluation.split import rasa_split
    from nlu_tui.fileio import atomic_write_text
    from nlu_tui.store.records import StoredItem

    request = plan.request
    out = request.out
    data = subset(plan.data, plan.kept)
    labels = [e.intent for e in data.examples]
    cases = all_cases(data)
    names = [c.name for c in plan.configs]
    outcome = EvalOutcome(COMPARISON, RunStatus.SUCCESS, dropped=plan.dropped, seed=plan.seed)
    outcome.results = {name: [[] for _ in range(request.runs)] for name in names}
    slots: dict[tuple[str, int, int], float | None] = {}
    units: list[Unit] = []
    for run in range(request.runs):
        seed = plan.seed + run
        train_idx, test_idx = rasa_split(labels, request.training_fraction, seed)
        test_cases = [cases[i] for i in test_idx]
        train_part = subset(data, train_idx)
        if out is not None:
            atomic_write_text(
                out / f"run_{run + 1}" / "test.yml", training_yaml(subset(data, test_idx))
            )
        part_labels = [labels[i] for i in train_idx]
        for p_index, percentage in enumerate(request.percentages):
            _excluded, included_local = rasa_split(part_labels, percentage / 100, seed)
            included = subset(train_part, included_local)
            if run == 0:
                outcome.examples.append(len(included.examples))
            if out is not None:
                atomic_write_text(
                    out / f"run_{run + 1}" / f"{percentage}%_exclusion" / "train" / "train.yml",
                    training_yaml(included),
                )
            for config in plan.configs:
                units.append(
                    Unit(
                        f"run {run + 1} · {percentage}% · {config.name}",
                        included,
                        config,
                        test_cases,
                        None,
                        {"run": run, "p": p_index, "percentage": percentage, "config": config.name},
                    )
                )
    record = store.create_run(
        Suite(name=_suite_name(plan), path=request.nlu, cases=[]),
        engine_name=plan.engine_name,
        engine_profile=_profile(plan, evaluation=COMPARISON, configs=names, seed=plan.seed),
        note=request.note,
        cases=[],
        kind=COMPARISON_KIND,
        total=len(units),
        digest=plan.data.digest,
    )
    status, reason = RunStatus.SUCCESS, None
    seq = 0
    try:
        async for result in run_units(
            plan.engine, units, jobs=request.jobs, use_cache=request.cache, progress=progress
        ):
            info = result.unit.info
            f1 = (
                result.test_metrics["F1-score"]
                if result.test_metrics and not result.error
                else None
            )
            error = plan.redact(result.error) if result.error else None
            slots[(info["config"], info["run"], info["p"])] = f1
            if error:
                outcome.failures.append(f"{result.unit.key}: {error}")
            if error is None and out is not None:
                report_dir = (
                    out
                    / f"run_{info['run'] + 1}"
                    / f"{info['percentage']}%_exclusion"
                    / f"{info['config']}_report"
                )
                outcome.files += _unit_reports(plan, result, report_dir)
            store.add_items(
                record.id,
                [
                    StoredItem(
                        result.unit.key,
                        seq,
                        "error" if error else "passed",
                        (result.train_seconds + result.test_seconds) * 1000.0,
                        {
                            **{k: v for k, v in info.items()},
                            "f1": f1,
                            "error": error,
                            "examples": len(result.unit.train.examples),
                        },
                    )
                ],
            )
            seq += 1
            if cancel is not None and cancel.requested:
                status, reason = RunStatus.CANCELED, "canceled"
                break
    except (asyncio.CancelledError, KeyboardInterrupt):
        store.finish_run(record.id, RunStatus.CANCELED, "canceled")
        raise
    for name in names:
        for run in range(request.runs):
            outcome.results[name][run] = [
                slots.get((name, run, p))
                for p in range(len(request.percentages))
                if (name, run, p) in slots
            ]
    if outcome.failures and status is RunStatus.SUCCESS:
        status, reason = (
            RunStatus.SUCCESS_WITH_WARNING,
            f"{len(outcome.failures)} model(s) failed to train",
        )
    store.set_summary(
        record.id,
        {
            "evaluation": COMPARISON,
            "results": outcome.results,
            "examples": outcome.examples,
            "percentages": request.percentages,
            "failures": outcome.failures,
            "dropped_intents": plan.dropped,
        },
    )
    outcome.runs.append(store.finish_run(record.id, status, reason))
    outcome.status = status
    if out is not None:
        from nlu_tui.evaluation.curve_svg import write_curve

        results_path = out / RESULTS_FILE
        atomic_write_text(results_path, json.dumps(outcome.results, indent=2))
        outcome.files += [
            results_path,
            write_curve(out / GRAPH_FILE, outcome.results, outcome.examples),
        ]
    return outcome


def _unit_reports(plan: Plan, result: UnitResult, directory: Path) -> list[Path]:
    from nlu_tui.reports import RunMeta, write_reports
    from nlu_tui.reports.rasa_report import RasaOptions

    rows = [
        (case, prediction, scored)
        for case, (_i, prediction, scored) in zip(
            result.unit.test_cases, _scored(result.unit.test_cases, result.predictions), strict=True
        )
    ]
    meta = RunMeta(id=result.unit.key, suite=_suite_name(plan), engine=plan.engine_name)
    written = write_reports(
        {"rasa": directory},
        meta,
        rows,
        rasa=RasaOptions(successes=False, errors=True, plots=plan.request.plots),
        processes=1,
    )
    written.append(_write_confusion(directory, rows))
    return written


async def evaluate(
    plan: Plan, store: RunStore, progress: Progress | None = None, cancel: Cancel | None = None
) -> EvalOutcome:
    """Run the planned evaluation."""
    if plan.request.mode == CROSS_VALIDATION:
        return await run_cross_validation(plan, store, progress, cancel)
    if plan.request.mode == COMPARISON:
        return await run_comparison(plan, store, progress, cancel)
    return await run_held_out(plan, store, progress, cancel)  # held-out and split
