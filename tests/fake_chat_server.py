"""A local HTTP server that speaks the Chat Completions protocol, for the real client.

It behaves like one endpoint family (tests/fake_families.py; OpenAI by default):
the same reply is streamed the way that server streams it, and requests are
refused the way that server refuses them. Queue replies with `reply`,
`reply_text` or `reply_tool_calls`, failures with `fail`, broken streams with
`reply_broken`, streams that break in time with `hang` (accept, never answer)
and `reply_stream` (events paced, maybe endless: keep-alives only, slow tokens, a
reply that never stops); each POST to /chat/completions takes the next one and records
the request body (and in `spans`, when it came and went) unless `records` is off
(a bench: then a body is freed in the server's thread, not in its caller's). Every request is also
checked as OpenAI checks it: each assistant tool call must be answered by one
tool message, and with `window_tokens` a request longer than that window (at
four characters a token) is refused as OpenAI refuses it. GET /models answers
with the family's catalog, or 404 when it has none. Loopback only.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterable

from tests.fake_families import FAMILIES, ServerFamily


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "fake",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def render(family: ServerFamily, reply: dict[str, Any], wants_usage: bool) -> list[str]:
    """The SSE events one reply becomes on this family's server."""
    events = [": keep-alive", ": keep-alive"] if family.keepalive else []
    chunks = [_chunk({"role": "assistant", "content": ""})]
    for piece in reply.get("reasoning", []):
        chunks.append(_chunk({family.reasoning_field or "reasoning_content": piece, "content": None}))
    chunks += [_chunk({"content": piece}) for piece in reply.get("text", [])]
    chunks += _tool_call_chunks(family, reply.get("calls", []))
    finish = reply.get("finish") or (family.finish_after_tools if reply.get("calls") else "stop")
    usage = {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
    if family.cached_usage == "openai":
        usage["prompt_tokens_details"] = {"cached_tokens": 64}
    elif family.cached_usage == "deepseek":
        usage.update(prompt_cache_hit_tokens=64, prompt_cache_miss_tokens=56)
    if family.usage == "last_chunk":
        chunks.append({**_chunk({}, finish), "usage": usage})
    else:
        chunks.append(_chunk({}, finish))
        if wants_usage:
            chunks.append({**_chunk({}), "choices": [], "usage": usage})
    events += [f"data: {json.dumps(chunk)}" for chunk in chunks]
    return events + (["data: [DONE]"] if family.done_marker else [])


def _tool_call_chunks(family: ServerFamily, calls: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    chunks = []
    for number, (name, arguments) in enumerate(calls):
        encoded = arguments if isinstance(arguments, str) else json.dumps(arguments)
        if family.empty_arguments and encoded == "{}":
            encoded = ""
        head: dict[str, Any] = {"type": "function"}
        if family.call_index != "missing":
            head["index"] = number if family.call_index == "counted" else 0
        if family.call_ids:
            head["id"] = f"call_{number}"
        if family.tool_calls == "whole":
            chunks.append(_chunk({"tool_calls": [{**head, "function": {"name": name, "arguments": encoded}}]}))
            continue
        chunks.append(_chunk({"tool_calls": [{**head, "function": {"name": name, "arguments": ""}}]}))
        half = len(encoded) // 2
        for part in (encoded[:half], encoded[half:]):
            rest = {key: value for key, value in head.items() if key == "index"}
            chunks.append(_chunk({"tool_calls": [{**rest, "function": {"arguments": part}}]}))
    return chunks


def refusal_body(family: ServerFamily, parameter: str) -> dict[str, Any]:
    """How this family words the refusal of a request parameter it does not take."""
    if family.refusal_style == "glm":
        return {"error": {"code": "1210", "message": "API 调用参数有误，请检查文档"}}
    return {"error": {"message": f"Unrecognized request argument supplied: {parameter}",
                      "type": "invalid_request_error", "param": parameter, "code": None}}


def history_problem(messages: list[dict[str, Any]], family: ServerFamily) -> str | None:
    """Why a conversation is not a valid request, in the server's words, or None."""
    for number, message in enumerate(messages):
        calls = message.get("tool_calls") or []
        if message.get("role") != "assistant" or not calls:
            continue
        if family.requires_reasoning_back and "reasoning_content" not in message:
            return (f"Missing `reasoning_content` field in the assistant message at message index "
                    f"{number}. For more information, please refer to "
                    "https://api-docs.deepseek.com/guides/thinking_mode#tool-calls")
        ids = [call.get("id") for call in calls]
        if not all(isinstance(i, str) and i for i in ids) or len(set(ids)) != len(ids):
            return f"Invalid 'messages[{number}].tool_calls': each call needs its own non-empty id."
        answers = [m.get("tool_call_id") for m in messages[number + 1:number + 1 + len(calls)]
                   if m.get("role") == "tool"]
        if sorted(answers) != sorted(call["id"] for call in calls):
            return ("An assistant message with 'tool_calls' must be followed by tool messages "
                    "responding to each 'tool_call_id'.")
    return None


@dataclass
class FakeChatServer:
    family: ServerFamily = field(default_factory=lambda: FAMILIES["openai"])
    responses: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    models: list[dict[str, Any]] | None = None
    url: str = ""
    spans: list[tuple[float, float, dict[str, Any]]] = field(default_factory=list)
    window_tokens: int | None = None
    records: bool = True

    def reply(self, text: list[str] | None = None, calls: list[tuple[str, Any]] | None = None,
              reasoning: list[str] | None = None, pace: float = 0.0,
              after: threading.Event | None = None, finish: str = "") -> None:
        """Queue one streamed reply: text pieces, tool calls (name, arguments), reasoning pieces;
        its events `pace` seconds apart, as a real model streams; sent once `after` is set;
        `finish` its finish reason."""
        self.responses.append({"reply": {"text": text or [], "calls": calls or [],
                                         "reasoning": reasoning or [], "finish": finish},
                               "pace": pace, "after": after})

    def reply_text(self, *pieces: str, pace: float = 0.0) -> None:
        self.reply(text=list(pieces), pace=pace)

    def reply_tool_calls(self, *calls: tuple[str, Any], text: str = "",
                         after: threading.Event | None = None) -> None:
        self.reply(text=[text] if text else [], calls=list(calls), after=after)

    def reply_events(self, *events: str, cut: bool = False) -> None:
        """Queue raw SSE lines; `cut` drops the connection before the promised body ends."""
        self.reply_bytes("".join(f"{event}\n\n" for event in events).encode(), cut=cut)

    def reply_bytes(self, payload: bytes, cut: bool = False, sizes: tuple[int, ...] = ()) -> None:
        """Queue a raw body, written in pieces of `sizes` bytes (then the rest)."""
        self.responses.append({"payload": payload, "cut": cut, "sizes": sizes})

    def hang(self) -> None:
        """Queue a request that is read and never answered (until the server stops)."""
        self.responses.append({"hang": True})

    def reply_stream(self, events: Iterable[str], pace: float = 0.0) -> None:
        """Queue a stream of raw SSE events, `pace` seconds apart, written until they run out,
        the client goes away or the server stops (so `events` may be endless)."""
        self.responses.append({"events": events, "pace": pace})

    def fail(self, status: int, message: str = "failure", headers: dict[str, str] | None = None,
             body: dict[str, Any] | None = None) -> None:
        self.responses.append({"status": status, "headers": headers or {},
                               "body": body or {"error": {"message": message, "type": "x"}}})

    def start(self) -> str:
        server = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                catalog = server.models if server.models is not None else server.family.catalog
                if catalog is None or not self.path.endswith("/models"):
                    self._send_json(404, {"error": {"message": "Not Found", "type": "not_found"}})
                else:
                    self._send_json(200, {"object": "list", "data": catalog})

            def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
                payload = json.dumps(body, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:
                """Answer, and note when the request came and went (for concurrency tests)."""
                began = time.monotonic()
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                try:
                    self._answer_post(body)
                finally:
                    if server.records:
                        server.spans.append((began, time.monotonic(), body))

            def _answer_post(self, body: dict[str, Any]) -> None:
                if server.records:
                    server.requests.append(body)
                refused = [name for name in server.family.refused_parameters if name in body]
                if refused:
                    self._send_json(400, refusal_body(server.family, refused[0]))
                    return
                tokens = len(json.dumps(body)) // 4
                if server.window_tokens is not None and tokens > server.window_tokens:
                    self._send_json(400, {"error": {
                        "message": f"This model's maximum context length is {server.window_tokens} "
                                   f"tokens. However, your messages resulted in {tokens} tokens.",
                        "type": "invalid_request_error", "code": "context_length_exceeded"}})
                    return
                problem = history_problem(body.get("messages", []), server.family)
                if problem:
                    self._send_json(400, {"error": {"message": problem, "type": "invalid_request_error"}})
                    return
                response = server.responses.pop(0) if server.responses else {"status": 500, "body": {}}
                if response.get("after"):
                    response["after"].wait(30)
                if "status" in response:
                    self._send_json(response["status"], response["body"], response["headers"])
                    return
                if "hang" in response:
                    server._stopping.wait()
                    return
                if "events" in response:
                    self._stream_events(response["events"], response["pace"])
                    return
                payload = response["payload"] if "payload" in response else "".join(
                    f"{event}\n\n" for event in render(server.family, response["reply"],
                                                        "stream_options" in body)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                if response.get("cut"):
                    self.send_header("Content-Length", str(len(payload) + 1000))
                self.end_headers()
                if response.get("pace"):
                    for number, event in enumerate(filter(None, payload.split(b"\n\n"))):
                        if number:
                            time.sleep(response["pace"])
                        self.wfile.write(event + b"\n\n")
                        self.wfile.flush()
                    return
                for size in response.get("sizes", ()):
                    self.wfile.write(payload[:size])
                    self.wfile.flush()
                    payload = payload[size:]
                self.wfile.write(payload)

            def _stream_events(self, events: Iterable[str], pace: float) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    for event in events:
                        if server._stopping.wait(pace):
                            return
                        self.wfile.write(f"{event}\n\n".encode())
                        self.wfile.flush()
                except OSError:  # the client gave up on the stream
                    return

        self._stopping = threading.Event()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._http.serve_forever, kwargs={"poll_interval": 0.02},
                         daemon=True).start()
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}/v1"
        return self.url

    def stop(self) -> None:
        self._stopping.set()
        self._http.shutdown()
        self._http.server_close()
