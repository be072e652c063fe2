"""Simulated-user scenarios (``nlu-tui simulate FILE --engine BOT --runs N``) on the run kernel.

Every simulated conversation is one item of the run (``file:line:name#k``, ``k`` = 1..N), so
the kernel's guarantees hold as for ``test e2e``: conversations stored as they finish, resume
(only the conversations not stored are held again), cancel within a second, notes, diff and
gates over the stored items. One conversation:

1. the scenario's ``reset:`` hook runs (a shell command or an HTTP call), before every repeat;
2. the session starts with the scenario's initial slots (``context:`` / Rasa's
   ``setup.initial_slots``), under a fresh sender id (or the scenario's ``sender_id``);
3. the user speaks: the scenario's ``start`` message first if it has one, then the simulated
   user (:mod:`nlu_tui.conversation.simulated_user`), until it says ``done``, the bot stays
   silent, or ``max_turns`` user messages were sent (as Rasa Pro's ``run_text_simulation``);
4. every assertion is checked against the whole conversation's events, then every criterion
   is scored by the LLM judge.

The conversation passes when every assertion and every criterion passes; it fails otherwise,
noting whether an assertion failed or only the judge did (``failure``: ``assertion`` /
``judge``); a simulated user or judge that errors, or a reset hook that fails, makes it an
ERROR (never a pass or a fail). An engine failure retries the whole conversation (new sender id).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nlu_tui.conversation_assertions import JudgeError
from nlu_tui.errors import InputError, NluTuiError
from nlu_tui.formats.scenarios import ResetHook, Scenario, ScenarioFile
from nlu_tui.run_kinds import RunKindInfo
from nlu_tui.runner.item_run import ItemProgress, ItemRun, ids_base, run_to_resume, unit_id
from nlu_tui.runner.kernel import Kernel, Sender, Work
from nlu_tui.runner.options import RunOptions
from nlu_tui.store.records import RunRecord, StoredItem
from nlu_tui.store.runstore import RunStore

SIMULATE_RUN = "simulate"
MAX_RUNS = 1000
RESET_TIMEOUT = 60.0


class ResetError(NluTuiError):
    """The ``reset:`` hook failed: the conversation is an ERROR."""


@dataclass(frozen=True)
class SimulateRequest:
    path: Path | None = None
    engine: str | None = None
    runs: int | None = None
    note: str = ""
    resume: str | None = None
    workspace: Path | None = None
    concurrency: int | None = None
    timeout: float | None = None
    retries: int | None = None


Progress = ItemProgress
"""A snapshot for the faces: counts so far, the conversation that just finished, and the
turn just taken (``live``: scenario name, repeat and the turn's user/bot texts)."""


@dataclass
class Units:
    scenarios: ScenarioFile
    base: Path | None = None
    order: list[Scenario] = field(default_factory=list)

    def scenario_id(self, scenario: Scenario) -> str:
        return unit_id(scenario.file, scenario.line, scenario.name, self.base)


def item_id(scenario_id: str, repeat: int) -> str:
    return f"{scenario_id}#{repeat}"


async def run_reset(hook: ResetHook, client: Any, timeout: float = RESET_TIMEOUT) -> str:
    """Run the hook; a one-line description of what it did. ResetError when it failed."""
    if hook.command is not None:
        proc = await asyncio.create_subprocess_shell(
            hook.command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            async with asyncio.timeout(timeout):
                _, err = await proc.communicate()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            raise ResetError(f"reset command did not finish within {timeout:g} s") from None
        except asyncio.CancelledError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            raise
        if proc.returncode != 0:
            tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] if err else []
            detail = f": {tail[0][:200]}" if tail else ""
            raise ResetError(f"reset command exited with {proc.returncode}{detail}")
        return "reset: command exited 0"
    import httpx

    from nlu_tui.engines.httpcall import safe_url

    assert hook.url is not None
    try:
        response = await client.request(
            hook.method,
            hook.url,
            json=hook.body,
            timeout=timeout,
        )
    except httpx.HTTPError as exc:
        from nlu_tui.engines.transport_errors import transport_reason

        raise ResetError(f"reset call failed: {transport_reason(exc)}") from None
    if response.status_code >= 400:
        raise ResetError(
            f"reset call {hook.method} {safe_url(hook.url)} answered HTTP {response.status_code}"
        )
    return f"reset: {hook.method} {safe_url(hook.url)} → {response.status_code}"


def _bot_texts(turn: Any) -> list[str]:
    return [e.text or "" for e in turn.bot_events() if e.text is not None]


class SimulateRun(ItemRun):
    """One run (new or resumed) of simulated conversations: the run kernel's strategy (with
    the bookkeeping of :class:`~nlu_tui.runner.item_run.ItemRun`) and the faces' handle.
    ``prepare()`` registers it; ``await execute()`` runs it."""

    kind = SIMULATE_RUN

    def __init__(
        self,
        request: SimulateRequest,
        units: Units,
        resolved: Any,
        store: RunStore,
        options: RunOptions,
        runs: int,
        llm: Any,
        *,
        previous: RunRecord | None = None,
        path: Path,
    ) -> None:
        self._init_items(store, options, previous)
        self.request = request
        self.units = units
        self.resolved = resolved
        self.engine = resolved.engine
        self.runs = runs
        self.llm = llm
        """The LLMConfig of the simulated user and the judge (None: not needed)."""
        self.path = path
        self.note = request.note
        self._client: Any = None
        self._chat: Any = None
        self.kernel = Kernel(self)

    # --- the strategy -----------------------------------------------------------------------

    def digest(self) -> str:
        return self.units.scenarios.digest

    def stored_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"runs": self.runs}
        if self.llm is not None:
            options["llm"] = self.llm.describe()
        return options

    def pending(self, stored: list[StoredItem]) -> list[Work]:
        done = {i.item_id for i in stored}
        out = []
        for index, scenario in enumerate(self.units.order):
            sid = self.units.scenario_id(scenario)
            for repeat in range(1, self.runs + 1):
                work = Work(
                    index * self.runs + repeat - 1, item_id(sid, repeat), (scenario, repeat)
                )
                if work.item_id not in done:
                    out.append(work)
        return out

    def total(self) -> int:
        return len(self.units.order) * self.runs

    async def open(self, client: Any) -> None:
        self._client = client
        await self.engine.open(client)
        if self.llm is not None:
            from nlu_tui.engines.llm_client import ChatClient

            self._chat = ChatClient(self.llm)

    async def close(self) -> None:
        if self._chat is not None:
            with contextlib.suppress(Exception):
                await self._chat.aclose()
        await self.engine.close()

    async def send(self, work: Work, sender: Sender) -> StoredItem:
        """Hold one simulated conversation. An engine failure escapes (the kernel retries the
        whole conversation); the simulated user, the judge or the reset failing is an ERROR."""
        from nlu_tui.conversation.service import DeadlinedConversation
        from nlu_tui.conversation.simulated_user import SimulatorError

        scenario, repeat = work.item
        assert self.record is not None
        began = time.perf_counter()
        sender_id = scenario.sender_id or (
            f"nlu-tui-sim-{self.record.id[:8]}-{work.seq}-{uuid.uuid4().hex[:8]}"
        )
        data: dict[str, Any] = {
            "name": scenario.name,
            "scenario": self.units.scenario_id(scenario),
            "file": scenario.file,
            "line": scenario.line,
            "repeat": repeat,
            "sender_id": sender_id,
            "turns": [],
            "assertions": [],
            "criteria": [],
        }

        def item(outcome: str) -> StoredItem:
            return StoredItem(
                work.item_id, work.seq, outcome, (time.perf_counter() - began) * 1000, data
            )

        try:
            if scenario.reset is not None:
                data["reset"] = await run_reset(scenario.reset, self._client)
            conversation = DeadlinedConversation(self.engine.conversation(sender_id), sender)
            events = await self._converse(conversation, scenario, repeat, data)
            await self._check(scenario, events, data)
        except JudgeError as exc:
            data["error"] = str(exc)
            data["error_kind"] = "simulator" if isinstance(exc, SimulatorError) else "judge"
            return item("error")
        except ResetError as exc:
            data["error"] = str(exc)
            data["error_kind"] = "reset"
            return item("error")
        failed_assertions = [a for a in data["assertions"] if not a["passed"]]
        failed_criteria = [c for c in data["criteria"] if not c["passed"]]
        if failed_assertions:
            data["failure"] = "assertion"
        elif failed_criteria:
            data["failure"] = "judge"
        return item("failed" if failed_assertions or failed_criteria else "passed")

    async def _converse(
        self, conversation: Any, scenario: Scenario, repeat: int, data: dict[str, Any]
    ) -> list[Any]:
        from nlu_tui.conversation.simulated_user import SimulatedUser

        start = await conversation.begin(scenario.slots)
        if scenario.sender_id is not None:
            # A returning user's tracker holds the earlier conversations: not this one's.
            start = replace(start, events=[])
        turns = data["turns"]
        events = list(start.events)
        bot = _bot_texts(start)
        turns.append({"user": None, "bot": bot, **_turn_data(start)})
        user = (
            SimulatedUser(self._chat, scenario.persona, scenario.goal)
            if self._chat is not None
            else None
        )
        data["stopped"] = "max_turns"
        for number in range(scenario.max_turns):
            if number == 0 and scenario.start is not None:
                text, done = scenario.start, False
                if user is not None:
                    user.said(text, bot)
            else:
                assert user is not None
                move = await user.next(bot)
                text, done = move.message, move.done
            if not text:
                data["stopped"] = "done"
                break
            turn = await conversation.send(text)
            events.extend(turn.events)
            bot = _bot_texts(turn)
            turns.append({"user": text, "bot": bot, **_turn_data(turn)})
            self._live(scenario, repeat, text, bot)
            if done:
                data["stopped"] = "done"
                break
            if not bot:
                data["stopped"] = "bot_silent"
                break
        return events

    async def _check(self, scenario: Scenario, events: list[Any], data: dict[str, Any]) -> None:
        from nlu_tui.conversation.simulated_user import (
            CRITERION_THRESHOLD,
            judge_criterion,
            transcript_text,
        )
        from nlu_tui.conversation_assertions import TurnEvents, is_calm, run_step

        judge = None
        if self.llm is not None and scenario.needs_judge():
            from nlu_tui.conversation.judge import LLMJudge

            judge = LLMJudge(self.llm)
        users = [t["user"] for t in data["turns"] if t.get("user")]
        calm = is_calm(events)
        for assertion in scenario.assertions:
            ev = TurnEvents(events, [], 0, users[-1] if users else "", calm, judge)
            results = await run_step([assertion], ev, ordered=False)
            data["assertions"].append(results[0].as_dict())
        if scenario.criteria:
            assert self._chat is not None
            transcript = transcript_text(data["turns"])
            for criterion in scenario.criteria:
                verdict = await judge_criterion(self._chat, criterion.text, transcript)
                data["criteria"].append(
                    {
                        "criterion": criterion.text,
                        "line": criterion.line,
                        "score": verdict.score,
                        "reason": verdict.reason,
                        "passed": verdict.score >= CRITERION_THRESHOLD,
                    }
                )

    def _live(self, scenario: Scenario, repeat: int, text: str, bot: list[str]) -> None:
        live = {"scenario": scenario.name, "repeat": repeat, "user": text, "bot": bot}
        self.progress(None, live=live)

    def failed(self, work: Work, reason: str, latency_ms: float) -> StoredItem:
        scenario, repeat = work.item
        return StoredItem(
            work.item_id,
            work.seq,
            "error",
            latency_ms,
            {
                "name": scenario.name,
                "scenario": self.units.scenario_id(scenario),
                "file": scenario.file,
                "line": scenario.line,
                "repeat": repeat,
                "error": reason,
                "error_kind": "engine",
                "turns": [],
                "assertions": [],
                "criteria": [],
            },
        )

    def summary(self) -> dict[str, Any]:
        from nlu_tui.conversation.simulate_report import scenario_summary

        assert self.record is not None
        summary: dict[str, Any] = {
            **self.figures(),
            "runs": self.runs,
        }
        with contextlib.suppress(Exception):
            summary["scenarios"] = scenario_summary(self.store.load_items(self.record.id))
        return summary

    def error_reason(self, errors: int) -> str:
        return f"{errors} conversation(s) ended in an error"


