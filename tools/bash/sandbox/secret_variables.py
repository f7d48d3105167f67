"""What a contained call's environment leaves out: the variables that hold secrets.

One layer of the plan-mode sandbox. A contained call (any call while planning, and a
read-only one that runs without a question, sandbox/unasked.py) is the model's choice,
made without the user, and has no network: a secret in its environment could only go one
way, into the conversation (`env`, `printenv`), and with it to the model's provider, the
session store and every export. So such a call gets the environment without the variables
whose names say they hold one, as Codex's default shell policy leaves out (KEY, SECRET,
TOKEN), and PASSWORD. A command the user approved runs as the user's own, with all of them.
"""

from __future__ import annotations

import re

SECRET_NAME = re.compile(r"KEY|SECRET|TOKEN|PASSWORD|PASSWD", re.IGNORECASE)


def without_secrets(env: dict[str, str]) -> dict[str, str]:
    """`env` less every variable whose name marks it as a secret."""
    return {name: value for name, value in env.items() if not SECRET_NAME.search(name)}
