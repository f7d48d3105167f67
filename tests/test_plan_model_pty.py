"""Model per phase in the real REPL, in a pseudo-terminal: `/model plan NAME` changes the model the
status line shows while planning, and the model the next request goes to."""

from __future__ import annotations

from tests.terminal import Terminal

CATALOG = [{"id": "builder", "object": "model"}, {"id": "planner", "object": "model"}]


def test_model_plan_changes_the_status_line_and_the_next_request(server, workspace):
    server.models = CATALOG
    server.reply_text("planned")
    server.reply_text("built")
    repl = Terminal.start(workspace, "--model", "builder",
                          env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.url})
    try:
        repl.expect_text("model: builder")
        repl.sendline("/model plan planner")
        repl.expect_text("Plan model → planner")
        repl.sendline("/plan")
        repl.expect_text("mode → plan")
        repl.expect_text("model: planner")
        repl.sendline("look around")
        repl.expect_text("planned")
        repl.expect("›")
        repl.sendline("/mode build")
        repl.expect_text("mode → build")
        repl.expect_text("model: builder")
        repl.sendline("now build")
        repl.expect_text("built")
        repl.expect("›")
    finally:
        repl.close()
    assert [body["model"] for body in server.requests] == ["planner", "builder"]
