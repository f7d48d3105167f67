"""How each endpoint family's server really behaves, as data for the fake server.

Each field is one behaviour, reproduced from the server's own source, docs or
issue threads (the README's endpoint table lists the sources). The fake chat
server (tests/fake_chat_server.py) renders replies and refusals through one of
these; the provider matrix (tests/test_endpoints.py) runs the same session on each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class ServerFamily:
    """One family's observable behaviour."""

    name: str
    tool_calls: Literal["split", "whole"] = "split"   # args piece by piece, or each call in one chunk
    call_ids: bool = True                              # False: no `id` on streamed calls
    call_index: Literal["counted", "missing", "zero"] = "counted"
    finish_after_tools: str = "tool_calls"             # "stop": finish_reason stop though calls came
    reasoning_field: str | None = None                 # where streamed reasoning goes
    usage: Literal["if_asked", "last_chunk"] = "if_asked"
    cached_usage: Literal["openai", "deepseek", "none"] = "none"
    done_marker: bool = True                           # False: the stream ends without [DONE]
    keepalive: bool = False                            # ": keep-alive" comments before the reply
    empty_arguments: bool = False                      # "" for a call without arguments
    refused_parameters: tuple[str, ...] = ()           # request fields answered with HTTP 400
    refusal_style: Literal["openai", "glm"] = "openai"
    requires_reasoning_back: bool = False              # tool-call turns must carry reasoning_content
    catalog: list[dict[str, Any]] | None = field(default=None)


FAMILIES = {
    # OpenAI: arguments streamed in pieces, usage only with stream_options (a last
    # chunk with no choices), cached tokens in prompt_tokens_details, "" arguments
    # for a strict tool without parameters.
    "openai": ServerFamily("openai", cached_usage="openai", empty_arguments=True,
                           catalog=[{"id": "gpt-4o-mini", "object": "model", "owned_by": "system"}]),
    # Ollama (openai/openai.go, middleware/openai.go): each call whole in one chunk;
    # before #7888 no index; before #7963 finish_reason "stop" after tool calls;
    # reasoning in `reasoning`; usage in a separate last chunk when asked.
    "ollama": ServerFamily("ollama", tool_calls="whole", call_index="missing",
                           finish_after_tools="stop", reasoning_field="reasoning",
                           catalog=[{"id": "qwen2.5-coder:latest", "object": "model",
                                     "owned_by": "library"}]),
    # vLLM: id missing on streamed calls (#18412), reasoning in `reasoning` (#27752),
    # max_model_len in the catalog.
    "vllm": ServerFamily("vllm", call_ids=False, reasoning_field="reasoning",
                         catalog=[{"id": "Qwen/Qwen2.5-Coder-7B-Instruct", "object": "model",
                                   "owned_by": "vllm", "max_model_len": 32768}]),
    # llama.cpp (tools/server): reasoning_content, usage always in the last chunk,
    # the catalog's context in `meta`.
    "llamacpp": ServerFamily("llamacpp", reasoning_field="reasoning_content", usage="last_chunk",
                             catalog=[{"id": "qwen2.5-coder-7b-q4_k_m.gguf", "object": "model",
                                       "owned_by": "llamacpp",
                                       "meta": {"n_ctx_train": 32768, "n_ctx": 8192}}]),
    # DeepSeek: reasoning_content that thinking mode requires back on tool-call
    # turns, ": keep-alive" comments while queued, cache hits as prompt_cache_hit_tokens.
    "deepseek": ServerFamily("deepseek", reasoning_field="reasoning_content", keepalive=True,
                             cached_usage="deepseek", requires_reasoning_back=True,
                             catalog=[{"id": "deepseek-chat", "object": "model", "owned_by": "deepseek"}]),
    # GLM (Zhipu / Z.ai): calls whole in one chunk unless tool_stream is asked for,
    # reasoning_content, usage in the last chunk; stream_options is not a GLM
    # parameter, and a parameter error is code 1210 without naming the field.
    "glm": ServerFamily("glm", tool_calls="whole", reasoning_field="reasoning_content",
                        usage="last_chunk", refused_parameters=("stream_options",),
                        refusal_style="glm"),
}
