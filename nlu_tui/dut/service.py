"""``nlu-tui test du`` as a service: read, resolve the engine, run through the store, report.

A DUT run is a store run of kind ``dut`` (:data:`DUT_RUN`) run by the run kernel with the DUT
strategy (:mod:`nlu_tui.dut.kind`): one item per test case, stored as soon as its steps are
in, so a canceled or killed run resumes (``resume=RUN_ID``) without sending a stored test case
again. The summary holds Rasa Pro's report dict (the workbench
shows it); gates read it (``f1<0.9``, ``set_slot.f1<0.9``...).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.dialogue_understanding.commands import CommandSpec
from nlu_tui.dut.kind import DUT_RUN, DutKind
from nlu_tui.dut.model import DutCase, DutCaseResult
from nlu_tui.dut.runner import DutRunSettings, build_request
from nlu_tui.errors import InputError
from nlu_tui.model import digest_bytes
from nlu_tui.runner.options import RunOptions

if TYPE_CHECKING:
    from nlu_tui.dialogue_understanding.flows import Flows
    from nlu_tui.dut.reader import DutSuite
    from nlu_tui.engines.base import Engine
    from nlu_tui.runner.answer_cache import AnswerCache
    from nlu_tui.store.records import RunRecord


_GATE = re.compile(
    r"^(?:(?P<cmd>[a-z_ ]+)\.)?(?P<metric>f1|macro|micro|weighted|precision|recall|accuracy"
    r"|utterances)\s*<\s*(?P<value>[0-9]*\.?[0-9]+)$"
)


@dataclass
class DutRequest:
    path: Path
    engine: str | None = None
    flows: Path | None = None
    spec: CommandSpec = field(default_factory=CommandSpec)
    settings: DutRunSettings = field(default_factory=DutRunSettings)
    output_prompt: bool = False
    fail_on: str | None = None
    resume: str | None = None
    note: str = ""
    workspace: Path | None = None
    store_path: Path | None = None
    options: RunOptions | None = None
    """The kernel's options (retry_after_max, rate limit...); default: from ``settings``."""
    repeat: int | None = None
    """Send each test case this many times; pass/fail that differs is flaky."""
    quarantine_flaky: bool = False
    """With ``repeat``: flaky test cases are left out of the gates and the failed count."""
    rerun_failed: str | None = None
    """The id of a DUT run whose failed and errored test cases a child run sends again
    (:mod:`nlu_tui.reruns`); its engine, flows and DSL unless given here."""
    no_cache: bool = False
    """Neither read nor write the profile's answer cache (``cache: true``) in this run."""


@dataclass
class DutOutcome:
    run: RunRecord
    results: list[DutCaseResult]
    report: dict[str, Any]
    gate_failures: list[str]
    suite: DutSuite
    canceled: bool = False
    stability: dict[str, Any] | None = None
    """A repeated run's per-case stability (:func:`nlu_tui.repeats.stability_summary`)."""
    failed_cases: int = 0
    """Test cases that failed (flaky ones left out with ``quarantine_flaky``)."""
    cache: AnswerCache | None = None
    """The profile's answer cache in this run (its hits and misses), if it has one."""


def parse_gates(text: str | None) -> list[tuple[str | None, str, float]]:
    """``f1<0.9`` (micro), ``macro<..``, ``weighted<..``, ``accuracy<..`` (test cases),
    ``utterances<..``, ``set_slot.f1<..`` / ``.precision`` / ``.recall`` per command type."""
    gates: list[tuple[str | None, str, float]] = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        match = _GATE.match(part)
        if match is None:
            raise InputError(
                f"unknown gate {part!r}: use e.g. f1<0.9, macro<0.8, accuracy<1, set_slot.f1<0.9",
                field="fail-on",
            )
        cmd = match.group("cmd")
        gates.append(
            (
                cmd.replace(" ", "_") if cmd else None,
                match.group("metric"),
                float(match.group("value")),
            )
        )
    return gates


def check_gates(report: dict[str, Any], gates: list[tuple[str | None, str, float]]) -> list[str]:
    failures: list[str] = []
    for cmd, metric, limit in gates:
        if cmd is not None:
            m = report["command_metrics"].get(cmd)
            key = {"f1": "f1_score"}.get(metric, metric)
            value = 0.0 if m is None else float(m.get(key, 0.0))
            label = f"{cmd}.{metric}"
        elif metric in ("f1", "micro"):
            value, label = report["f1_score"]["micro"], "micro F1"
        elif metric == "macro":
            value, label = report["f1_score"]["macro"], "macro F1"
        elif metric == "weighted":
            value, label = report["f1_score"]["weighted_average"], "weighted F1"
        elif metric == "accuracy":
            value, label = report["accuracy"]["test_cases"], "test-case accuracy"
        elif metric == "utterances":
            value, label = report["accuracy"]["user_utterances"], "user-utterance accuracy"
        else:
            raise InputError(f"gate {metric!r} needs a command type", field="fail-on")
        if value < limit:
            failures.append(f"{label} {value:.4f} < {limit:g}")
    return failures


