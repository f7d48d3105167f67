"""The user's hooks and rules at run time: which apply, and what each event's hooks decide.

Which apply (`load_user_settings`): the user's file always; the project's deny and ask rules
always (they only refuse or ask more); the project's hooks and allow rules only once the
workspace is trusted (settings/trust.py), since they arrive with a cloned repository. One
line says what was left off, and each problem in a file is one line too.

What they decide, per event, as Claude Code's hooks do (settings/hook_answer.py):

  PreToolUse        `pre_tool_use`: the hooks' answer for one call (deny beats ask beats allow)
  PostToolUse       `post_tool_use`: feedback for the model after the call ran
  UserPromptSubmit  `user_prompt`: the prompt refused, or context to send with it
  Stop              `stop`: a reason for the model to go on instead of stopping
  SessionStart      `session_start`: context for the session

A hook that fails (settings/hook_answer.py says what counts) denies the call while planning,
or in every mode with `failClosedHooks`; otherwise it is shown to the user (`notify`) and
the call goes on. While a hook runs, `running` (the UI's spinner) names it. Nothing here decides before the plan-mode guard: settings/user_layer.py
puts these answers after it, so no hook and no allow rule can open plan mode.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

from settings.command_hook import run_command
from settings.files import read_settings
from settings.paths import project_settings_path, user_settings_path
from settings.hook_answer import HookAnswer, read_answer
from settings.rules import Places
from settings.schema import CommandHook, PermissionRule, Settings, parse_settings
from settings.trust import workspace_key
from state import StateView

Verdict = Literal["", "allow", "deny", "ask"]
FAILED_WHILE_PLANNING = ("while planning, a hook that fails denies the call (plan mode fails closed); "
                         "fix the hook or leave plan mode")


@dataclass(frozen=True)
class Ruling:
    """One step's answer for a call: its verdict ('' for none), who gave it, and why."""

    verdict: Verdict = ""
    by: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Loaded:
    """The settings in effect (with the problems met reading them), and what trust would add."""

    settings: Settings
    waiting_for_trust: Settings


def load_user_settings(home: Path, workspace: Path, trusted: bool) -> Loaded:
    """The user's file, and the project's as far as trust allows."""
    user = parse_settings(read_settings(user_settings_path(home), "user"), workspace_key(workspace))
    project = parse_settings(read_settings(project_settings_path(workspace), "project"))
    restrictive = tuple(rule for rule in project.rules if rule.kind != "allow")
    loosening = Settings(project.hooks, tuple(rule for rule in project.rules if rule.kind == "allow"))
    kept = Settings(rules=restrictive, fail_closed=project.fail_closed, problems=project.problems)
    if trusted:
        return Loaded(user + kept + loosening, Settings())
    return Loaded(user + kept, loosening)


