"""Sub-agents with the real openai client against the local Chat Completions server:
three Agent calls in one reply overlap at the server, and a planning sub-agent's
requests carry none of the excluded tools and its writes are denied; its tokens
count in /usage."""

from __future__ import annotations

import threading
import time

from agent.assemble import assemble
from ui.product import product_layers
from models.openai_chat import OpenAIChatModel
from session.journal import Journal
from session.live import Session
from state import AppState
from tests.fake_chat_server import FakeChatServer
from tests.subagent_kit import snapshot
from tools.agent_tool import SUBAGENT_EXCLUDED
from tools.plan_mode import PlanReview
from ui.modes import select
from ui.slash import run_slash_command


def session(server: FakeChatServer, workspace, mode: str):
    state = AppState()
    select(state, mode, "test")
    model = OpenAIChatModel("fake-model", "test-key", server.url, retry_delay=0.0)
    return assemble(workspace, state, model, lambda plan: PlanReview("reject"), lambda request: False,
                    product_layers())


def wait_until(condition, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def sub_agent_spans(server: FakeChatServer) -> list[tuple[float, float, dict]]:
    """The sub-agents' requests, once the server has finished answering every request."""
    wait_until(lambda: len(server.spans) >= len(server.requests))
    return [span for span in server.spans
            if next(m["content"] for m in span[2]["messages"] if m["role"] == "user")
            .startswith("You are a sub-agent")]


def test_three_agent_calls_in_one_reply_overlap_at_the_server(server, workspace):
    server.reply_tool_calls(*[("Agent", {"description": f"look {n}", "prompt": f"area {n}",
                                         "subagent_type": "explore"}) for n in range(3)])
    all_open = threading.Event()  # no sub-agent is answered before all three have asked
    for _ in range(3):
        server.reply(text=["found ", "it ", "here"], after=all_open)
    server.reply_text("all three reported")
    threading.Thread(target=lambda: wait_until(lambda: len(server.requests) == 4) and all_open.set(),
                     daemon=True).start()
    agent = session(server, workspace, "plan")
    assert agent.run_turn("research").text == "all three reported"
    spans = sub_agent_spans(server)
    assert len(spans) == 3
    assert max(began for began, _, _ in spans) < min(ended for _, ended, _ in spans), \
        "every sub-agent's request was open while the others were"
    results = [m["content"] for m in agent.messages if m["role"] == "tool"]
    assert results == ["found it here"] * 3


def test_a_planning_sub_agent_is_denied_and_offered_none_of_the_excluded_tools(server, workspace):
    (workspace / "notes.md").write_text("hello\n")
    before = snapshot(workspace)
    server.reply_tool_calls(("Agent", {"description": "change", "prompt": "edit notes",
                                       "subagent_type": "general"}))
    server.reply_tool_calls(("Write", {"file_path": "new.txt", "content": "x"}),
                            ("Edit", {"file_path": "notes.md", "old_string": "hello", "new_string": "bye"}),
                            ("Bash", {"command": "rm notes.md"}))
    server.reply_text("could not change anything")
    server.reply_text("done")
    agent = session(server, workspace, "yolo")
    agent.state.enter_plan_mode("test")
    agent.run_turn("go")
    assert snapshot(workspace) == before
    spans = sub_agent_spans(server)
    for _, _, body in spans:
        assert {tool["function"]["name"] for tool in body["tools"]} & SUBAGENT_EXCLUDED == set()
    denials = [m["content"] for m in spans[1][2]["messages"] if m["role"] == "tool"]
    assert len(denials) == 3 and all("plan-mode-guard" in d for d in denials)


def test_a_sub_agents_tokens_add_up_in_usage(server, workspace):
    server.reply_tool_calls(("Agent", {"description": "look", "prompt": "area",
                                       "subagent_type": "explore"}))
    server.reply_text("found it")
    server.reply_text("reported")
    agent = session(server, workspace, "build")
    live = Session(agent, Journal(None, agent.state, workspace, warn=print))
    agent.run_turn("research")
    assert len(server.requests) == 3, "two parent replies and one sub-agent reply"
    usage = run_slash_command("/usage", live).message
    assert "tokens in 360 (192 cached) · out 90 over 3 replies" in usage