def find_flows(request: DutRequest, engine_source: Path | None) -> Path | None:
    """``--flows``, else ``<stem>.flows.yml`` or ``flows.yml`` beside the tests or the
    engine's training data."""
    if request.flows is not None:
        return request.flows
    places = []
    base = request.path if request.path.is_dir() else request.path.parent
    places.append((base, request.path.name.split(".", 1)[0]))
    if engine_source is not None:
        places.append((engine_source.parent, engine_source.name.split(".", 1)[0]))
    for folder, stem in places:
        for name in (f"{stem}.flows.yml", f"{stem}.flows.yaml", "flows.yml", "flows.yaml"):
            if (folder / name).is_file():
                return folder / name
    return None


def command_engine(engine: Engine, flows: Flows | None, name: str) -> Any:
    """The engine itself when it predicts commands, else the embedded command generator
    over it (which needs flows)."""
    if engine.capabilities.commands:
        use_flows = getattr(engine, "use_flows", None)
        if flows is not None and use_flows is not None:
            use_flows(flows)  # an engine that prompts with the flows (llm-commands)
        return engine
    if flows is None:
        raise InputError(
            f"engine {name} does not predict commands; give --flows FILE to derive them from "
            "its intents and entities (see README, 'Dialogue understanding tests')",
            field="flows",
        )
    from nlu_tui.engines.command_nlu import NluCommandGenerator

    return NluCommandGenerator(engine, flows)


def run_options(request: DutRequest) -> RunOptions:
    """The kernel's options of a DUT run: ``request.options`` if given, else the CLI's
    concurrency, retries and timeout (:class:`DutRunSettings`) and the repeat count."""
    if request.options is not None:
        opts = request.options
    else:
        s = request.settings
        opts = RunOptions(
            concurrency=s.concurrency,
            retries=s.retries,
            timeout=s.timeout,
            backoff_base=s.backoff_base,
            backoff_max=s.backoff_max,
        )
    if request.repeat is not None:
        opts = replace(opts, repeat=request.repeat)
    return opts


