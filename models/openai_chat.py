"""The real model: any OpenAI-compatible Chat Completions endpoint, streamed.

Works with OpenAI, Ollama, vLLM, llama.cpp, DeepSeek, GLM and others that speak
the protocol, each with its quirks (README: "Endpoints"). One `complete` is:
shape the request for this endpoint (models/quirks.py), stream it, assemble
the reply (models/stream.py). Around that, two loops the user can see:
- a refusal the client can fix (a parameter the server does not know, reasoning
  it wants back) changes the request once and retries at once, with a notice;
- a transient failure (HTTP 408/409/429/5xx, a dropped connection, a timeout,
  a stream cut off, stalled or garbled) is retried with backoff, each retry
  announced (`HTTP 429, retrying in 2 s, attempt 2/5`); after the last one, one
  line says what happened. A server on this machine that refuses the connection
  is not listening: it is retried once (it may be starting), not four times.
Each request is bounded in time and size (models/bounds.py): a first-byte and an
idle timeout, a deadline over all its attempts, a cap on the reply's length.
Everything else is a ModelError with one clear line; a context overflow is a
ContextOverflow, which the agent loop answers by compacting. The UI injects
`on_notice` (retries, adaptations) and `on_reasoning`; token usage travels in the
Reply, and the agent loop announces it (TokensUsed).

`openai` is imported on the first request, not at start-up: importing it costs
more than the whole rest of the program (bench/startup.py). `warm_up` makes the
client ahead of that request; the REPL calls it once its prompt is drawn. The
client's own retries are off, so that every retry is ours and visible.
"""

from __future__ import annotations

import ipaddress
import json
import threading
import time
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any, Callable, Literal
from urllib.parse import urlsplit

from models.base import ContextOverflow, ModelError, Reply
from models.bounds import CONNECT_SECONDS, DeadlinePassed, RequestBounds, StreamStalled
from models.catalog import ModelInfo, fetch_catalog
from models.endpoint import detect_family
from models.quirks import Adaptations
from models.refusals import error_text, read_refusal, server_message
from models.stream import ReplyTooLong, StreamAssembler, StreamBroken, assemble
from models.wire import WireEncoder

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRY_STATUSES = (408, 409, 429)
MAX_RETRY_AFTER = 60.0
LOOPBACK_REFUSED_RETRIES = 1


@dataclass(frozen=True)
class Notice:
    """Something the client did on its own that the user should see in one dim line."""

    kind: Literal["retry", "adapted"]
    text: str


class _Transient(Exception):
    """A failure worth retrying; `reason` is how the retry notice names it, `retries` caps its retries."""

    def __init__(self, reason: str, final: str, retry_after: float | None = None,
                 retries: int | None = None):
        super().__init__(reason)
        self.reason, self.final, self.retry_after, self.retries = reason, final, retry_after, retries


