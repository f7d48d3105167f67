"""Is this shell command read-only? The classifier behind Bash in plan mode.

`parse` turns a command line into simple commands with literal words (or says
why it cannot), `rules` judges each command by an allowlist with per-command
argument rules, and `classify` is the entry point that returns a `Judgement`.
"""
