"""A DUT run's figures and its outputs: Rasa Pro's report dict, the console text, JUnit.

``summarise`` follows ``DialogueUnderstandingTestSuiteResult.from_results`` and ``to_dict``
(same keys and order, so a report reads like ``rasa test du``'s output file); ``console_lines``
follows ``print_test_results``. Latency ``total`` is the message round trip in seconds and
per-component latencies are the LLM's ``latency_ms``, both as Rasa reports them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from nlu_tui.dialogue_understanding.compare import (
    CommandMetrics,
    calculate_command_metrics,
    f1_macro,
    f1_micro,
    f1_weighted,
)
from nlu_tui.dut.model import DutCaseResult, StepPrediction

_EXCLUDED_COMPONENTS = {"EnterpriseSearchPolicy", "IntentlessPolicy", "ContextualResponseRephraser"}


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p90": 0.0, "p99": 0.0}
    import numpy as np

    return {f"p{q}": float(np.percentile(values, q)) for q in (50, 90, 99)}


def generators(prediction: StepPrediction) -> list[str]:
    """Components that predicted commands or got an LLM answer (sorted; Rasa's is a set)."""
    if prediction.output is None:
        return []
    names = {c for c, cs in prediction.output.commands.items() if cs}
    names |= {
        str(p.get("component_name"))
        for p in prediction.output.prompts
        if p.get("llm_response_metadata")
    }
    return sorted(names - _EXCLUDED_COMPONENTS)


def prompt_info(prediction: StepPrediction) -> dict[str, list[dict[str, Any]]]:
    """Rasa's ``get_component_name_to_prompt_info``."""
    if prediction.output is None:
        return {}
    relevant = set(generators(prediction))
    data: dict[str, list[dict[str, Any]]] = {}
    for prompt in prediction.output.prompts:
        component = str(prompt.get("component_name"))
        if component not in relevant:
            continue
        info: dict[str, Any] = {
            "prompt_name": prompt.get("prompt_name"),
            "user_prompt": prompt.get("user_prompt"),
        }
        meta = prompt.get("llm_response_metadata")
        meta = meta if isinstance(meta, dict) else {}
        if isinstance(meta.get("latency_ms"), int | float):
            info["latency_ms"] = meta["latency_ms"]
        if prompt.get("system_prompt"):
            info["system_prompt"] = prompt["system_prompt"]
        usage = meta.get("usage") or {}
        if isinstance(usage, dict):
            for key in ("prompt_tokens", "completion_tokens"):
                if usage.get(key):
                    info[key] = usage[key]
        choices = meta.get("choices")
        if choices:
            info["choices"] = choices[0]
        data.setdefault(component, []).append(info)
    return data


def failed_step(
    result: DutCaseResult, index: int, version: str, output_prompt: bool
) -> dict[str, Any]:
    """Rasa's ``FailedTestStep.to_dict`` plus ``conversation_with_diff`` for the console."""
    case = result.case
    step = case.steps[index]
    prediction = result.predictions.get(index, StepPrediction())
    conversation = [s.turn().readable() for s in case.steps[: index + 1]]
    predicted = prediction.output.commands if prediction.output else {}
    info: dict[str, Any] = {
        "file": case.file,
        "test_case": case.name,
        "conversation": conversation,
        "failed_user_utterance": step.text or "",
        "error_line": step.line if step.line is not None else -1,
        "pass_status": False,
        "expected_commands": [c.to_dsl(version) for c in step.commands],
        "predicted_commands": [
            {"component": comp, "commands": [c.to_dsl(version) for c in cs]}
            for comp, cs in predicted.items()
            if cs
        ],
        "command_generators": generators(prediction),
    }
    prompts = prompt_info(prediction)
    if prompts:
        if not output_prompt:
            for items in prompts.values():
                for item in items:
                    item.pop("user_prompt", None)
                    item.pop("system_prompt", None)
        info["prompts"] = prompts
    if prediction.error:
        info["error"] = prediction.error
    if prediction.not_evaluated:
        info["not_evaluated"] = prediction.not_evaluated
    if prediction.output is not None and prediction.output.history_note:
        info["history_note"] = prediction.output.history_note
    info["diff"] = command_comparison(
        info["expected_commands"], [c.to_dsl(version) for c in prediction.predicted()]
    )
    return info


def command_comparison(expected: list[str], predicted: list[str]) -> list[str]:
    """Rasa's ``get_command_comparison``: two columns, EXPECTED padded to its longest line."""
    left = ["---EXPECTED---", *expected]
    right = ["---PREDICTED---", *predicted]
    width = max(len(line) for line in left)
    rows = max(len(left), len(right))
    left += [""] * (rows - len(left))
    right += [""] * (rows - len(right))
    return [f"{a.ljust(width)} | {b}" for a, b in zip(left, right, strict=True)]


def summarise(
    results: Sequence[DutCaseResult], version: str, *, output_prompt: bool = False
) -> dict[str, Any]:
    """The report dict in the key order of Rasa's ``to_dict``."""
    passing = [r for r in results if r.passed]
    failing = [r for r in results if not r.passed]
    metrics = calculate_command_metrics(r.outcome() for r in failing + passing)
    statuses = [r.step_passed(i) for r in failing + passing for i in r.case.evaluated_steps()]
    n_cases = len(results)
    report: dict[str, Any] = {
        "accuracy": {
            "test_cases": len(passing) / n_cases if n_cases else 0.0,
            "user_utterances": sum(statuses) / len(statuses) if statuses else 0.0,
        },
        "f1_score": {
            "macro": f1_macro(metrics),
            "micro": f1_micro(metrics),
            "weighted_average": f1_weighted(metrics),
        },
        "number_of_passed_tests": len(passing),
        "number_of_failed_tests": len(failing),
        "number_of_passed_user_utterances": sum(statuses),
        "number_of_failed_user_utterances": len(statuses) - sum(statuses),
        "command_metrics": {name: m.as_dict() for name, m in metrics.items()},
    }
    latencies: dict[str, list[float]] = {}
    prompt_tokens: dict[str, list[float]] = {}
    completion_tokens: dict[str, list[float]] = {}
    for result in failing + passing:
        for prediction in result.predictions.values():
            if prediction.output is None or prediction.not_evaluated:
                continue  # a step not evaluated has no output in Rasa, so no latency
            if prediction.output.latency_ms:
                latencies.setdefault("total", []).append(prediction.output.latency_ms / 1000.0)
            for component, items in prompt_info(prediction).items():
                for item in items:
                    latencies.setdefault(component, []).append(item.get("latency_ms", 0.0))
                    prompt_tokens.setdefault(component, []).append(item.get("prompt_tokens", 0.0))
                    completion_tokens.setdefault(component, []).append(
                        item.get("completion_tokens", 0.0)
                    )
    report["latency"] = {k: _percentiles(v) for k, v in latencies.items()}
    report["prompt_token"] = {k: _percentiles(v) for k, v in prompt_tokens.items()}
    report["completion_token"] = {k: _percentiles(v) for k, v in completion_tokens.items()}
    report["names_of_passed_tests"] = [r.case.full_name for r in passing]
    report["names_of_failed_tests"] = [r.case.full_name for r in failing]
    report["failed_test_steps"] = [
        failed_step(r, i, r.case.dsl or version, output_prompt)
        for r in failing
        for i in r.failed_steps()
    ]
    errors = [
        {"test_case": r.case.full_name, "user_message": r.case.steps[i].text, "error": p.error}
        for r in results
        for i, p in sorted(r.predictions.items())
        if p.error
    ]
    if errors:
        report["errors"] = errors
    return report


def pad(text: str, char: str = "=", width: int = 80) -> str:
    """Rasa's ``pad`` at a fixed width (the terminal's when printing)."""
    padding = max(width - len(text) - 2, 6)
    return char * (padding // 2) + " " + text + " " + char * math.ceil(padding / 2)


def console_lines(
    report: dict[str, Any], *, output_prompt: bool = False, width: int = 80
) -> list[str]:
    """The console output of ``rasa test du`` (``print_test_results``), as plain lines."""
    out: list[str] = []
    passed, failed = report["number_of_passed_tests"], report["number_of_failed_tests"]
    if passed + failed == 0:
        return [pad("No test cases found.", "!", width)]
    if failed:
        out += ["", pad("FAILURES", "=", width)]
        groups: dict[str, list[dict[str, Any]]] = {}
        for step in report["failed_test_steps"]:
            groups.setdefault(f"{step['file']}::{step['test_case']}", []).append(step)
        for name, steps in groups.items():
            out += ["", pad(f"test_case: {name}", "-", width), ""]
            out.append(f"Number of failed steps: {len(steps)}")
            for step in steps:
                out += [
                    "",
                    f"== failure starting at user message '{step['failed_user_utterance']}'. ",
                ]
                out += ["", "-- COMMAND GENERATOR(s) --", *step["command_generators"]]
                if output_prompt and step.get("prompts"):
                    out += ["", "-- PROMPT(s) --"]
                    for component, items in step["prompts"].items():
                        out.append(component)
                        for item in items:
                            out.append(f"  prompt name      : {item.get('prompt_name')}")
                            out.append(f"  prompt tokens    : {item.get('prompt_tokens')}")
                            out.append(f"  completion tokens: {item.get('completion_tokens')}")
                            out.append(f"  latency (ms)     : {item.get('latency_ms')}")
                            if item.get("system_prompt"):
                                out.append(f"  system prompt    : {item['system_prompt']}")
                            out.append(f"  user prompt      : {item.get('user_prompt')}")
                out += ["", "-- CONVERSATION --", *step["conversation"], *step["diff"]]
                if step.get("error"):
                    out += ["", f"-- ERROR -- {step['error']}"]
                if step.get("not_evaluated"):
                    out += ["", f"-- NOT EVALUATED -- {step['not_evaluated']}"]
                if step.get("history_note"):
                    out += ["", f"-- HISTORY -- {step['history_note']}"]
                for component, items in (step.get("prompts") or {}).items():
                    for item in items:
                        if "choices" in item:
                            out += ["", f"-- LLM ouptut for {component} --", str(item["choices"])]
                            out.append("-------------")
    out += ["", pad("COMMANDS F1", "=", width)]
    f1 = report["f1_score"]
    out.append(f"macro           : {f1['macro']:.8f}")
    out.append(f"micro           : {f1['micro']:.8f}")
    out.append(f"weighted average: {f1['weighted_average']:.8f}")
    out += ["", pad("COMMAND METRICS", "=", width)]
    for name, m in report["command_metrics"].items():
        out.append(f"{name} ({m['total_count']} commands in total):")
        out.append(f"  tp: {m['tp']} fp: {m['fp']} fn: {m['fn']}")
        out.append(f"  precision: {m['precision']:.4f}")
        out.append(f"  recall   : {m['recall']:.4f}")
        out.append(f"  f1       : {m['f1_score']:.4f}")
    out += ["", pad("LATENCY METRICS", "=", width)]
    for component, values in report["latency"].items():
        out.append(f"--- {component} ---")
        out += [f"{k}: {v:.8f}" for k, v in values.items()]
    for title, key in (
        ("PROMPT TOKEN METRICS", "prompt_token"),
        ("COMPLETION TOKEN METRICS", "completion_token"),
    ):
        out.append(pad(title, "=", width))
        for component, values in report[key].items():
            out.append(f"--- {component} ---")
            out += [f"{k}: {v:.2f}" for k, v in values.items()]
    if report["names_of_passed_tests"]:
        out += ["", "passed test cases:", *[f"  {n}" for n in report["names_of_passed_tests"]]]
    if report["names_of_failed_tests"]:
        out += ["", "failed test cases:", *[f"  {n}" for n in report["names_of_failed_tests"]]]
    out.append("")
    out.append(_accuracy_line(passed, failed, "test cases", width))
    out.append(
        _accuracy_line(
            report["number_of_passed_user_utterances"],
            report["number_of_failed_user_utterances"],
            "user steps",
            width,
        )
    )
    return out


def _accuracy_line(passed: int, failed: int, kind: str, width: int) -> str:
    text = f"{failed} failed {kind}, {passed} passed {kind}"
    if passed > 0:
        text += f" (accuracy:  {passed / (passed + failed):.4f})"
    return pad(text, "=", width)


def metrics_from_report(report: dict[str, Any]) -> dict[str, CommandMetrics]:
    return {
        name: CommandMetrics(m["tp"], m["fp"], m["fn"], m["total_count"])
        for name, m in report.get("command_metrics", {}).items()
    }


def junit_xml(report: dict[str, Any], results: Sequence[DutCaseResult], suite_name: str) -> str:
    """One testcase per DUT test case; a failure lists its failed steps' diffs."""
    from xml.sax.saxutils import escape, quoteattr

    failed_steps: dict[str, list[dict[str, Any]]] = {}
    for step in report["failed_test_steps"]:
        failed_steps.setdefault(f"{step['file']}::{step['test_case']}", []).append(step)
    n_fail = report["number_of_failed_tests"]
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        f'<testsuites><testsuite name={quoteattr(suite_name)} tests="{len(results)}"'
        f' failures="{n_fail}" errors="0">',
    ]
    for result in results:
        name = result.case.full_name
        lines.append(
            f"<testcase classname={quoteattr(result.case.file)} name={quoteattr(result.case.name)}>"
        )
        if not result.passed:
            body = []
            for step in failed_steps.get(name, []):
                body.append(f"user message: {step['failed_user_utterance']}")
                body += step["diff"]
                if step.get("error"):
                    body.append(f"error: {step['error']}")
                for key in ("not_evaluated", "history_note"):
                    if step.get(key):
                        body.append(f"{key.replace('_', ' ')}: {step[key]}")
            count = len(failed_steps.get(name, []))
            lines.append(
                f"<failure message={quoteattr(f'{count} failed step(s)')}>"
                f"{escape(chr(10).join(body))}</failure>"
            )
        lines.append("</testcase>")
    lines.append("</testsuite></testsuites>")
    return "\n".join(lines) + "\n"
