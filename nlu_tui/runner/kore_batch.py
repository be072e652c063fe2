"""A suite run on Kore.ai's own batch testing (``--engine kore-batch:PROFILE``).

Why a suite run and not a new kind: the answers are per case like any suite run's, and storing
them as the ``suite`` kind's ``results`` rows is what lets history, diff, gates and exports
read the run unchanged. Only where the answers come from differs, so :class:`KoreBatchRun` is
the suite strategy with another ``open`` and ``send``:

- ``open`` (the kernel's opening phase: it can be canceled, and a failure fails the run) does
  the whole remote batch: the suite in Kore.ai's JSON is uploaded and imported as a suite of its
  own (``nlu-tui <run id>``), the batch test started for the run's version (Batch Test
  Execution), its status polled with progress until ``completed`` (or ``failed``, or the
  deadline), then the result CSV downloaded and read into one answer per case. The remote
  suite name and request id are kept in the run's options as soon as Kore.ai gives them, so a
  resumed run polls the **same** execution instead of starting another. A canceled run (or one
  past its deadline) deletes the remote execution (Delete Batch Test Suite Execution).
- ``send`` hands the kernel the case's answer read from the CSV: no request per case. The
  kernel scores it with our scoring as it would any answer, persists it as it arrives and
  resumes only what is not stored.

Kore.ai's verdict per case (its Result Type) is kept in the answer's raw data; where it differs
from our scoring of the same answer, the run's options list the case with both verdicts and the
rule each applies (Batch Testing page, "Result Type"; metric-semantics §1.3).
"""

from __future__ import annotations

import asyncio
import csv
import io
import re
import time
from collections import defaultdict, deque
from typing import Any

from nlu_tui.engines.kore import KoreEngine
from nlu_tui.engines.kore_platform import KoreApiError, KorePlatform
from nlu_tui.formats.kore_common import THRESHOLD_KEYS
from nlu_tui.model import PredictedEntity, Prediction, ResultType
from nlu_tui.runner.kernel import Ending, Halt, KernelState, Sender, Work
from nlu_tui.runner.run import Run
from nlu_tui.store.records import RunRecord

PREFIX = "kore-batch:"
OPTIONS_KEY = "kore_batch"
RULES = {
    "TP": "the matched intent is one of the expected intents",
    "TN": "no intent was expected and none matched",
    "FP": "an intent matched that is not the expected one",
    "FN": "an intent was expected and none matched",
    "ERROR": "the case errored",
}
_SCORE = re.compile(r"(ML|FM|KG|FAQ)\s*:\s*(-?[0-9.]+)", re.IGNORECASE)


THRESHOLD_SET = frozenset(THRESHOLD_KEYS)


def threshold_setting(header: list[list[str]]) -> list[list[list[str]]]:
    """The NLP thresholds the bot applied, from the header block of Kore.ai's result CSV.

    The block follows the ``Threshold Setting`` row: one ``key, value`` row per setting, a
    ``mode`` row opening each NL engine's settings (ml, faq, cs). Returns one list of
    ``[key, value]`` pairs per engine, in the file's order; empty when the file has no block
    (a report from before Kore.ai 7.3)."""
    blocks: list[list[list[str]]] = []
    inside = False
    for row in header:
        key = row[0].strip() if row else ""
        if key == "Threshold Setting":
            inside = True
            continue
        if not inside:
            continue
        if key not in THRESHOLD_SET:
            if blocks or key:  # the first row after the block ends it
                break
            continue
        value = row[1].strip() if len(row) > 1 else ""
        if key == "mode" or not blocks:
            blocks.append([])
        blocks[-1].append([key, value])
    return blocks


def batch_spec(spec: str | None) -> str | None:
    """The profile name of a ``kore-batch:PROFILE`` engine spec (None for any other spec)."""
    if spec and spec.startswith(PREFIX):
        return spec[len(PREFIX) :].strip()
    return None


