"""The REPL's slash commands as /help lists them: the one list, which Tab completion, the
check for a mistyped command and the command line's --help read too.

A leaf (it imports nothing), so `stepagent --help` shows it without loading the commands.
"""

from __future__ import annotations

HELP = """Commands:
  /plan [task]   enter plan mode (and send the task, if given)
  /plan show     print the plan under review, saved for later, or approved
  /plan approve  review the plan awaiting approval (saved with s, or left by -p) again
  /mode NAME     switch mode: plan, build, edit or yolo (leaving plan mode this way is allowed)
  /todos         show the todo list
  /trace         show mode changes and hook decisions of this session, with the reasons
  /hooks         list the hooks in effect, with their file and event (settings.json)
  /permissions   list the permission rules in effect, with where each was set
  /last          show the whole output of the latest command
  /usage         tokens spent in this session, and how full the context window is
  /diff          what this session's Write and Edit calls changed, as a diff
  /rewind [N]    list this session's prompts, or restore files and conversation to just before
                 prompt N (/rewind N code or /rewind N conversation: one of them)
  /clear         start a fresh conversation (a new session; mode and "don't ask again" rules stay)
  /model [NAME]  list the endpoint's models, or switch to one
  /model plan [NAME|off]  the model every request goes to while planning (the session's model
                 after approval); alone: show it; off: plan on the session's model
  /lesson        restart the offline lesson (a fresh conversation, in build mode, asking again)
  /compact       summarise the conversation to free context (plan mode, plan and todos are kept)
  /resume [ID]   list this workspace's sessions, or resume one
  /fork ID       continue a session in a new one with a copy of its history
  /memory [NAME] list this workspace's memories, or open one in $EDITOR
  /export [--html] [FILE]  this session as markdown (--html: one HTML page) to FILE or .stepagent/exports/
                 (FILE's folder must exist; a page is named .html, markdown .md: a mismatch is refused)
  /help          this help
  /exit          leave (Ctrl-D works too)
Keys: Shift+Tab cycles plan → build → edit → yolo; Esc then Enter starts a new line;
      Ctrl-C cancels the running turn; Ctrl-Z suspends to the shell (fg comes back)."""


def command_names() -> list[str]:
    """Every command /help lists, by name."""
    return list(dict.fromkeys(line.split()[0] for line in HELP.splitlines() if line.startswith("  /")))