@dataclass
class UserHooks:
    """Runs the user's hooks and reads their rules for one session."""

    settings: Settings
    workspace: Path
    home: Path
    notify: Callable[[str], None] = lambda text: None
    waiting: Settings = field(default_factory=Settings)
    runner: Callable[[str, dict[str, Any], Path, float], Any] = run_command
    running: Callable[[str], AbstractContextManager[Any]] = lambda name: nullcontext()
    places: Places = field(init=False)

    def __post_init__(self) -> None:
        self.places = Places(self.workspace.resolve(), Path.home())

    def hooks_for(self, event: str, subject: str = "") -> list[CommandHook]:
        """The hooks on `event` whose matcher covers `subject` (a tool name, a session source)."""
        return [hook for hook in self.settings.hooks if hook.event == event and hook.matches(subject)]

    def rule(self, kind: str, tool: str, args: dict[str, Any]) -> PermissionRule | None:
        """The first rule of this kind that covers the call (deny rules read cautiously)."""
        return next((rule for rule in self.settings.rules if rule.kind == kind
                     and rule.rule.covers(tool, args, self.places, cautious=kind == "deny")), None)

    def payload(self, event: str, view: StateView, **fields: Any) -> dict[str, Any]:
        """What a hook reads on its standard input: the common fields, then the event's own."""
        mode = "plan" if view.plan_mode else view.permission_mode.value
        return {"session_id": view.session_id, "cwd": str(self.workspace), "hook_event_name": event,
                "permission_mode": mode, **fields}

    def _run(self, hook: CommandHook, payload: dict[str, Any]) -> HookAnswer:
        with self.running(hook.name):
            ran = self.runner(hook.command, payload, self.workspace, hook.timeout)
        answer = read_answer(hook.event, ran)
        if answer.message:
            self.notify(f"{hook.name}: {answer.message}")
        return answer

    def pre_tool_use(self, tool: str, args: dict[str, Any], view: StateView) -> Ruling:
        """The PreToolUse hooks' answer: the first deny, else an ask, else an allow, else none."""
        found: dict[str, Ruling] = {}
        fail_closed = view.plan_mode or self.settings.fail_closed
        for hook in self.hooks_for("PreToolUse", tool):
            answer = self._run(hook, self.payload("PreToolUse", view, tool_name=tool, tool_input=args))
            if answer.failure:
                if fail_closed:
                    why = FAILED_WHILE_PLANNING if view.plan_mode else "failClosedHooks is set"
                    return Ruling("deny", hook.name, f"Denied by {hook.name}: the hook failed "
                                  f"({answer.failure}); {why}. Nothing was run.")
                self.notify(f"{hook.name} failed ({answer.failure}); the call goes on.")
                continue
            if answer.decision == "deny":
                return Ruling("deny", hook.name, f"Denied by {hook.name}: {answer.reason or 'no reason given'}")
            if answer.decision in ("ask", "allow"):
                found.setdefault(answer.decision, Ruling(answer.decision, hook.name, answer.reason))
        return found.get("ask") or found.get("allow") or Ruling()

    def post_tool_use(self, tool: str, args: dict[str, Any], content: str, is_error: bool,
                      view: StateView) -> str:
        """Feedback for the model from the PostToolUse hooks ('' for none)."""
        said = []
        for hook in self.hooks_for("PostToolUse", tool):
            answer = self._run(hook, self.payload("PostToolUse", view, tool_name=tool, tool_input=args,
                                                  tool_response={"content": content, "is_error": is_error}))
            if answer.failure:
                self.notify(f"{hook.name} failed ({answer.failure}).")
            elif answer.decision == "block" or answer.context:
                said.append(f"[{hook.name}] {answer.reason or answer.context}")
        return "\n".join(said)

    def user_prompt(self, prompt: str, view: StateView) -> tuple[str, str]:
        """(why the prompt is refused, context to send with it); each '' when there is none."""
        context = []
        for hook in self.hooks_for("UserPromptSubmit"):
            answer = self._run(hook, self.payload("UserPromptSubmit", view, prompt=prompt))
            if answer.failure:
                self.notify(f"{hook.name} failed ({answer.failure}); the prompt goes on.")
            elif answer.decision == "block":
                return f"{hook.name} refused the prompt: {answer.reason or 'no reason given'}", ""
            elif answer.context:
                context.append(answer.context)
        return "", "\n".join(context)

    def stop(self, view: StateView, active: bool) -> str:
        """A reason for the model to go on instead of stopping ('' lets it stop)."""
        for hook in self.hooks_for("Stop"):
            answer = self._run(hook, self.payload("Stop", view, stop_hook_active=active))
            if answer.failure:
                self.notify(f"{hook.name} failed ({answer.failure}).")
            elif answer.decision == "block":
                return f"[{hook.name}] {answer.reason or 'go on'}"
        return ""

    def session_start(self, source: str, view: StateView) -> str:
        """Context from the SessionStart hooks for this source (startup, resume, clear)."""
        context = []
        for hook in self.hooks_for("SessionStart", source):
            answer = self._run(hook, self.payload("SessionStart", view, source=source))
            if answer.failure:
                self.notify(f"{hook.name} failed ({answer.failure}).")
            elif answer.context:
                context.append(answer.context)
        return "\n".join(context)