async def run_dut(
    request: DutRequest,
    *,
    on_case: Callable[[DutCaseResult, int, int], None] | None = None,
) -> DutOutcome:
    """Run (or resume) a DUT run on the run kernel. Bad input raises InputError before
    anything is stored; an engine that cannot be opened raises EngineError (run failed)."""
    import asyncio

    from nlu_tui.dialogue_understanding.flows import load_flows
    from nlu_tui.dut.reader import read_dut
    from nlu_tui.dut.result import summarise
    from nlu_tui.engines.profiles import resolve_engine
    from nlu_tui.errors import EngineError
    from nlu_tui.repeats import MAX_REPEAT, flaky_ids
    from nlu_tui.runner.answer_cache import AnswerCache
    from nlu_tui.runner.kernel import Kernel
    from nlu_tui.store.runstore import RunStore

    gates = parse_gates(request.fail_on)
    if request.repeat is not None and not 1 <= request.repeat <= MAX_REPEAT:
        raise InputError(f"must be between 1 and {MAX_REPEAT}", field="repeat")
    store = RunStore(request.store_path)
    try:
        from nlu_tui.reruns import item_run_origin

        origin = item_run_origin(
            store,
            DUT_RUN,
            rerun_failed=request.rerun_failed,
            resume=request.resume,
            field_prefix="",
            any_ended=True,
        )
        previous, parent, scope = origin.previous, origin.parent, origin.scope
        engine_spec = request.engine
        if origin.source is not None:  # its engine, flows and DSL unless given here
            engine_spec = engine_spec or origin.source.engine_name
            opts = origin.source.options
            request.flows = request.flows or (Path(opts["flows"]) if opts.get("flows") else None)
            if opts.get("dsl") and request.spec.dsl == "auto":
                request.spec.dsl = opts["dsl"]
        if not engine_spec:
            raise InputError(
                "give --engine (a profile, embedded:PATH, rasa-pro:URL...)", field="engine"
            )
        resolved = resolve_engine(engine_spec, suite_path=request.path, workspace=request.workspace)
        source = getattr(resolved.engine, "path", None)
        flows_path = find_flows(request, source if isinstance(source, Path) else None)
        flows = load_flows(flows_path) if flows_path is not None else None
        suite = read_dut(request.path, request.spec, flows.ids if flows else None)
        engine = command_engine(resolved.engine, flows, resolved.name)
        if previous is not None and previous.suite_hash != suite.source.digest:
            raise InputError(
                f"the test files changed since run {previous.id}; start a new run",
                path=request.path,
                field="resume",
            )
        if request.rerun_failed and parent is not None and parent.suite_hash != suite.source.digest:
            raise InputError(
                f"the test files changed since run {parent.id}; run them all again instead",
                path=request.path,
                field="rerun-failed",
            )
        kept = {
            "flows": str(flows_path) if flows_path else None,
            "dsl": request.spec.dsl,
            "versions": suite.versions,
            "removed": request.spec.removed,
            "custom": [c.class_name for c in request.spec.custom],
            "output_prompt": request.output_prompt,
        }
        fixtures = suite.source.fixtures
        metadata = {k: dict(v.values) for k, v in suite.source.metadata.items()}

        def requests(case: DutCase, index: int, run_id: str) -> Any:
            slots: dict[str, Any] = {}
            for name in case.fixtures:
                if name in fixtures:
                    slots.update(fixtures[name].slots)
            return build_request(
                case, index, run_id, metadata, slots, suite.source.stub_custom_actions
            )

        secrets = tuple(getattr(resolved, "secrets", None) or ())
        options = run_options(request)
        options = replace(options, secrets=(*options.secrets, *secrets))
        if parent is not None:
            options = replace(options, rerun_of=parent.id)
        kind = DutKind(
            path=request.path,
            suite=suite,
            engine=engine,
            resolved=resolved,
            store=store,
            options=options,
            run_options=kept,
            requests=requests,
            note=request.note,
            previous=previous,
            scope=scope,
            cache_context={
                **{k: v for k, v in kept.items() if k != "flows"},
                "flows": digest_bytes(flows_path.read_bytes()) if flows_path else None,
            },
        )
        kind.on_case = on_case
        # a repeated run and a rerun of failures ask the engine again (they only write the cache)
        cache = AnswerCache.of_profile(
            store, resolved, off=request.no_cache, read=options.repeat < 2 and parent is None
        )
        kernel = kind.kernel = Kernel(kind, cache=cache)
        kernel.prepare()
        canceled = False
        try:
            run = await kernel.execute()
        except (asyncio.CancelledError, KeyboardInterrupt):
            canceled = True
            run = store.get_run(kernel.run_id)
        ending = kind.ending
        if ending is not None and ending.canceled:
            canceled = True
        ordered = kind.ordered()
        report = summarise(ordered, "v2", output_prompt=request.output_prompt)
        stability = kind.stability()
        judged, judged_report = ordered, report
        merged: dict[str, int] | None = None
        if parent is not None:  # what the tests now score: the parent's passes + ours
            from nlu_tui.dut.kind import result_from_item
            from nlu_tui.reruns import merged_item_figures, merged_items

            items = merged_items(store, store.get_run(run.id))
            merged = merged_item_figures(items)
            by_id = {i.item_id: i for i in items}
            judged = [
                result_from_item(c, by_id[kind.item_id(c)].data)
                for c in suite.cases
                if kind.item_id(c) in by_id
            ]
            judged_report = summarise(judged, "v2")
        if request.quarantine_flaky and stability is not None:
            flaky = flaky_ids(stability)
            judged = [r for r in ordered if kind.item_id(r.case) not in flaky]
            judged_report = summarise(judged, "v2")
        failures = check_gates(judged_report, gates) if not canceled else []
        summary = dict(report)  # failed steps included: the workbench shows their diffs
        summary["gate_failures"] = failures
        if stability is not None:
            summary["stability"] = stability
        if merged is not None:
            from nlu_tui.reruns import MERGED

            summary[MERGED] = merged
        run = store.set_summary(run.id, summary)
        if ending is not None and ending.failed_reason:
            raise EngineError(ending.failed_reason)
        failed = sum(1 for r in judged if not r.passed)
        return DutOutcome(run, ordered, report, failures, suite, canceled, stability, failed, cache)
    finally:
        store.close()


def diff_runs(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Test cases that broke or got fixed, and per-command F1 changes, between two summaries."""
    lines: list[str] = []
    old_failed, new_failed = (
        set(old.get("names_of_failed_tests", [])),
        set(new.get("names_of_failed_tests", [])),
    )
    old_passed = set(old.get("names_of_passed_tests", []))
    new_passed = set(new.get("names_of_passed_tests", []))
    for name in sorted(new_failed & old_passed):
        lines.append(f"broke:  {name}")
    for name in sorted(new_passed & old_failed):
        lines.append(f"fixed:  {name}")
    old_m, new_m = old.get("command_metrics", {}), new.get("command_metrics", {})
    for cmd in sorted(set(old_m) | set(new_m)):
        a = old_m.get(cmd, {}).get("f1_score", 0.0)
        b = new_m.get(cmd, {}).get("f1_score", 0.0)
        if abs(a - b) > 1e-12:
            lines.append(f"{cmd} f1: {a:.4f} -> {b:.4f} ({b - a:+.4f})")
    for key in ("macro", "micro", "weighted_average"):
        a, b = old.get("f1_score", {}).get(key, 0.0), new.get("f1_score", {}).get(key, 0.0)
        lines.append(f"{key} F1: {a:.4f} -> {b:.4f} ({b - a:+.4f})")
    return lines