def _turn_data(turn: Any) -> dict[str, Any]:
    data: dict[str, Any] = turn.as_dict()
    data.pop("user", None)
    return data


SIMULATE_RUN_KIND = RunKindInfo(
    SIMULATE_RUN, "simulated users: scenarios judged", SimulateRun, "nlu-tui simulate"
)
"""The simulate kind in the run-kinds registry (:mod:`nlu_tui.run_kinds`)."""


def load_units(path: Path) -> Units:
    from nlu_tui.formats import scenarios

    data = scenarios.read_path(path)
    return Units(data, base=ids_base(path), order=list(data.scenarios))


def _llm_for(units: Units) -> Any:
    """The LLM configuration when a scenario needs one; InputError naming the first scenario
    (its file, line and field) that does when none is configured."""
    from nlu_tui.engines.llm_config import LLMError, load_llm_config

    needing = [s for s in units.order if s.needs_judge() or s.needs_user_llm()]
    if not needing:
        return None
    try:
        return load_llm_config()
    except LLMError as exc:
        first = needing[0]
        reason = str(exc).splitlines()[0]
        if first.criteria:
            raise InputError(
                f"scenario '{first.name}': its criteria are judged by an LLM, and {reason}",
                path=first.file,
                line=first.criteria[0].line,
                field="criteria",
            ) from None
        if first.needs_judge():
            line = next(a.line for a in first.assertions if a.type.startswith("generative_"))
            raise InputError(
                f"scenario '{first.name}': generative assertions need an LLM judge, and {reason}",
                path=first.file,
                line=line,
                field="assertions",
            ) from None
        raise InputError(
            f"scenario '{first.name}': an LLM plays the user, and {reason}",
            path=first.file,
            line=first.line,
            field="goal",
        ) from None


