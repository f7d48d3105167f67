"""The agent core: the fixed loop, the executor every tool call passes, the system prompt
builder, the event stream, and `assemble`, which builds an agent with no UI."""
