"""The simulated user and the criteria judge of ``nlu-tui simulate``, over the chat endpoint of
``settings.yaml`` (``llm:``, :mod:`nlu_tui.engines.llm_config`).

The simulated user works as Rasa Pro's (``rasa/builder/copilot/mcp_server/tools/
text_simulation.py`` and its ``simulated_user_system_prompt.jinja2``, Rasa Pro 3.21): a system
prompt holding the scenario (persona and goal), then one chat message per turn, "the
conversation is starting" first and then the bot's last answer; the model answers one JSON
object ``{"message": "...", "done": false}``. ``done: true`` ends the conversation after that
message is sent (an empty message is not sent). The prompt is nlu-tui's own wording.

A criterion is scored by the LLM judge of ``test e2e``'s generative assertions
(:mod:`nlu_tui.conversation.judge`: one JSON ``{"score": 0..1, "reason": "..."}``), given the
transcript; ``score >= 0.5`` passes (Rasa's criteria judge answers pass/fail; an answer with
a boolean ``passed`` and no score is read as 1 or 0). A model that cannot answer, or answers
something else, raises :class:`~nlu_tui.conversation_assertions.JudgeError`: the conversation
is an ERROR, never a pass or a fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nlu_tui.conversation_assertions import JudgeError, Verdict

if TYPE_CHECKING:
    from nlu_tui.engines.llm_client import ChatClient

CRITERION_THRESHOLD = 0.5

USER_SYSTEM = """\
You play a user of a chatbot, in a test. Stay in that role from the first message to the last.

Who you are:
{persona}

What you want from this conversation:
{goal}

How to behave:
- Write short, natural messages (one or two sentences), as a real user types them.
- Work towards your goal one step at a time; answer the bot's questions.
- Never say that you are simulated, an AI or following instructions.
- When your goal is reached, or the bot clearly cannot help, send a short closing message \
and set "done" to true.
- If the bot misunderstands you, rephrase once; do not repeat yourself endlessly.

Answer with one JSON object and nothing else:
{{"message": "<your next message to the bot>", "done": false}}"""
OPENING = "(The conversation starts now. Write your first message.)"
FOLLOW_UP = "Bot: {bot}\n\nYour reply, as the user:"
NO_PERSONA = "An ordinary user of this chatbot."

CRITERION = """\
Does the conversation below meet this criterion? Score 1 if it clearly does, 0 if it does \
not or the evidence is missing.

Criterion:
{criterion}

Conversation:
{transcript}"""


class SimulatorError(JudgeError):
    """The simulated user gave no usable next message (an ERROR, like a judge that fails)."""


@dataclass(frozen=True)
class UserMove:
    message: str
    done: bool


def user_system_prompt(persona: str, goal: str) -> str:
    return USER_SYSTEM.format(persona=persona or NO_PERSONA, goal=goal)


def parse_move(text: str) -> UserMove:
    from nlu_tui.engines.llm_answer_json import found, loose_json

    try:
        data: Any = loose_json(text, "{}")
    except ValueError:
        data = None
    if data is None or not found(data) or not isinstance(data, dict):
        raise SimulatorError(f"the simulated user did not answer a JSON object: {text[:200]!r}")
    message = data.get("message")
    done = data.get("done", False)
    if not isinstance(message, str) or not isinstance(done, bool):
        raise SimulatorError(
            "the simulated user's answer needs a text 'message' and a true/false 'done': "
            f"{text[:200]!r}"
        )
    return UserMove(message.strip(), done)


class SimulatedUser:
    """One simulated user for one conversation (it keeps its side of the chat)."""

    def __init__(self, client: ChatClient, persona: str, goal: str) -> None:
        self.client = client
        self.messages: list[dict[str, str]] = [
            {"role": "system", "content": user_system_prompt(persona, goal)}
        ]

    def said(self, text: str, bot_texts: Sequence[str] | None) -> None:
        """Record a message the user sent without the LLM (the scenario's ``start``)."""
        self.messages.append({"role": "user", "content": self._prompt(bot_texts)})
        self.messages.append({"role": "assistant", "content": text})

    @staticmethod
    def _prompt(bot_texts: Sequence[str] | None) -> str:
        if not bot_texts:
            return OPENING
        return FOLLOW_UP.format(bot=" ".join(bot_texts))

    async def next(self, bot_texts: Sequence[str] | None) -> UserMove:
        from nlu_tui.engines.llm_config import LLMError

        self.messages.append({"role": "user", "content": self._prompt(bot_texts)})
        try:
            reply = await self.client.chat(self.messages)
        except LLMError as exc:
            raise SimulatorError(f"the simulated user failed: {exc}") from None
        move = parse_move(reply.text)
        self.messages.append({"role": "assistant", "content": move.message})
        return move


def transcript_text(turns: Sequence[dict[str, Any]]) -> str:
    """The conversation as the judge reads it: ``User: ...`` / ``Bot: ...`` lines."""
    lines = []
    for turn in turns:
        if turn.get("user"):
            lines.append(f"User: {turn['user']}")
        for text in turn.get("bot") or []:
            lines.append(f"Bot: {text}")
    return "\n".join(lines) or "(no messages)"


def parse_criterion_verdict(text: str) -> Verdict:
    """The judge's verdict: ``score`` (0..1) and ``reason``; a boolean ``passed`` alone (Rasa's
    criteria judge) counts as 1 or 0."""
    from nlu_tui.conversation.judge import parse_verdict
    from nlu_tui.engines.llm_answer_json import found, loose_json

    try:
        data: Any = loose_json(text, "{}")
    except ValueError:
        data = None
    if isinstance(data, dict) and found(data) and "score" not in data:
        passed = data.get("passed")
        if isinstance(passed, bool):
            reason = data.get("reason", data.get("reasoning"))
            return Verdict(1.0 if passed else 0.0, reason if isinstance(reason, str) else "")
    return parse_verdict(text)


async def judge_criterion(client: ChatClient, criterion: str, transcript: str) -> Verdict:
    from nlu_tui.conversation.judge import SYSTEM
    from nlu_tui.engines.llm_config import LLMError

    messages = [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": CRITERION.format(criterion=criterion, transcript=transcript),
        },
    ]
    try:
        reply = await client.chat(messages)
    except LLMError as exc:
        raise JudgeError(f"the LLM judge failed: {exc}") from None
    return parse_criterion_verdict(reply.text)
