"""What a contained call's environment leaves out: the variables that hold secrets.

One layer of the plan-mode sandbox. A contained call (any call while planning, and a
read-only one that runs without a question, sandbox/unasked.py) is the model's choice,
made without the user, and has no network: a secret in its environment could only go one
way, into the conversation (`env`, `printenv`), and with it to the model's provider, the
session store and every export. So such a call gets the environment without the variables
whose names say they hold one, as Codex's default shell policy leaves out (KEY, SECRET,
TOKEN), and the other words such names carry (a password, credentials, an auth string, a
DSN, a cookie, a private key), and without those whose value is an address carrying its
password (`DATABASE_URL=postgres://app:PASSWORD@db/app`), whatever the name. A command
the user approved runs as the user's own, with all of them.
"""

from __future__ import annotations

import re

SECRET_NAME = re.compile(r"KEY|SECRET|TOKEN|PASS|CREDENTIAL|AUTH(?!OR)|DSN|COOKIE|PRIVATE", re.IGNORECASE)
ADDRESS_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/?#@\s]*:[^/?#@\s]*@", re.IGNORECASE)


def without_secrets(env: dict[str, str]) -> dict[str, str]:
    """`env` less every variable whose name marks it a secret or whose value holds a password."""
    return {name: value for name, value in env.items()
            if not SECRET_NAME.search(name) and not ADDRESS_WITH_PASSWORD.search(value)}
