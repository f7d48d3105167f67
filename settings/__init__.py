"""The user's settings: hooks they add and permission rules that last, in Claude Code's schema.

A layer, not the core: the files (settings/files.py), what they say (schema.py), the rule
syntax (rules.py), workspace trust (trust.py), running a command hook (command_hook.py) and
reading its answer (hook_answer.py). settings/user_layer.py attaches them to the agent's
seams behind the plan-mode guard, which always decides first.
"""
