"""Each plan-mode instruction reaches the model once per request, and the prefix a provider
caches stays put: what the real client sends the local Chat Completions server, from the
model entering plan mode itself to the build after the approved plan."""

from __future__ import annotations

from agent.assemble import assemble
from models.openai_chat import OpenAIChatModel
from state import AppState
from tests.repeats import repeated_lines
from tools.plan_mode import EXIT, RULES, WORKFLOW
from ui.plan_review import plan_review
from ui.product import product_layers


def planning_session(server, workspace) -> list[list[dict]]:
    """The model enters plan mode, reads, answers; the user says more, the model presents its
    plan and the user approves it; the model builds. Every request's messages, in order."""
    for reply in ([("EnterPlanMode", {})], [("Glob", {"pattern": "*"})]):
        server.reply_tool_calls(*reply)
    server.reply_text("There is no greeting file yet.")
    server.reply_tool_calls(("ExitPlanMode", {"plan": "1. Write hello.txt with a greeting."}))
    server.reply_tool_calls(("Write", {"file_path": "hello.txt", "content": "hello\n"}))
    server.reply_text("Done.")
    model = OpenAIChatModel("fake-model", "test-key", server.url, retry_delay=0)
    agent = assemble(workspace, AppState(), model, lambda plan: plan_review("y"),
                     lambda question: True, product_layers())
    agent.run_turn("Plan a greeting file.")
    agent.run_turn("Keep it to one line.")
    assert (workspace / "hello.txt").read_text() == "hello\n"
    return [request["messages"] for request in server.requests]


def times_said(text: str, messages: list[dict]) -> int:
    return sum(str(message.get("content") or "").count(text) for message in messages)


def test_no_instruction_is_said_twice_in_one_request(server, workspace):
    requests = planning_session(server, workspace)
    assert len(requests) == 6
    assert [repeated_lines(messages) for messages in requests] == [[]] * 6
    planning = requests[1:4]  # after EnterPlanMode, until the plan is approved
    for messages in planning:
        assert messages[0]["content"].startswith("# Plan Mode (ACTIVE)")
        for instruction in (RULES, WORKFLOW, EXIT):
            assert times_said(instruction, messages) == 1
    assert all(times_said(RULES, messages) == 0 for messages in requests[4:])


def test_within_a_mode_each_request_extends_the_one_before(server, workspace):
    requests = planning_session(server, workspace)
    for before, after in [(1, 2), (2, 3), (4, 5)]:  # plan mode, then the build after approval
        assert requests[after][:len(requests[before])] == requests[before]
