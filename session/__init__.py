"""Session state over time: the SQLite store, the journal that writes every event to it,
resume, compaction that keeps plan mode, the plan and the todos, and reminders."""
