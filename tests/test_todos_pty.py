"""TodoWrite in the seeds' own fields, through the real client and the REPL in a terminal: the model
is offered `activeForm`, and the screen shows an item in progress in that form, then done in its
plain form."""

from __future__ import annotations

import io

from tests.fake_chat_server import FakeChatServer
from tests.terminal import Terminal
from tests.test_lesson_pty import until


def todos(status: str) -> dict:
    return {"todos": [{"content": "Run the checks", "activeForm": "Running the checks", "status": status,
                       "priority": "high"}]}


def test_todowrite_with_active_form_is_offered_accepted_and_shown_in_both_forms(workspace, tmp_path):
    server = FakeChatServer()
    url = server.start()
    server.reply_tool_calls(("TodoWrite", todos("in_progress")))
    server.reply_tool_calls(("TodoWrite", todos("completed")))
    server.reply_text("checked")
    terminal = Terminal.start(workspace, env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url,
                                              "STEPAGENT_HOME": str(tmp_path / "home")})
    terminal.child.logfile_read = io.StringIO()
    terminal.read_up_to = 0
    try:
        until(terminal, "›")
        terminal.sendline("check everything")
        shown = until(terminal, "checked")
        assert shown.index("◐ Running the checks") < shown.index("☑ Run the checks")
        offered = next(tool["function"] for tool in server.requests[0]["tools"]
                       if tool["function"]["name"] == "TodoWrite")
        item = offered["parameters"]["properties"]["todos"]["items"]
        assert {"content", "status", "activeForm", "priority"} <= set(item["properties"])
        assert "activeForm" in offered["description"]
        assert "Invalid arguments" not in server.requests[1]["messages"][-1]["content"]
    finally:
        terminal.close()
        server.stop()
