"""Coverage and health as one service call for the CLI and the workbench.

:func:`build_coverage` finds the bot's inventory (``--training FILE``, else the training
data of the engine's profile: the embedded engine's ``nlu``, else the intents the engine
lists; an engine that cannot list them reads ``x.nlu.yml`` beside ``x.suite.yaml``, so the
workbench, which has no ``--training``, can show it too, and without one is refused, naming
``--training`` and that file), loads the suite, computes :func:`nlu_tui.coverage.coverage`
and adds the performance of the suite's newest finished run on that engine (or of the run
given). :func:`coverage_text` is what ``nlu-tui coverage`` prints and the workbench shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.coverage import (
    DEFAULT_MIN_CASES,
    DEFAULT_NEAR,
    DEFAULT_TARGET_RECALL,
    MAX_UTTERANCES_SHOWN,
    Coverage,
    Inventory,
    add_performance,
    coverage,
)
from nlu_tui.errors import InputError, NluTuiError
from nlu_tui.model import RunStatus, Suite

if TYPE_CHECKING:
    from nlu_tui.store.runstore import RunStore


@dataclass
class CoverageRequest:
    suite_path: Path
    engine: str | None = None
    training: Path | None = None
    stage: str = "development"
    run_id: str | None = None
    use_runs: bool = True
    min_cases: int = DEFAULT_MIN_CASES
    near: float = DEFAULT_NEAR
    target_recall: float = DEFAULT_TARGET_RECALL


def check_request(request: CoverageRequest) -> None:
    """Refuse bad options before anything is read."""
    if request.engine is None and request.training is None:
        raise InputError("give --engine E or --training FILE (the bot's training data)")
    if request.min_cases < 1:
        raise InputError("must be at least 1", field="--min-cases")
    if not 0.0 < request.near <= 1.0:
        raise InputError("must be within 0..1 (1: identical only)", field="--near")
    if not 0.0 <= request.target_recall <= 1.0:
        raise InputError("must be within 0..1", field="--target-recall")


def _inventory(request: CoverageRequest) -> tuple[Inventory, str | None]:
    """(inventory, the engine's run name) for the request."""
    from nlu_tui.formats.rasa_yaml import load_training_data

    engine_name = None
    training = request.training
    if request.engine is not None:
        from nlu_tui.engines.profiles import resolve_engine

        resolved = resolve_engine(request.engine, request.suite_path, stage=request.stage)
        engine_name = resolved.name
        if training is None:
            source = resolved.engine.training_suite_source()
            if source is None:
                listed = _listed(resolved)
                if listed is not None:
                    return listed, engine_name
                from nlu_tui.engines.profiles import sibling_training_data

                training = sibling_training_data(request.suite_path)
                if training is None:
                    note = resolved.engine.inventory_note
                    stem = request.suite_path.name.split(".", 1)[0]
                    raise InputError(
                        f"engine {resolved.name!r} ({resolved.engine.type_name}) does not list "
                        f"its intents here{f' ({note})' if note else ''}; give its training "
                        f"data with --training FILE, or save it beside the suite as "
                        f"{stem}.nlu.yml (Rasa NLU YAML)",
                        field="--engine",
                    )
            else:
                training = Path(source)
    assert training is not None
    if not training.is_file():
        raise InputError("no such training data file", path=training, field="--training")
    data = load_training_data(training)
    return Inventory.from_training(data, training.name), engine_name


def _listed(resolved: Any) -> Inventory | None:
    """The inventory a vendor engine lists (its intents, and training phrases where the vendor
    gives them), or None when it cannot list them. An engine error is one clear input error."""
    import asyncio

    from nlu_tui.engines.base import Engine

    engine: Engine = resolved.engine

    async def ask() -> tuple[list[tuple[str, list[str]]] | None, list[str] | None]:
        await engine.open(None)
        try:
            intents = await engine.list_intents()
            return intents, (await engine.list_entities()) if intents is not None else None
        finally:
            await engine.close()

    try:
        listed, entities = asyncio.run(ask())
    except NluTuiError as exc:
        raise InputError(
            resolved.redact(f"cannot list the engine's intents: {exc}"), field="--engine"
        ) from None
    except Exception as exc:  # transport errors, a vendor's 5xx: named, never its secrets
        from nlu_tui.runner.retry import classify

        reason = resolved.redact(classify(exc).reason)
        raise InputError(f"cannot list the engine's intents: {reason}", field="--engine") from None
    if listed is None:
        return None
    return Inventory(
        source=f"{resolved.name} (intents listed by the engine)",
        intents=[name for name, _phrases in listed],
        entities=list(entities or []),
        entities_listed=entities is not None,
        examples=[(text, name) for name, phrases in listed for text in phrases],
    )


def build_coverage(request: CoverageRequest, store: RunStore | None) -> Coverage:
    """The coverage report, with the performance of the chosen run when there is one."""
    from nlu_tui.runservice import load_suite_file

    check_request(request)
    suite = load_suite_file(request.suite_path)
    inventory, engine_name = _inventory(request)
    report = coverage(suite, inventory, min_cases=request.min_cases, near=request.near)
    report.target_recall = request.target_recall
    if store is None or not request.use_runs:
        return report
    if request.run_id is not None:
        run = store.get_run(request.run_id)
    else:
        finished = (RunStatus.SUCCESS, RunStatus.SUCCESS_WITH_WARNING)
        runs = [
            r
            for r in store.list_runs(request.suite_path)
            if r.status in finished
            and (engine_name is None or (r.engine_name == engine_name and r.stage == request.stage))
        ]
        if not runs:
            return report
        run = runs[0]
    rows = store.load_results(run.id)
    from nlu_tui.scoring.case import ScoringOptions

    options = ScoringOptions().for_suite(
        Suite(name=run.suite_name, cases=[c for c, _p, _r in rows])
    )
    add_performance(
        report,
        rows,
        run.id,
        target_recall=request.target_recall,
        options=options,
        kinds=inventory.kinds,
    )
    report.run_stage = run.stage
    return report


def default_engine(suite_path: Path, store: RunStore) -> str:
    """The engine a coverage view reads when none is chosen: the one of the suite's newest
    finished run, else the embedded engine on the suite's sibling training data."""
    finished = (RunStatus.SUCCESS, RunStatus.SUCCESS_WITH_WARNING)
    for run in store.list_runs(suite_path, limit=50):
        if run.status in finished:
            return run.engine_name
    return "embedded"


def _names(items: list[str], limit: int = 12) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" … (+{len(items) - limit})" if len(items) > limit else "")


