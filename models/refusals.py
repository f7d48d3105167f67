"""Reading what a server meant when it refused a request (an HTTP error and its body).

Servers word the same refusal differently; the phrases below are the ones each
family really sends (see the README's endpoint table for the sources):
- no tool calling: vLLM without its tool parser, llama-server without --jinja
  (as HTTP 500!), an Ollama model without tool support;
- context overflow: OpenAI and vLLM ("maximum context length"), llama.cpp and
  Ollama ("exceeds the available context size"), GLM (code 1261);
- a parameter the server does not know, or wants renamed (`max_tokens` ->
  `max_completion_tokens` on OpenAI's reasoning models), or any parameter
  error that names none (GLM's code 1210);
- reasoning sent back that the server requires (DeepSeek thinking mode with
  tools) or refuses (deepseek-reasoner before thinking mode had tools).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["no_tools", "context_overflow", "rename_max_tokens", "unknown_parameter",
               "reasoning_required", "reasoning_refused", "other"]

NO_TOOLS = ('"auto" tool choice requires', "--enable-auto-tool-choice",
            "tools param requires --jinja", "does not support tools")
OVERFLOW = ("context_length_exceeded", "maximum context length", "exceed_context_size_error",
            "exceeds the available context size", "prompt 超长")
OVERFLOW_CODES = ("1261",)
PARAMETER_WORDS = re.compile(r"unknown|unrecogni[sz]ed|unsupported|not supported|extra|"
                             r"not permitted|not allowed|invalid|参数", re.IGNORECASE)
WHOLE_REQUEST_CODES = ("1210",)
REASONING_FIELD = re.compile(r"\breasoning(_content)?\b")
LIMIT_PATTERNS = (re.compile(r"maximum context length is (\d+)"),
                  re.compile(r"available context size \((\d+) tokens\)"),
                  re.compile(r'"n_ctx":\s*(\d+)'))


@dataclass(frozen=True)
class Refusal:
    """What a refusal means for the client."""

    kind: Kind
    parameter: str = ""
    limit: int | None = None


def error_text(body: Any, message: str) -> str:
    """All the text a refusal carries: the client's message and the raw body."""
    try:
        raw = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    except (TypeError, ValueError):
        raw = str(body)
    return f"{message or ''} {raw}"


def server_message(body: Any, message: str) -> str:
    """The server's own words, on one line: the error's message, else the client's."""
    said = body.get("message") if isinstance(body, dict) else body if isinstance(body, str) else None
    text = str(said or message or "no message").strip() or "no message"
    return text.splitlines()[0][:200]


def read_refusal(status: int, text: str, optional: list[str]) -> Refusal:
    """Classify an HTTP error; `optional` are the request's parameters we can do without."""
    lowered = text.lower()
    if any(marker in lowered for marker in NO_TOOLS):
        return Refusal("no_tools")
    if any(marker in lowered for marker in OVERFLOW) or _has_code(text, OVERFLOW_CODES):
        return Refusal("context_overflow", limit=_limit(text))
    if status not in (400, 422):
        return Refusal("other")
    if REASONING_FIELD.search(lowered):
        if "passed back" in lowered or "missing" in lowered:
            return Refusal("reasoning_required")
        if "remove" in lowered or PARAMETER_WORDS.search(text):
            return Refusal("reasoning_refused")
    if "max_tokens" in optional and "max_completion_tokens" in lowered:
        return Refusal("rename_max_tokens", "max_tokens")
    if PARAMETER_WORDS.search(text):
        for name in optional:
            if name in text:
                return Refusal("unknown_parameter", name)
    if _has_code(text, WHOLE_REQUEST_CODES) and optional:
        return Refusal("unknown_parameter", "")
    return Refusal("other")


def _has_code(text: str, codes: tuple[str, ...]) -> bool:
    return any(re.search(rf'"code":\s*"?{code}\b', text) for code in codes)


def _limit(text: str) -> int | None:
    for pattern in LIMIT_PATTERNS:
        found = pattern.search(text)
        if found:
            return int(found.group(1))
    return None
