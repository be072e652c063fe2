"""LLM-backed test generation (:mod:`.generate`, :mod:`.generate_flow`), and the names of the
chat client they use, which lives with the engines (:mod:`nlu_tui.engines.llm_client`,
:mod:`nlu_tui.engines.llm_config`): the ``llm`` engines call it too, and engines sit below
the services.

A Textual-free client for any OpenAI-compatible chat-completions endpoint.

Used by test-case generation (:mod:`nlu_tui.llm.generate`), the ``llm`` NLU engine and the
DUT command generator. Configure it once (``llm:`` in the user settings, or a profile)::

    from nlu_tui.llm import ChatClient, load_llm_config

    config = load_llm_config()            # LLMNotConfiguredError says how to configure one
    async with ChatClient(config) as llm:
        reply = await llm.chat([{"role": "user", "content": "Say hi"}])
    reply.text, reply.usage.prompt_tokens
"""

from __future__ import annotations

from nlu_tui.engines.llm_client import ChatClient, ChatReply, Usage, chat_once
from nlu_tui.engines.llm_config import (
    LLMConfig,
    LLMError,
    LLMNotConfiguredError,
    configuration_help,
    llm_config_from_mapping,
    load_llm_config,
)

__all__ = [
    "ChatClient",
    "ChatReply",
    "LLMConfig",
    "LLMError",
    "LLMNotConfiguredError",
    "Usage",
    "chat_once",
    "configuration_help",
    "llm_config_from_mapping",
    "load_llm_config",
]