class KoreBatchRun(Run):
    """The suite strategy whose answers come from one Kore.ai batch test (see the module)."""

    poll_seconds = 5.0
    deadline_seconds = 3600.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        public = dict(self.resolved.profile_public)
        self.poll_seconds = float(public.get("batch_poll_seconds") or self.poll_seconds)
        self.deadline_seconds = float(public.get("batch_deadline_seconds") or self.deadline_seconds)
        self._answers: dict[str, Prediction] = {}
        self._remote: str | None = None
        self._bot: dict[str, str] = {}
        self._thresholds: list[list[list[str]]] = []
        self.disagreements: list[dict[str, str]] = []

    @property
    def platform(self) -> KorePlatform:
        assert isinstance(self.engine, KoreEngine)
        profile = str(self.resolved.name)[len(PREFIX) :]
        return KorePlatform(self.engine, profile)

    # --- the remote batch -----------------------------------------------------------------

    async def open(self, client: Any) -> None:
        await self.engine.open(client)
        if not self._pending:
            return
        assert self.record is not None
        platform = self.platform
        state = dict(self.record.options.get(OPTIONS_KEY) or {})
        name = str(state.get("suite") or f"nlu-tui {self.record.id}")
        request_id = state.get("request_id")
        if not isinstance(request_id, str) or not request_id:
            from nlu_tui.formats import kore_json
            from nlu_tui.model import Suite

            text, _warnings = kore_json.dumps(Suite(name=name, cases=list(self._cases)))
            await platform.import_suite(name, text.encode("utf-8"), update=False)
            request_id = await platform.start(name, self.stage)
            state = {"suite": name, "request_id": request_id, "version": self.stage}
            self.record = self.store.update_options(self.record.id, {OPTIONS_KEY: state})
        try:
            url = await self._poll(platform, name, request_id)
        except (asyncio.CancelledError, KoreApiError):
            await asyncio.shield(self._delete(platform, name, request_id))
            raise
        data = await platform.download(url)
        self._read_result(data)

    async def _poll(self, platform: KorePlatform, name: str, request_id: str) -> str:
        began = time.monotonic()
        while True:
            status = await platform.status(name, request_id)
            pct = round(100 * status.ran / status.total) if status.total else 0
            self._remote = (
                f"Kore.ai batch test {request_id}: {status.status}, "
                f"{status.ran}/{status.total} utterances ({pct}%)"
            )
            if status.status == "completed":
                if not status.file_url:
                    raise KoreApiError(
                        "Kore.ai Batch Test Execution Status API: completed without a fileUrl"
                    )
                return status.file_url
            if status.status not in ("running", "accepted", "queued", "inprogress"):
                raise KoreApiError(
                    f"Kore.ai Batch Test Execution Status API: the execution {request_id} "
                    f"ended {status.status}"
                )
            if time.monotonic() - began > self.deadline_seconds:
                raise KoreApiError(
                    f"Kore.ai batch test {request_id} did not finish in "
                    f"{self.deadline_seconds:g} s (batch_deadline_seconds)"
                )
            await asyncio.sleep(self.poll_seconds)

    async def _delete(self, platform: KorePlatform, name: str, request_id: str) -> None:
        try:
            await platform.delete_execution(name, request_id)
        except KoreApiError:
            return
        if self.record is not None:
            state = {**dict(self.record.options.get(OPTIONS_KEY) or {}), "deleted": True}
            self.record = self.store.update_options(self.record.id, {OPTIONS_KEY: state})

    def _read_result(self, data: bytes) -> None:
        """The result CSV's per-utterance rows, matched to the cases by utterance in order."""
        rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig", errors="replace"))))
        start = next(
            (
                i
                for i, row in enumerate(rows)
                if row and row[0].strip() in ("Utterance", "Utterances") and "Result Type" in row
            ),
            None,
        )
        if start is None:
            raise KoreApiError("Kore.ai batch test result: no 'Utterance' header row in the CSV")
        for row in rows[:start]:  # the header block: the bot's own name and language
            if len(row) >= 2 and row[0].strip() in ("Bot Name", "Bot Language"):
                self._bot[row[0].strip()] = row[1].strip()
        self._thresholds = threshold_setting(rows[:start])
        header = [h.strip() for h in rows[start]]
        col = {h: i for i, h in enumerate(header)}
        found: dict[str, deque[Prediction]] = defaultdict(deque)
        current: Prediction | None = None

        def cell(row: list[str], key: str) -> str:
            i = col.get(key)
            return row[i].strip() if i is not None and i < len(row) else ""

        for row in rows[start + 1 :]:
            if not any(c.strip() for c in row):
                continue
            utterance = row[col[header[0]]] if row else ""
            if utterance.strip():
                current = _answer(row, cell)
                found[utterance.strip()].append(current)
            if current is not None and cell(row, "Entity Name"):
                name = cell(row, "Entity Name")
                matched = cell(row, "Matched EntityValue")
                verdicts = current.raw["kore_batch"]["entity_results"]
                verdicts.append({"name": name, "result": cell(row, "Entity Result")})
                if matched:
                    current.entities.append(PredictedEntity(name=name, value=matched))
        for case in self._cases:
            queue = found.get(case.utterance.strip())
            if queue:
                self._answers[case.id] = queue.popleft()

    # --- one case -------------------------------------------------------------------------

    async def send(self, work: Work, sender: Sender) -> Prediction:
        answer = self._answers.get(work.item_id)
        if answer is None:
            return Prediction(error="Kore.ai's batch test result has no row for this utterance")
        return answer

    def arrive(self, work: Work, answer: Prediction) -> tuple[Halt, str | None] | None:
        halt = super().arrive(work, answer)
        stored = self._buffer[-1] if self._buffer else None
        if stored is not None and isinstance(answer.raw, dict) and "kore_batch" in answer.raw:
            theirs = str(answer.raw["kore_batch"].get("result_type") or "")
            ours = stored[2].result.value
            if theirs and theirs != ours:
                self.disagreements.append(
                    {
                        "case": work.item_id,
                        "utterance": work.item.utterance,
                        "kore": theirs,
                        "kore_rule": RULES.get(theirs, "?"),
                        "ours": ours,
                        "our_rule": RULES.get(ours, "?"),
                    }
                )
        return halt

    def finish(self, ending: Ending) -> RunRecord:
        if self.record is not None:
            state = dict(self.record.options.get(OPTIONS_KEY) or {})
            state["disagreements"] = self.disagreements
            if self._bot.get("Bot Name"):
                state["bot_name"] = self._bot["Bot Name"]
            if self._bot.get("Bot Language"):
                state["bot_language"] = self._bot["Bot Language"]
            if self._thresholds:
                state["thresholds"] = self._thresholds
            self.store.update_options(self.record.id, {OPTIONS_KEY: state})
        return super().finish(ending)

    def emit(self, state: KernelState, *, final: bool, record: RunRecord | None) -> None:
        if self.on_progress is None:
            super().emit(state, final=final, record=record)
            return
        callback = self.on_progress

        def tagged(event: Any) -> None:
            event.remote = self._remote
            callback(event)

        self.on_progress = tagged
        try:
            super().emit(state, final=final, record=record)
        finally:
            self.on_progress = callback


