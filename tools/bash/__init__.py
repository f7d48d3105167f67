"""Everything about Bash in one place: the tool (tool.py), the read-only classifier its
judge uses (classifier/), and the OS sandbox plan-mode commands run in (sandbox/)."""
