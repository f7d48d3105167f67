"""The REPL's slash commands: /plan [task], /mode NAME, /help, /exit.

They change the session state directly (the user is always allowed to enter or
leave plan mode) and say whether there is a message to send to the model.
"""

from __future__ import annotations

from dataclasses import dataclass

from state import MODE_CYCLE, AppState

HELP = """Commands:
  /plan [task]   enter plan mode (and send the task, if given)
  /mode NAME     switch mode: plan, build, edit or yolo (leaving plan mode this way is allowed)
  /help          this help
  /exit          leave (Ctrl-D works too)
Keys: Shift+Tab cycles plan → build → edit → yolo; Ctrl-C cancels the running turn."""


@dataclass(frozen=True)
class SlashOutcome:
    message: str = ""
    send: str = ""
    exit: bool = False
    is_error: bool = False


def run_slash_command(line: str, state: AppState) -> SlashOutcome:
    name, _, rest = line.strip().partition(" ")
    rest = rest.strip()
    if name == "/plan":
        state.enter_plan_mode("/plan")
        return SlashOutcome(send=rest)
    if name == "/mode":
        if not rest:
            return SlashOutcome(f"Mode: {state.mode_label}. Choose one of: {', '.join(MODE_CYCLE)}.")
        if rest not in MODE_CYCLE:
            return SlashOutcome(f"Unknown mode {rest!r}; choose one of: {', '.join(MODE_CYCLE)}.",
                                is_error=True)
        state.select(rest, f"/mode {rest}")
        return SlashOutcome()
    if name == "/help":
        return SlashOutcome(HELP)
    if name in {"/exit", "/quit"}:
        return SlashOutcome(exit=True)
    return SlashOutcome(f"Unknown command {name}. {HELP}", is_error=True)