def disagreement_lines(record: RunRecord) -> list[str]:
    """Kore.ai's verdict and ours side by side, for every case where they differ, each with
    the rule it applies (empty for a run that is not kore-batch or where they agree)."""
    state = record.options.get(OPTIONS_KEY)
    found = state.get("disagreements") if isinstance(state, dict) else None
    if not isinstance(found, list) or not found:
        return []
    lines = [
        f"Kore.ai's verdict differs from nlu-tui's scoring on {len(found)} case(s) "
        "(a bug on one side):",
        f"  {'utterance':<40} {'Kore.ai':<8} {'nlu-tui':<8} rules",
    ]
    for item in found:
        text = str(item.get("utterance", ""))
        short = text if len(text) <= 40 else text[:39] + "…"
        lines.append(
            f"  {short:<40} {item.get('kore', ''):<8} {item.get('ours', ''):<8} "
            f"Kore.ai: {item.get('kore_rule', '')}; nlu-tui: {item.get('our_rule', '')}"
        )
    return lines


def _answer(row: list[str], cell: Any) -> Prediction:
    matched = cell(row, "Matched Intent")
    scores = {
        m.group(1).upper(): float(m.group(2))
        for m in _SCORE.finditer(cell(row, "Matched Intent's Score"))
    }
    scores = {("KG" if k == "FAQ" else k): v for k, v in scores.items()}
    verdict = cell(row, "Result Type").upper()
    return Prediction(
        intent=matched or None,
        confidence=next(iter(scores.values()), None) if matched else None,
        raw={
            "kore_batch": {
                "result_type": verdict if verdict in ResultType.__members__ else "",
                "task_state": cell(row, "Task State"),
                "matched_score": cell(row, "Matched Intent's Score"),
                "elimination": cell(row, "Elimination Info"),
                "entity_results": [],
            }
        },
        task_state=cell(row, "Task State") or None,
        engine_scores={matched: scores} if matched and scores else {},
    )