def open_simulate_run(
    request: SimulateRequest, store: RunStore, *, options: RunOptions | None = None
) -> SimulateRun:
    """Check the request, read the scenarios, resolve the engine and the LLM: a run ready to
    execute. Bad input raises InputError before anything is stored or sent."""
    from nlu_tui.engines.conversation import ConversationEngine
    from nlu_tui.engines.profiles import resolve_engine

    previous: RunRecord | None = None
    path = request.path
    engine_spec = request.engine
    runs = request.runs
    if request.resume:
        previous = run_to_resume(store, request.resume, SIMULATE_RUN)
        path = path or (Path(previous.suite_path) if previous.suite_path else None)
        engine_spec = engine_spec or previous.engine_name
        runs = int(previous.options.get("runs") or 1)  # a resume repeats as it was started
    if path is None:
        raise InputError("give the scenario file or folder", field="FILE")
    if not engine_spec:
        raise InputError("give the bot to test (--engine)", field="--engine")
    runs = 1 if runs is None else runs
    if not 1 <= runs <= MAX_RUNS:
        raise InputError(f"must be between 1 and {MAX_RUNS}", field="--runs")
    if request.concurrency is not None and request.concurrency < 1:
        raise InputError("must be at least 1", field="--concurrency")
    units = load_units(path)
    if previous is not None and previous.suite_hash != units.scenarios.digest:
        raise InputError(
            f"the scenario files changed since run {previous.id}; start a new run instead",
            path=path,
            field="--resume",
        )
    llm = _llm_for(units)
    resolved = resolve_engine(
        engine_spec, path if path.is_file() else None, workspace=request.workspace
    )
    engine = resolved.engine
    if not engine.capabilities.conversation or not isinstance(engine, ConversationEngine):
        raise InputError(
            f"engine {resolved.name!r} ({engine.type_name}) cannot hold a conversation",
            field="--engine",
        )
    base = options or RunOptions()
    base = base.with_settings(resolved.settings) if options is None else base
    # One conversation at a time unless asked: a reset hook or a fixed sender id holds state
    # that conversations side by side would share.
    changes: dict[str, Any] = {"concurrency": 1, "repeat": 1}
    for name in ("concurrency", "timeout", "retries"):
        value = getattr(request, name)
        if value is not None:
            changes[name] = value
    if previous is not None and request.concurrency is None:
        changes["concurrency"] = int(previous.options.get("concurrency") or 1)
    secrets = tuple(getattr(resolved, "secrets", None) or ())
    if llm is not None:
        secrets = (*secrets, *llm.secrets)
    opts = replace(base, secrets=(*base.secrets, *secrets), **changes)
    return SimulateRun(
        request, units, resolved, store, opts, runs, llm, previous=previous, path=path
    )
