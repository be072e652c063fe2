"""An LLM command generator for dialogue understanding tests: any OpenAI-compatible chat
endpoint prompted with the flows, their slots and the conversation so far, answering in Rasa
Pro's V2 command DSL, so teams compare prompts and models with ``nlu-tui test du`` as seed 003
describes.
::

    engines:
      gpt-commands:
        type: llm-commands
        flows: data/flows.yml                  # omitted: the flows `test du` finds (--flows)
        base_url: http://127.0.0.1:11434/v1    # omitted: the llm: entry of the user settings
        model: llama3.1
        api_key: ${OPENAI_API_KEY}

The prompt is :func:`nlu_tui.engines.llm_command_prompt.render_prompt`; the answer is read one command
per line with the V2 parser (commands naming an unknown flow are dropped, as Rasa Pro does).
Each step's prompt, answer, latency and token usage are recorded in Rasa Pro's ``prompts``
shape, so ``--output-prompt`` and the token metrics show them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.engines.base import Capabilities, Engine, ParseContext, register
from nlu_tui.engines.command_api import CommandEngine, CommandOutput, CommandRequest
from nlu_tui.engines.llm import endpoint_config
from nlu_tui.engines.llm_client import ChatClient
from nlu_tui.engines.llm_command_prompt import parse_answer, render_prompt
from nlu_tui.errors import EngineError, InputError

if TYPE_CHECKING:
    import httpx

    from nlu_tui.dialogue_understanding.flows import Flows
    from nlu_tui.model import Prediction

COMPONENT = "LLMCommandGenerator"
"""The component name the predictions are recorded under (Rasa Pro's class name)."""
PROMPT_NAME = "command_generator_prompt"


@register("llm-commands")
class LLMCommandGenerator(Engine, CommandEngine):
    """Settings: ``flows`` (optional), the endpoint (``base_url``, ``model``, ``api_key``,
    ``temperature``, ``max_tokens``, ``headers``, ``timeout``; default: the user settings'
    ``llm:`` entry)."""

    type_name = "llm-commands"
    capabilities = Capabilities(http=True, commands=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.llm = endpoint_config(settings, "llm-commands engine")
        raw = settings.get("flows")
        self.flows_path = Path(str(raw)).expanduser() if raw else None
        self.flows: Flows | None = None
        self._client: ChatClient | None = None

    @property
    def secrets(self) -> list[str]:
        return self.llm.secrets

    def use_flows(self, flows: Flows) -> None:
        """The flows ``test du`` found (``--flows`` or beside the tests), unless the profile
        names its own."""
        if self.flows_path is None:
            self.flows = flows

    async def open(self, client: httpx.AsyncClient | None) -> None:
        if self.flows is None and self.flows_path is not None:
            from nlu_tui.dialogue_understanding.flows import load_flows

            try:
                self.flows = load_flows(self.flows_path)
            except InputError as exc:
                raise EngineError(f"llm-commands engine: {exc}") from None
        if self.flows is None:
            raise EngineError(
                "llm-commands engine: no flows to prompt with; set 'flows' in the profile "
                "or give `nlu-tui test du --flows FILE`"
            )
        if self._client is None:
            self._client = ChatClient(self.llm)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        raise EngineError(
            "llm-commands predicts dialogue-understanding commands only; "
            "use it with `nlu-tui test du`"
        )

    def prompt(self, request: CommandRequest) -> str:
        """The user prompt of one step (what ``--output-prompt`` shows)."""
        assert self.flows is not None
        return render_prompt(self.flows, request.conversation, request.text, request.slots)

    async def predict_commands(self, request: CommandRequest) -> CommandOutput:
        if self._client is None or self.flows is None:
            await self.open(None)
        assert self._client is not None
        prompt = self.prompt(request)
        reply = await self._client.chat([{"role": "user", "content": prompt}])
        commands = parse_answer(reply.text, self.flows)
        usage = reply.usage
        return CommandOutput(
            commands={COMPONENT: commands},
            prompts=[
                {
                    "component_name": COMPONENT,
                    "prompt_name": PROMPT_NAME,
                    "user_prompt": prompt,
                    "llm_response_metadata": {
                        "latency_ms": reply.latency_ms,
                        "model": reply.model,
                        "usage": {
                            "prompt_tokens": usage.prompt_tokens,
                            "completion_tokens": usage.completion_tokens,
                            "total_tokens": usage.total_tokens,
                        },
                        "choices": [reply.text],
                    },
                }
            ],
        )

    def describe(self) -> dict[str, Any]:
        return {
            "type": self.type_name,
            **self.llm.describe(),
            **({"flows": str(self.flows_path)} if self.flows_path else {}),
        }
