"""The LLM judge of ``generative_response_is_relevant`` / ``_is_grounded`` assertions: the chat
model configured in ``settings.yaml`` (``llm:``, see :mod:`nlu_tui.engines.llm_config`) scores one
generative bot message from 0 to 1 and says why.

Rasa Pro's judge (``rasa/e2e_test/assertions.py``, ``utils/generative_assertions.py``) asks
its LLM for question variations (relevance: their mean cosine similarity to the user message,
by an embedding model) or for scored statements (groundedness: the share judged correct).
nlu-tui asks for the score itself, with one reason, so that any chat endpoint can judge
without an embedding model; the threshold compares the same way (``score < threshold`` fails).

A judge that cannot answer (endpoint error, no JSON, no score in 0..1) raises
:class:`~nlu_tui.conversation_assertions.JudgeError`: the test case is an error, never a
failure.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from nlu_tui.conversation_assertions import JudgeError, Verdict

if TYPE_CHECKING:
    from nlu_tui.engines.llm_config import LLMConfig

SYSTEM = (
    "You judge the answers of a chatbot. Reply with one JSON object and nothing else: "
    '{"score": <a number from 0 to 1>, "reason": "<one sentence>"}.'
)
RELEVANT = (
    "How relevant is the bot's answer to the user's message? 1 means it answers exactly what "
    "was asked, 0 that it is unrelated.\n\nUser message:\n{user}\n\nBot answer:\n{bot}"
)
GROUNDED = (
    "How far is every statement of the bot's answer supported by the ground truth? 1 means all "
    "of them are, 0 none.\n\nGround truth:\n{truth}\n\nBot answer:\n{bot}"
)


def prompt(metric: str, user_text: str, bot_text: str, ground_truth: str | None) -> str:
    if metric == "grounded":
        return GROUNDED.format(truth=ground_truth or "", bot=bot_text)
    return RELEVANT.format(user=user_text, bot=bot_text)


def parse_verdict(text: str) -> Verdict:
    """The judge's answer as a Verdict; JudgeError naming what is wrong with it."""
    from nlu_tui.engines.llm_answer_json import found, loose_json

    data: Any = loose_json(text, "{}")
    if not found(data) or not isinstance(data, dict):
        raise JudgeError(f"the LLM judge did not answer a JSON object: {text[:200]!r}")
    score = data.get("score")
    if not isinstance(score, int | float) or isinstance(score, bool) or math.isnan(score):
        raise JudgeError(f"the LLM judge's answer has no numeric 'score': {text[:200]!r}")
    if not 0.0 <= float(score) <= 1.0:
        raise JudgeError(f"the LLM judge's score {score} is outside 0..1")
    reason = data.get("reason")
    return Verdict(float(score), reason if isinstance(reason, str) else "")


class LLMJudge:
    """A judge over one chat endpoint (one request per judged message)."""

    def __init__(self, config: LLMConfig) -> None:
        self.config = config

    async def __call__(
        self, metric: str, user_text: str, bot_text: str, ground_truth: str | None
    ) -> Verdict:
        from nlu_tui.engines.llm_client import ChatClient
        from nlu_tui.engines.llm_config import LLMError

        messages = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": prompt(metric, user_text, bot_text, ground_truth)},
        ]
        try:
            async with ChatClient(self.config) as client:
                reply = await client.chat(messages)
        except LLMError as exc:
            raise JudgeError(f"the LLM judge failed: {exc}") from None
        return parse_verdict(reply.text)


def settings_judge() -> LLMJudge:
    """The judge of the LLM configured in ``settings.yaml`` (JudgeError when none is)."""
    from nlu_tui.engines.llm_config import LLMError, load_llm_config

    try:
        return LLMJudge(load_llm_config())
    except LLMError as exc:
        raise JudgeError(f"generative assertions need an LLM judge: {exc}") from None
