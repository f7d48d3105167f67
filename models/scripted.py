"""A model that replays a script: the offline lesson, and every unit test.

A script is a readable JSON file: a list of assistant turns (or an object with a
"title" and "turns"), each with optional "text" and optional "tool_calls" of
{"name", "arguments"}: arguments an object, or a string sent as it is (to
replay broken JSON), and an optional "id" (to replay a server's odd ids). Each
request takes the next turn, whatever was sent; when the script runs out the
model says so. Text is streamed word by word so the console behaves as it does
with a real model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from models.base import ModelError, Reply, ToolCall, stream_words
from models.catalog import CatalogUnavailable, ModelInfo

END_OF_SCRIPT = "(The script has ended; there is nothing more to replay.)"


@dataclass
class ScriptedModel:
    """A model that replays a list of assistant turns, whatever it is sent."""

    turns: list[dict[str, Any]]
    name: str = "scripted"
    requests: list[list[dict[str, Any]]] = field(default_factory=list)
    tool_schemas: list[list[dict[str, Any]]] = field(default_factory=list)
    catalog: list[ModelInfo] | None = None

    def list_models(self) -> list[ModelInfo]:
        """The catalog a test gave this model; a script has none by default."""
        if self.catalog is None:
            raise CatalogUnavailable("the scripted model has no model catalog; only a real "
                                     "endpoint can list models")
        return list(self.catalog)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 on_text: Callable[[str], None]) -> Reply:
        """The next scripted turn, its text streamed word by word."""
        self.requests.append(messages)
        self.tool_schemas.append(tools)
        turn = self.turns[len(self.requests) - 1] if len(self.requests) <= len(self.turns) else {
            "text": END_OF_SCRIPT}
        text = turn.get("text", "")
        stream_words(text, on_text)
        calls = [ToolCall(c.get("id", f"call_{len(self.requests)}_{i}"), c["name"], _arguments(c))
                 for i, c in enumerate(turn.get("tool_calls", []))]
        return Reply(text, calls)


def _arguments(call: dict[str, Any]) -> str:
    arguments = call.get("arguments", {})
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def load_script(path: Path, name: str = "") -> ScriptedModel:
    """Read a --script file; a ModelError, naming the flag and the file, says what is wrong with it."""
    data = read_json(path, f"--script {path}")
    turns = script_turns(data, f"--script {path}")
    title = data.get("title", "") if isinstance(data, dict) else ""
    return ScriptedModel(turns, name=name or f"script: {title or path.name}")


def read_json(path: Path, label: str) -> Any:
    """The JSON in the file a flag names; a ModelError starting with `label` if it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ModelError(f"{label}: cannot read it: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise ModelError(f"{label}: not valid JSON: line {exc.lineno}: {exc.msg}") from exc
    except RecursionError:
        raise ModelError(f"{label}: nested too deep to read") from None


def script_turns(data: Any, label: str) -> list[dict[str, Any]]:
    """A scenario's turns (a list of them, or an object's "turns"); a ModelError if it is not one."""
    turns = data.get("turns") if isinstance(data, dict) else data
    if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
        raise ModelError(f"{label}: must be a list of turns (objects with text and tool_calls)")
    for number, turn in enumerate(turns, 1):
        for call in turn.get("tool_calls", []):
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                raise ModelError(f"{label}: turn {number} has a tool call without a name")
    return turns
