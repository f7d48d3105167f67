"""The agent core: the fixed loop, the executor every tool call passes, the system prompt
builder, the event stream, and `assemble`, the core composition; and one layer, sub-agents
(subagents.py, batch.py), which attaches to the core like any other."""

# The modes as the user names them, in Shift+Tab's order (state.py cycles through them). Kept
# here, where nothing is imported, so the command line's parser lists them without the agent.
MODE_CYCLE = ("plan", "build", "edit", "yolo")
