"""What the user reads when a plan review ends the turn: the same words whether the plan was
reviewed as the model presented it (ui/repl.py) or again with /plan approve (ui/slash.py).

A leaf (it imports nothing).
"""

ENDED_BY_REVIEW = {
    "reject": "Plan rejected. Plan mode stays on; tell the agent what you want.",
    "save": "Plan saved for later. Plan mode stays on: /plan show prints it, /plan approve reviews it again.",
    "left": "The plan was not approved: you left plan mode ({left_by}).",
}
