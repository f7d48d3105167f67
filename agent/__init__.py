"""The agent core: the fixed loop, the executor every tool call passes, the system prompt
builder, the event stream, and `assemble`, the core composition; and one layer, sub-agents
(subagents.py, batch.py), which attaches to the core like any other."""