@dataclass
class OpenAIChatModel:
    """The real model: one streamed Chat Completions request per round trip."""

    name: str
    api_key: str
    base_url: str | None = None
    max_retries: int = 4
    bounds: RequestBounds = field(default_factory=RequestBounds)
    retry_delay: float = 1.0
    max_output_tokens: int | None = None
    on_notice: Callable[[Notice], None] = field(default=lambda notice: None, repr=False)
    on_reasoning: Callable[[str], None] = field(default=lambda piece: None, repr=False)
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    adaptations: Adaptations | None = None
    _client: Any = field(default=None, repr=False)
    _wire: WireEncoder = field(default_factory=WireEncoder, repr=False, compare=False)
    _making_client: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.adaptations is None:
            self.adaptations = Adaptations(detect_family(self.endpoint))

    @property
    def endpoint(self) -> str:
        """What is known of the endpoint: its family and the parameters it refused."""
        return self.base_url or DEFAULT_BASE_URL

    def client(self) -> Any:
        """The openai client, made on first use (importing openai is slow), once even across threads."""
        with self._making_client:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(api_key=self.api_key or "no-key", base_url=self.endpoint,
                                             max_retries=0)
        return self._client

    def warm_up(self) -> None:
        """Make the client ahead of the first request, so that request does not wait for openai."""
        self.client()

    def list_models(self) -> list[ModelInfo]:
        """The endpoint's catalog; CatalogUnavailable when it has none."""
        return fetch_catalog(self.client(), self.endpoint)

    def describe_endpoint(self) -> str:
        """The detected family and what the session changed so far, for --doctor."""
        assert self.adaptations is not None
        return f"{self.endpoint}: {self.adaptations.describe()}"

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 on_text: Callable[[str], None]) -> Reply:
        """One reply, streamed: adapted to refusals at once, transient failures retried with notice."""
        self.client()  # importing openai is no part of the request's time
        attempt, deadline = 1, self.bounds.deadline()
        while True:
            try:
                reply = self._adapting(messages, tools, on_text, deadline)
            except _Transient as failure:
                retries = self.max_retries if failure.retries is None else min(failure.retries,
                                                                               self.max_retries)
                if attempt > retries:
                    raise ModelError(failure.final) from None
                delay = self._delay(attempt, failure.retry_after)
                if self.bounds.clock() + delay >= deadline:
                    raise self._past_deadline(failure.reason) from None
                attempt += 1
                self.on_notice(Notice("retry", f"{failure.reason}, retrying in {_seconds(delay)}, "
                                               f"attempt {attempt}/{retries + 1}"))
                self.sleep(delay)
                continue
            except DeadlinePassed:
                raise self._past_deadline("") from None
            except ReplyTooLong as failure:
                raise ModelError(f"{self.endpoint} sent a reply that does not end: {failure}, so "
                                 "the rest was not read (the model may be repeating itself).") from None
            return reply

    def _refused_here(self, failure: BaseException) -> bool:
        """Did a server on this machine refuse the connection (nothing listens on its port)?"""
        host = urlsplit(self.endpoint).hostname or ""
        try:
            here = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            here = False
        cause: BaseException | None = failure
        while cause is not None and not isinstance(cause, ConnectionRefusedError):
            cause = cause.__cause__ or cause.__context__
        return here and cause is not None

    def _past_deadline(self, last: str) -> ModelError:
        tried = f" (last: {last})" if last else ""
        return ModelError(f"no whole reply from {self.endpoint} within "
                          f"{self.bounds.deadline_seconds:g} s, the request's deadline{tried}; "
                          "--timeout SECONDS sets it.")

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None and 0 <= retry_after <= MAX_RETRY_AFTER:
            return retry_after
        return min(self.retry_delay * 2 ** (attempt - 1), 30.0)

    def _body(self, tools: list[dict[str, Any]]) -> dict[str, Any]:
        body: dict[str, Any] = {"stream_options": {"include_usage": True}}
        if tools:
            body["tools"] = tools
        if self.max_output_tokens:
            body["max_tokens"] = self.max_output_tokens
        return body

    def _adapting(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                  on_text: Callable[[str], None], deadline: float) -> Reply:
        """One attempt, re-shaped and re-sent at once for each refusal the client can fix."""
        import openai

        assert self.adaptations is not None
        while True:
            body = self.adaptations.shape(self._body(tools))
            try:
                return self._stream(messages, body, on_text, deadline)
            except openai.APIStatusError as exc:
                refusal = read_refusal(exc.status_code, error_text(exc.body, exc.message),
                                       self.adaptations.optional_in(body))
                change = self.adaptations.learn(refusal, body)
                if change is None:
                    raise self._status_failure(exc.status_code, server_message(exc.body, exc.message),
                                               refusal.kind, refusal.limit,
                                               exc.response.headers) from None
                self.on_notice(Notice("adapted", f"{self.adaptations.family.label}: {change}"))

    def _stream(self, messages: list[dict[str, Any]], body: dict[str, Any],
                on_text: Callable[[str], None], deadline: float) -> Reply:
        import httpx2
        import openai

        assembler = StreamAssembler(on_text, self.on_reasoning, max_chars=self.bounds.max_chars)
        left = self.bounds.left(deadline)
        timeout = httpx2.Timeout(min(self.bounds.first_byte_seconds, left),
                                 connect=min(CONNECT_SECONDS, left))
        try:
            with closing(self._post(messages, body, timeout)) as response:
                if "json" in response.headers.get("content-type", ""):
                    response.read()
                    return _whole_reply(response.text, assembler)
                try:
                    return assemble(self.bounds.watched(response.iter_lines(), deadline), assembler)
                except httpx2.RequestError:
                    if assembler.finish_reason is None:
                        raise
                    return assembler.reply()  # cut after the reply was finished: nothing is missing
        except StreamStalled as stalled:
            raise _Transient(f"the reply stream stalled ({stalled})",
                             f"{self.endpoint} stopped sending in the middle of its replies "
                             f"({stalled}), {self.max_retries + 1} times.") from None
        except StreamBroken as broken:
            raise _Transient(f"the reply stream broke ({broken})",
                             f"{self.endpoint} kept breaking off its replies: {broken}; "
                             "the server may be overloaded or restarting.") from None
        except openai.APITimeoutError:
            raise _Transient(f"no answer within {timeout.read:.3g} s",
                             f"{self.endpoint} did not answer in time, even after "
                             f"{self.max_retries} retries.") from None
        except openai.APIConnectionError as failure:
            raise _Transient("cannot connect", f"cannot connect to {self.endpoint}; check "
                             "OPENAI_BASE_URL and that the server is running.",
                             retries=LOOPBACK_REFUSED_RETRIES if self._refused_here(failure) else None) from None
        except httpx2.TimeoutException:
            raise _Transient("the reply stream stalled",
                             f"{self.endpoint} stopped sending in the middle of its replies, "
                             f"{self.max_retries + 1} times.") from None
        except httpx2.RequestError as exc:
            raise _Transient(f"the connection dropped mid-reply ({type(exc).__name__})",
                             f"{self.endpoint} dropped the connection in the middle of its "
                             f"replies, {self.max_retries + 1} times; the server may be "
                             "overloaded or restarting.") from None

    def _post(self, messages: list[dict[str, Any]], body: dict[str, Any], timeout: Any) -> Any:
        """POST the request and return the open streaming HTTP response.

        The body goes out as the JSON bytes models/wire.py makes, not through
        `chat.completions.create`, whose check of every message against the SDK's
        types grew with the history.
        """
        import httpx2

        assert self.adaptations is not None
        content = self._wire.encode({"model": self.name, **body, "stream": True}, messages,
                                    self.adaptations.message, self.adaptations.sends_reasoning())
        return self.client().post("/chat/completions", cast_to=httpx2.Response, content=content,
                                  options={"headers": {"Content-Type": "application/json"},
                                           "timeout": timeout},
                                  stream=True)

    def _status_failure(self, status: int, line: str, kind: str, limit: int | None,
                        headers: Any) -> Exception:
        """The exception an HTTP error becomes once no adaptation can help."""
        assert self.adaptations is not None
        if kind == "no_tools":
            return ModelError(f"{self.adaptations.family.label} at {self.endpoint} cannot call tools "
                              f"with {self.name!r} ({line}); {self.adaptations.family.no_tools_hint}.")
        if kind == "context_overflow":
            window = f" ({limit:,} tokens)" if limit else ""
            return ContextOverflow(f"the conversation no longer fits the context window{window} "
                                   f"of {self.name!r}: {line}", limit)
        if status == 401:
            return ModelError(f"{self.endpoint} refused the API key (HTTP 401); check OPENAI_API_KEY.")
        if status == 404:
            return ModelError(f"{self.endpoint} does not know the model {self.name!r} ({line}); "
                              "check OPENAI_MODEL or --model.")
        if status in RETRY_STATUSES or status >= 500:
            return _Transient(f"HTTP {status}", f"{self.endpoint} answered HTTP {status} "
                              f"{self.max_retries + 1} times: {line}", _retry_after(headers))
        return ModelError(f"{self.endpoint} answered HTTP {status}: {line}")


def _whole_reply(text: str, assembler: StreamAssembler) -> Reply:
    """A server that ignored `stream` and sent one JSON completion: read it as one chunk."""
    try:
        body = json.loads(text)
        choice = body["choices"][0]
        assembler.feed({"choices": [{"delta": choice.get("message") or {},
                                     "finish_reason": choice.get("finish_reason") or "stop"}],
                        "usage": body.get("usage")})
    except (ValueError, RecursionError, KeyError, IndexError, TypeError, AttributeError):
        raise StreamBroken("the server sent a JSON reply that is not a chat completion") from None
    return assembler.reply()


def _retry_after(headers: Any) -> float | None:
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            return float(headers.get(name)) / scale
        except (TypeError, ValueError):
            continue
    return None


def _seconds(delay: float) -> str:
    return f"{delay:.0f} s" if delay >= 1 else f"{delay:.1f} s"
