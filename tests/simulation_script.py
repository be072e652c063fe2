"""The script of the loopback LLM in the ``simulate`` tests: it plays the simulated user and the
judge from fixed answers, so every run of a test says the same thing.

The simulated user's answers are looked up by the scenario's goal (found in the system
prompt): each goal has a list of *plans* (the messages of one conversation, in order), and the
k-th conversation of that goal follows plan ``k % len(plans)`` — so "3 of 5 pass" is written
down, and a second run with a fresh script gives the same numbers. The judge answers from a
rule over the transcript it is shown.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from llm_peer import Reply, Request

Move = tuple[str, bool]
"""A user message and whether it is the last (``done``)."""


@dataclass
class Goal:
    plans: list[list[Move]]
    first: int = 0
    """How many messages the conversation had before the LLM's first turn (1 with ``start``)."""


@dataclass
class SimulationScript:
    goals: dict[str, Goal]
    judge: Callable[[str, str], tuple[float, str]] = lambda criterion, transcript: (0.9, "ok")
    """(criterion, transcript) → (score, reason); or raise to answer garbage."""
    judge_raw: str | None = None
    """When set, the judge answers this text as it is (e.g. not JSON)."""
    conversations: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: Request) -> Reply:
        messages = request.messages
        system = messages[0]["content"] if messages else ""
        if system.startswith("You judge"):
            if self.judge_raw is not None:
                return Reply(self.judge_raw)
            text = request.last_user
            criterion = text.split("Criterion:\n", 1)[1].split("\n\nConversation:", 1)[0]
            transcript = text.split("Conversation:\n", 1)[1]
            score, reason = self.judge(criterion, transcript)
            return Reply(json.dumps({"score": score, "reason": reason}))
        goal_text = system.split("What you want from this conversation:\n", 1)[1].split("\n", 1)[0]
        goal = self.goals[goal_text]
        position = sum(1 for m in messages if m["role"] == "assistant")
        with self.lock:
            if position == goal.first:
                self.conversations[goal_text] = self.conversations.get(goal_text, -1) + 1
            number = self.conversations[goal_text]
        plan = goal.plans[number % len(goal.plans)]
        text, done = plan[min(position - goal.first, len(plan) - 1)]
        return Reply(json.dumps({"message": text, "done": done}))
