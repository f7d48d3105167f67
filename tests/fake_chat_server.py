"""A local HTTP server that speaks the Chat Completions protocol, for the real client.

Queue responses with `reply_text`, `reply_tool_calls` or `fail`; each POST to
/v1/chat/completions takes the next one and records the request body. Streaming
replies are sent as server-sent events, one chunk per piece, the way OpenAI does.
Loopback only.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "fake",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


@dataclass
class FakeChatServer:
    responses: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    models: list[dict[str, Any]] | None = None

    def reply_text(self, *pieces: str) -> None:
        chunks = [_chunk({"role": "assistant", "content": ""})]
        chunks += [_chunk({"content": piece}) for piece in pieces]
        self.responses.append({"chunks": chunks + [_chunk({}, "stop")]})

    def reply_tool_calls(self, *calls: tuple[str, dict[str, Any]], text: str = "") -> None:
        """Each call's id, name and arguments arrive in separate chunks, arguments split in two."""
        chunks = [_chunk({"role": "assistant", "content": text or None})]
        for index, (name, arguments) in enumerate(calls):
            encoded = json.dumps(arguments)
            half = len(encoded) // 2
            chunks.append(_chunk({"tool_calls": [{"index": index, "id": f"call_{index}", "type": "function",
                                                  "function": {"name": name, "arguments": ""}}]}))
            for part in (encoded[:half], encoded[half:]):
                chunks.append(_chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]}))
        self.responses.append({"chunks": chunks + [_chunk({}, "tool_calls")]})

    def fail(self, status: int, message: str = "failure") -> None:
        self.responses.append({"status": status, "body": {"error": {"message": message, "type": "x"}}})

    def start(self) -> str:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if server.models is None or not self.path.endswith("/models"):
                    self._send_json(404, {"error": {"message": "Not Found", "type": "not_found"}})
                else:
                    self._send_json(200, {"object": "list", "data": server.models})

            def _send_json(self, status: int, body: Any) -> None:
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                response = server.responses.pop(0) if server.responses else {"status": 500, "body": {}}
                if "chunks" not in response:
                    self._send_json(response["status"], response["body"])
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in response["chunks"]:
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._http.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()
