"""Which kind of server a base URL points at, and what that family needs by default.

The model client starts from these defaults and adapts when a server refuses
something (models/quirks.py). Detection is by host and default port, so it is a
good guess, not a promise: a vLLM on port 9000 is simply "OpenAI-compatible",
which works the same, only with generic defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal")


@dataclass(frozen=True)
class Family:
    """An endpoint family and its defaults."""

    key: str
    label: str
    reasoning_back: bool = False
    no_tools_hint: str = "choose a model that supports tool calling"


OPENAI = Family("openai", "OpenAI")
OLLAMA = Family("ollama", "Ollama", no_tools_hint="pick a model with tool support "
                "(those tagged 'tools' at ollama.com/search)")
VLLM = Family("vllm", "vLLM", no_tools_hint="start vLLM with --enable-auto-tool-choice "
              "--tool-call-parser NAME (the parser that matches the model)")
LLAMA_CPP = Family("llamacpp", "llama.cpp", no_tools_hint="start llama-server with --jinja "
                   "and a model whose chat template supports tools")
DEEPSEEK = Family("deepseek", "DeepSeek", reasoning_back=True)
GLM = Family("glm", "GLM (Zhipu / Z.ai)")
GENERIC = Family("generic", "OpenAI-compatible")
FAMILIES = (OPENAI, OLLAMA, VLLM, LLAMA_CPP, DEEPSEEK, GLM, GENERIC)

HOSTS = {"api.openai.com": OPENAI, "api.deepseek.com": DEEPSEEK, "open.bigmodel.cn": GLM,
         "api.z.ai": GLM}
DEFAULT_PORTS = {11434: OLLAMA, 8000: VLLM, 8080: LLAMA_CPP}


def detect_family(base_url: str) -> Family:
    """The family a base URL most likely belongs to."""
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    if host in HOSTS:
        return HOSTS[host]
    if "ollama" in host:
        return OLLAMA
    try:
        port = parts.port
    except ValueError:
        port = None
    return DEFAULT_PORTS.get(port, GENERIC) if is_local(base_url) else GENERIC


def is_local(base_url: str) -> bool:
    """Does this URL point at the user's own machine (where no real API key is needed)?"""
    host = (urlsplit(base_url).hostname or "").lower()
    return host in LOCAL_HOSTS or host.endswith(".local") or host.startswith("127.")
