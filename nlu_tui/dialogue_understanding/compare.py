"""Command comparison and command metrics, exactly as Rasa Pro 3.21 computes them.

Sources: ``rasa/dialogue_understanding_test/command_comparison.py``,
``command_metric_calculation.py``, ``command_metrics.py`` and ``du_test_result.py``.
The quirks are kept on purpose (README, "Dialogue understanding tests"):

- two lists are equal when they have the same length and every *expected* command is present
  among the predicted (so expected ``[A, A]`` equals predicted ``[A, B]``);
- a ``clarify`` with no options matches any ``clarify`` when it is the *first* argument, so
  in a failed test case a predicted ``clarify a b`` against an expected bare ``clarify`` is
  both a tp (expected found) and an fp (predicted not found);
- a passed test case counts all its expected commands as tp, without looking at predictions;
- only user steps with expected commands are evaluated and counted;
- metrics are keyed by the command type with spaces replaced by underscores; a type that was
  only predicted has total count 0, so it lowers macro F1 but not weighted F1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nlu_tui.dialogue_understanding.commands import CLARIFY, Command


def are_commands_equal(command_1: Command, command_2: Command) -> bool:
    """``command_1`` plays the expected part: a bare clarify matches any clarify."""
    if command_1.name == CLARIFY and command_2.name == CLARIFY and command_1.custom is None:
        if command_1.args:
            return sorted(str(a) for a in command_1.args) == sorted(str(a) for a in command_2.args)
        return True
    return command_1.same_as(command_2)


def is_command_present_in_list(command: Command, commands: Sequence[Command]) -> bool:
    return any(are_commands_equal(command, other) for other in commands)


def are_command_lists_equal(expected: Sequence[Command], predicted: Sequence[Command]) -> bool:
    if len(expected) != len(predicted):
        return False
    return all(is_command_present_in_list(command, predicted) for command in expected)


@dataclass
class CommandMetrics:
    """Counts of one command type and the scores Rasa derives from them (0 when undefined)."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    total_count: int = 0

    @staticmethod
    def _divide(numerator: float, denominator: float) -> float:
        return numerator / denominator if denominator > 0 else 0.0

    @property
    def precision(self) -> float:
        return self._divide(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return self._divide(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return self._divide(2 * p * r, p + r)

    def as_dict(self) -> dict[str, float]:
        """The keys and order of Rasa's ``CommandMetrics.as_dict``."""
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": self.precision,
            "recall": self.recall,
            "f1_score": self.f1,
            "total_count": self.total_count,
        }


@dataclass(frozen=True)
class StepOutcome:
    """What metrics need of one evaluated user step."""

    expected: Sequence[Command]
    predicted: Sequence[Command]

    @property
    def passed(self) -> bool:
        return are_command_lists_equal(self.expected, self.predicted)


@dataclass(frozen=True)
class CaseOutcome:
    """What metrics need of one test case: its user steps with expected commands, and whether
    it passed (a case passes when every such step passed)."""

    steps: Sequence[StepOutcome]
    passed: bool


def calculate_command_metrics(cases: Iterable[CaseOutcome]) -> dict[str, CommandMetrics]:
    """Rasa's ``calculate_command_metrics`` (dict order: first seen, as its defaultdict)."""
    metrics: dict[str, CommandMetrics] = {}

    def of(command: Command) -> CommandMetrics:
        return metrics.setdefault(command.metric_name, CommandMetrics())

    for case in cases:
        expected_all = [c for step in case.steps for c in step.expected]
        for command in expected_all:
            of(command).total_count += 1
        if case.passed:
            for command in expected_all:
                of(command).tp += 1
            continue
        for step in case.steps:
            for command in step.expected:
                if is_command_present_in_list(command, step.predicted):
                    of(command).tp += 1
                else:
                    of(command).fn += 1
            for command in step.predicted:
                if not is_command_present_in_list(command, step.expected):
                    of(command).fp += 1
    return metrics


def f1_macro(metrics: dict[str, CommandMetrics]) -> float:
    """Mean F1 over command types (0.0 for no types; Rasa divides by zero there)."""
    scores = [m.f1 for m in metrics.values()]
    return sum(scores) / len(scores) if scores else 0.0


def f1_micro(metrics: dict[str, CommandMetrics]) -> float:
    combined = CommandMetrics(
        tp=sum(m.tp for m in metrics.values()),
        fp=sum(m.fp for m in metrics.values()),
        fn=sum(m.fn for m in metrics.values()),
    )
    return combined.f1


def f1_weighted(metrics: dict[str, CommandMetrics]) -> float:
    """F1 weighted by each type's total (expected) count (0.0 when nothing was expected)."""
    total = sum(m.total_count for m in metrics.values())
    if total == 0:
        return 0.0
    return sum((m.total_count / total) * m.f1 for m in metrics.values())
