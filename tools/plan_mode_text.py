"""The words plan mode says to the model, written once.

The system prompt's plan section (agent/prompt.py) carries the instructions, at every request
and only there; EnterPlanMode's result (tools/plan_mode.py) and the plan-mode reminder
(session/reminders.py) point at them, so each reaches the model once per request. A sub-agent
started while planning gets SUBAGENT instead: it has no way out of plan mode.
"""

RULES = ("Plan mode is active. The user wants a plan before any change: do not edit files, run "
         "commands that change anything, commit, or change configuration. Calls that could change "
         "the system are denied.")
WORKFLOW = """Work in four phases:
1. Understand: read the code that matters with Read, Glob, Grep and read-only Bash (ls, cat, git status/log/diff/show…). For a wide search you may send up to 3 explore sub-agents at once (several Agent calls in one reply, subagent_type explore), each with its own question.
2. Design: choose an approach; note the files to change, in what order, and how to verify the result.
3. Review: if a decision is genuinely the user's, ask it with AskUserQuestion; otherwise choose sensible defaults.
4. Present: call ExitPlanMode with the plan as concise, step-by-step markdown, and wait for the user's review."""
EXIT = ("ExitPlanMode is how the user sees and approves a plan: never ask \"is this plan OK?\" in "
        "prose. If the user rejects the plan, wait for them to speak before presenting again. The "
        "user can also leave plan mode themselves (/mode or Shift+Tab); you will be told when that "
        "happens.")
ENTERED = ("Its instructions lead the system prompt from the next request on. Research first; "
           "do not write or edit any file yet.")
STILL_ACTIVE = ("Plan mode is active (the system prompt's first section): research only, then "
                "present the plan with ExitPlanMode.")
SUBAGENT = ("Plan mode is active: the agent that started you is planning, so you work under the "
            "same rules. Do not edit files or run commands that change anything; such calls are "
            "denied. You cannot leave plan mode. Research what your task asks and report your "
            "findings as your final answer.")
ENDED = ("Plan mode has ended. You may now edit files and run commands, within the permission "
         "mode the user has chosen.")


def full_instructions() -> str:
    """Rules, workflow and the way out: the whole of what plan mode asks."""
    return f"{RULES}\n{WORKFLOW}\n{EXIT}"
