"""A run's answers as NLU.DevOps generic utterances: the *actual* file of ``compare``.

``nlu-tui show RUN -f nludevops -o results.json`` writes what ``dotnet nlu test`` would have
written for the run: one utterance per case, in case order, so ``nlu-tui compare -e
expected.json -a results.json`` (expected from ``nlu-tui export SUITE -f nludevops``) works on
any stored run. Each answer is the bridge's actual utterance (``compare.bridge.result_json``),
the very one ``nlu-tui run --baseline/--thresholds`` gates on. A case whose prediction is an
engine error (or missing) is written with ``"intent": null`` and its error under ``nluTui``
(NLU.DevOps keeps unknown properties and reads it as "no intent"); ``nlu-tui compare`` leaves
such pairs out, as the run's own gates do (unless the settings say ``nluTui: {ownFields:
ignore}``, where both count it as an answer without intent).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nlu_tui.fileio import atomic_write_text
from nlu_tui.model import Prediction, TestCase
from nlu_tui.reports.common import ResultRow, RunMeta
from nlu_tui.reports.prepared import PreparedRun


def result_json(case: TestCase, prediction: Prediction | None) -> dict[str, Any]:
    """One case's answer as a generic utterance (``compare.bridge.result_json``)."""
    from nlu_tui.compare.bridge import result_json as bridged

    return bridged(case, prediction)


def nludevops_rows(prepared: PreparedRun, meta: RunMeta, lo: int, hi: int) -> list[dict[str, Any]]:
    """Rows ``lo``..``hi`` as generic utterances (plain dicts: they pickle)."""
    return [result_json(case, prediction) for case, prediction, _r in prepared.rows[lo:hi]]


def render_nludevops_results(rows: Sequence[ResultRow]) -> str:
    """The whole file: a JSON array, two-space indented, UTF-8 text kept as is."""
    return json.dumps([result_json(c, p) for c, p, _r in rows], indent=2, ensure_ascii=False) + "\n"


def write_nludevops_parts(
    path: Path, prepared: PreparedRun, meta: RunMeta, parts: Sequence[list[dict[str, Any]]]
) -> list[Path]:
    items = [item for part in parts for item in part]
    atomic_write_text(Path(path), json.dumps(items, indent=2, ensure_ascii=False) + "\n")
    return [Path(path)]