def coverage_text(report: Coverage) -> str:
    """The report as plain text, one item a line (names are made inert by the face)."""
    tested = report.intents - len(report.untested)
    lines = [
        f"coverage    {report.suite} ({report.cases} cases) against {report.inventory}: "
        f"{report.intents} intents, {tested} tested ({100 * report.covered_share:.1f}%)",
    ]
    if report.kinds:
        parts = [
            f"{kind.replace('_', ' ')} {row['tested']}/{row['intents']}"
            for kind, row in sorted(report.kinds.items())
        ]
        lines.append(f"by type     {' · '.join(parts)} tested")
    lines.append(f"untested    {_names(report.untested) or '-'}")
    few = [f"{name} ({n})" for name, n in report.under_tested]
    lines.append(f"few cases   {_names(few) or '-'}  (fewer than {report.min_cases})")
    if report.unknown:
        unknown = [f"{name} ({n})" for name, n in report.unknown]
        lines.append(f"not in bot  {_names(unknown)}")
    if report.entities_listed:
        lines.append(
            f"entities    untested: {_names(report.entities_untested) or '-'}"
            + (
                f"; not in bot: {_names(report.entities_unknown)}"
                if report.entities_unknown
                else ""
            )
        )
    else:
        lines.append("entities    not listed by the engine (give --training FILE to check them)")
    if report.traits_untested:
        lines.append(f"traits      untested: {_names(report.traits_untested)}")
    identical = sum(1 for leak in report.leaks if leak.identical)
    if not report.examples_listed:
        lines.append("leakage     not checked: no training examples listed (give --training FILE)")
    else:
        lines.append(
            f"leakage     {identical} identical, {len(report.leaks) - identical} near-identical "
            f"(similarity ≥ {report.near:.2f}) to training examples"
        )
    for leak in report.leaks[:10]:
        lines.append(
            f"  {leak.case_id}  {leak.utterance!r} ~ {leak.example!r} "
            f"({leak.example_intent}, {leak.similarity:.2f})"
        )
    if report.run_id is None:
        lines.append("performance (no finished run of this suite on this engine yet)")
    else:
        stage = f" [{report.run_stage}]" if report.run_stage else ""
        lines.append(f"performance run {report.run_id}{stage}")
        if report.by_type:
            parts = [
                f"{row['name'].replace('_', ' ')} {row['cases']} cases F1 {row['f1']:.3f}"
                for row in report.by_type
            ]
            lines.append(f"  by type   {' · '.join(parts)}")
        width = min(max([len(h.intent) for h in report.health] + [6]), 32)
        lines.append(f"  {'intent':<{width}}  cases  precision recall  F1     taken for")
        for h in sorted(report.health, key=lambda h: (h.recall, h.intent)):
            confused = ", ".join(f"{n} ({c})" for n, c in h.confused_with[:2])
            name = h.intent if len(h.intent) <= width else h.intent[: width - 1] + "…"
            lines.append(
                f"  {name:<{width}}  {h.support:5d}  {h.precision:9.3f} {h.recall:6.3f}"
                f"  {h.f1:5.3f}  {confused}".rstrip()
            )
    recommendations = report.recommendations()
    lines.append("recommendations" + ("" if recommendations else "  -"))
    for i, item in enumerate(recommendations, 1):
        lines.append(f"  {i}. {item.text}")
        for utterance in item.utterances[:MAX_UTTERANCES_SHOWN]:
            lines.append(f"       + {utterance!r}")
        extra = len(item.utterances) - MAX_UTTERANCES_SHOWN
        if extra > 0:
            lines.append(f"       (+{extra} more in --json)")
    return "\n".join(lines) + "\n"
