"""The concept quiz: what plan mode is, where each line of defence lives, and why."""

from __future__ import annotations

from step42_plan_mode.quiz_question import Question

QUESTIONS = (
    Question("Which line of defence makes a write impossible while planning, whatever the model does?",
             ("the plan section of the system prompt", "the plan-mode guard, a PreToolUse hook",
              "the reminder sent every five messages", "ExitPlanMode's description"), 1,
             "The prompt only steers; the guard runs before every handler and denies (hooks/plan_mode_guard.py)."),
    Question("The plan-mode guard is an allowlist with default deny. What happens to a new tool "
             "that nobody marked?",
             ("it is allowed until someone blocks it", "the user is asked", "it is denied while planning",
              "it is hidden from the model"), 2,
             "Default deny: only read_only, allowed_in_plan_mode, or a judge saying 'read-only' pass."),
    Question("While planning, the user has chosen yolo. The model calls Write. What happens?",
             ("Write runs: yolo asks nothing", "the user is asked", "Write is denied",
              "plan mode ends"), 2,
             "Plan mode is a flag laid over the permission mode; deny hooks run before ask hooks, "
             "and yolo only silences questions."),
    Question("Why is the system prompt rebuilt for every request instead of edited on entry and exit?",
             ("it is faster", "so entering and leaving N times leaves it exactly as it began",
              "providers require it", "to save tokens"), 1,
             "Patching in place piles up plan sections or forgets to remove them (failure mode 1)."),
    Question("Where can the plan flag be turned off?",
             ("anywhere that holds the state", "only in AppState.leave_plan_mode",
              "in the guard, when a plan is approved", "in the REPL only"), 1,
             "A single exit is easy to audit; assigning state.plan_mode elsewhere raises AttributeError."),
    Question("The user answers a plan with 'use tabs, not spaces'. What does the model get?",
             ("an error to retry", "'not approved' as the result and the text as a user message",
              "nothing: the turn ends", "an approval with a note"), 1,
             "Feedback keeps plan mode on and arrives as a real user message after the tool results."),
    Question("The user rejects a plan with n. Why does the turn end right there?",
             ("to save tokens", "so the model cannot read the refusal as a glitch and call "
              "ExitPlanMode again and again", "because the history is invalid", "it does not end"), 1,
             "A rejection is a state the model is told about, not a transient error (failure mode 4)."),
    Question("Why does index.py inject ExitPlanMode's present() instead of the tool printing and reading?",
             ("speed", "the tool stays UI-free: tests pass a fake, -p passes one that cannot approve",
              "prompt-toolkit requires it", "to hide the plan from the model"), 1,
             "Logic in the tool, talking to a person in the shell: the core takes callbacks."),
    Question("The classifier wrongly lets a command through while planning. What still stops it "
             "from changing files on Linux?",
             ("nothing", "the reminder", "the OS sandbox Bash runs in while planning",
              "the permission question"), 2,
             "The fourth line: plan-mode Bash runs in a read-only OS sandbox, so a classifier "
             "mistake still changes nothing."),
    Question("What does prepending the plan section to the system prompt cost with a provider's "
             "prefix cache?",
             ("nothing", "the cached prefix is lost at each mode switch", "the tools are resent",
              "the history is truncated"), 1,
             "A change at the start of the prompt invalidates the cached prefix; a reminder appended "
             "to the history would keep it, at the price of weighing less."),
    Question("A sub-agent is started while the parent plans. What must be true of it?",
             ("it may write: it is a different agent", "it inherits plan mode: same flag, guard and sandbox",
              "it asks the user for each call", "it cannot be started"), 1,
             "A sub-agent with its own unguarded tools would be a second exit (failure mode 6)."),
)


def plan_questions() -> list[Question]:
    """Every concept question."""
    return list(QUESTIONS)
