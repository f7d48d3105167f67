"""The real model: any OpenAI-compatible Chat Completions endpoint, streamed.

Works with OpenAI, Ollama, vLLM, DeepSeek, GLM and others that speak the
protocol. Text is passed on as it arrives; tool-call fragments are joined by
their index, so several calls in one message and arguments split across chunks
both work. Retries with backoff on 429, 5xx, timeouts and dropped connections
are the openai client's own (`max_retries`). Errors the user must fix become a
ModelError with one clear line.

`openai` is imported on the first request, not at start-up: importing it costs
more than the whole rest of the program (bench/startup.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from models.base import ModelError, Reply, ToolCall
from models.catalog import ModelInfo, fetch_catalog

DEFAULT_BASE_URL = "https://api.openai.com/v1"


@dataclass
class OpenAIChatModel:
    name: str
    api_key: str
    base_url: str | None = None
    max_retries: int = 4
    timeout: float = 300.0
    _client: Any = field(default=None, repr=False)

    @property
    def endpoint(self) -> str:
        return self.base_url or DEFAULT_BASE_URL

    def client(self) -> Any:
        """The openai client, made on first use (importing openai is slow)."""
        if self._client is None:
            import openai

            self._client = openai.OpenAI(api_key=self.api_key, base_url=self.endpoint,
                                         max_retries=self.max_retries, timeout=self.timeout)
        return self._client

    def list_models(self) -> list[ModelInfo]:
        """The endpoint's catalog; CatalogUnavailable when it has none."""
        return fetch_catalog(self.client(), self.endpoint)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 on_text: Callable[[str], None]) -> Reply:
        import openai

        try:
            stream = self.client().chat.completions.create(
                model=self.name, messages=messages, stream=True,
                **({"tools": tools} if tools else {}))
            return _collect(stream, on_text)
        except openai.AuthenticationError as exc:
            raise ModelError(f"{self.endpoint} refused the API key (HTTP {exc.status_code}); "
                             "check OPENAI_API_KEY.") from None
        except openai.NotFoundError:
            raise ModelError(f"{self.endpoint} does not know the model {self.name!r}; "
                             "check OPENAI_MODEL or --model.") from None
        except openai.APITimeoutError:
            raise ModelError(f"{self.endpoint} did not answer in time, even after "
                             f"{self.max_retries} retries.") from None
        except openai.APIConnectionError:
            raise ModelError(f"cannot connect to {self.endpoint}; check OPENAI_BASE_URL and that "
                             "the server is running.") from None
        except openai.APIStatusError as exc:
            raise ModelError(f"{self.endpoint} answered HTTP {exc.status_code}: "
                             f"{_first_line(exc.message)}") from None


def _collect(stream: Any, on_text: Callable[[str], None]) -> Reply:
    text: list[str] = []
    calls: dict[int, dict[str, str]] = {}
    for chunk in stream:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        if delta.content:
            text.append(delta.content)
            on_text(delta.content)
        for fragment in delta.tool_calls or []:
            slot = calls.setdefault(fragment.index, {"id": "", "name": "", "arguments": ""})
            slot["id"] = fragment.id or slot["id"]
            if fragment.function:
                slot["name"] += fragment.function.name or ""
                slot["arguments"] += fragment.function.arguments or ""
    tool_calls = [ToolCall(slot["id"] or f"call_{index}", slot["name"], slot["arguments"] or "{}")
                  for index, slot in sorted(calls.items())]
    return Reply("".join(text), tool_calls)


def _first_line(message: str) -> str:
    return (message or "").strip().splitlines()[0][:200] if message and message.strip() else "no message"
