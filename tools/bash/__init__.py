"""Bash's hardening layer in one place: the hardened tool (tool.py) and the one function
that attaches it (layer.py), the read-only classifier its judge uses (classifier/), and the
OS sandbox plan-mode commands run in (sandbox/)."""
