"""Bash, hardened: the tool the Bash layer (layer.py) puts in place of the core's plain one.

Its `judge` is the read-only classifier (classifier/), which the hooks read:
the plan-mode guard lets only read-only commands through, and build mode asks
before any other. The executor judges each call once and hands that decision
to `run_decided`: a call decided while planning, and a read-only call that
runs without a question in build or edit mode (sandbox/unasked.py), runs
inside the OS sandbox (sandbox/launch.py), which contains arbitrary code by
itself; where a sandbox layer is missing, such a call may run less
(sandbox/narrowing.py), and build mode asks for the rest, as for a read the
sandbox's private view would answer falsely (sandbox/host_views.py: `ps`,
/tmp). The handler never reads the plan flag or classifies again. Git's
config-driven programs (fsmonitor, hooks, implicit bare repositories,
signature checks: a repository's `format.pretty = %G?` makes a plain `git log`
run its gpg.program, transports, even one the repository allows itself) are
switched off too for every call in the sandbox and for any command judged
read-only; the ones no setting can switch off for every name (diff drivers,
textconv, filters) run inside the sandbox or not unasked. (The repository's
own .git/config is the user's, and stays in force for what the user approved.)
A call in the sandbox sees no variable that holds a secret
(sandbox/secret_variables.py). A command the user approved (asked, or in yolo
mode) runs as the user's own, unbounded. Every call runs in its own process
group and leaves nothing behind (process.py), except what escaped that group:
for an approved call the result says what it left running (left_running.py),
and plan mode stops it when it begins (stop_left_running.py).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Callable

from state import AppState
from tools.base import CallDecision, Judgement, Tool, ToolResult
from tools.bash.left_running import (VARIABLE, LeftProcess, describe, left_by, new_call_marker,
                                     this_stepagent)
from tools.bash.process import FLOOD_LIMIT, Outcome, run_process
from tools.bash.sandbox.cgroups import SharedCgroup
from tools.bash.sandbox.host_views import host_view
from tools.bash.sandbox.launch import plan_mode_launch
from tools.bash.sandbox.lease_gate import LeasesInReach
from tools.bash.sandbox.narrowing import narrow
from tools.bash.sandbox.scratch import SharedPrivateFolder, remove_left_behind_scratch
from tools.bash.sandbox.secret_variables import without_secrets
from tools.bash.sandbox.status import Layers, detect_layers
from tools.bash.sandbox.unasked import contained
from tools.bash.watchdog import Watchdog, by_sh
from tools.plain_bash import PARAMETERS, timeout_of
from tools.preview import command_preview

NO_PROMPTS = {"GIT_PAGER": "cat", "PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
# An empty core.fsmonitor is off in every git: a boolean from 2.37, a path before ("false" runs one).
GIT_SETTINGS_FOR_READS = {"core.fsmonitor": "", "core.hooksPath": "/dev/null", "core.pager": "cat",
                          "credential.helper": "",
                          "safe.bareRepository": "explicit", "log.showSignature": "false",
                          "protocol.allow": "never", "gpg.program": "false",
                          "gpg.ssh.program": "false", "gpg.x509.program": "false"}
# A repository's own protocol.ext.allow (or .file.allow) outranks protocol.allow; this outranks
# every config: no transport (an ext:: command, an upload-pack, a partial clone's lazy fetch) starts.
NO_TRANSPORTS = {"GIT_ALLOW_PROTOCOL": ""}


def git_environment(settings: dict[str, str]) -> dict[str, str]:
    """Settings as GIT_CONFIG_* variables: they outrank every config file."""
    env = {"GIT_OPTIONAL_LOCKS": "0", "GIT_CONFIG_COUNT": str(len(settings))}
    for index, (key, value) in enumerate(settings.items()):
        env[f"GIT_CONFIG_KEY_{index}"], env[f"GIT_CONFIG_VALUE_{index}"] = key, value
    return env


def make_bash_tool(workspace: Path, state: AppState, classify: Callable[[str], Judgement],
                   layers: Callable[[], Layers] = detect_layers) -> Tool:
    """The Bash tool; `layers` is a seam for tests that take a sandbox layer away.

    Called directly (`handler`, as tests do), it decides the call itself, once, from the state now.
    """
    cgroup, private = SharedCgroup(), SharedPrivateFolder()
    stepagent = this_stepagent(workspace)
    watchdog = Watchdog(stepagent)
    for_reads = {**git_environment(GIT_SETTINGS_FOR_READS), **NO_TRANSPORTS}
    bash = shutil.which("bash")
    first_sandboxed_call = [True]

    def run(args: dict[str, Any], decided: CallDecision) -> ToolResult:
        command, read_only = args["command"], decided.judgement.read_only
        timeout = timeout_of(args)
        marker = new_call_marker(stepagent)
        sandboxed = contained(decided.plan_mode, state.permission_mode, read_only)
        env = {**(without_secrets(os.environ) if sandboxed else os.environ), **NO_PROMPTS, VARIABLE: marker}
        if sandboxed or read_only:
            env.update(for_reads)
        if not sandboxed:
            outcome = run_process(["bash", "-c", command], str(workspace), watchdog.by_bash(env),
                                  timeout, watchdog=watchdog, executable=bash)
            return _result(outcome, timeout, left_by(marker, outside_group=outcome.group))
        if first_sandboxed_call:
            first_sandboxed_call.clear()
            remove_left_behind_scratch()
        present = layers()

        def contained_run(leased: list[str] | None) -> Outcome:
            with plan_mode_launch(workspace, present, cgroup.get() if present.cgroup else None,
                                  private, leased) as launch:
                argv = [*launch.prefix, "bash", "-c", command]
                return run_process(argv if launch.dies_with_parent else by_sh(argv), str(workspace),
                                   {**env, **launch.env}, timeout, launch.in_child, launch.pass_fds,
                                   watchdog=None if launch.dies_with_parent else watchdog,
                                   started=launch.started)

        try:
            outcome = contained_run(None)
        except LeasesInReach as found:  # stopped before the command ran: again, with them covered
            outcome = contained_run(found.paths)
        return _result(outcome, timeout, [])

    def judge(args: dict[str, Any]) -> Judgement:
        judgement = classify(args["command"])
        if not judgement.read_only or not contained(state.plan_mode, state.permission_mode, True):
            return judgement
        present = layers()
        judgement = narrow(args["command"], present)
        if judgement.read_only and present.bwrap and not state.plan_mode:
            return host_view(args["command"], workspace)
        return judgement

    def decide_now(args: dict[str, Any]) -> ToolResult:
        return run(args, CallDecision(judge(args), state.plan_mode))

    return Tool("Bash", "Run a bash command in the workspace and return its output and exit code. "
                "Read-only commands (ls, cat, grep, find without actions, git status/log/diff/show…) "
                "run without a question, in a read-only sandbox with no network, where they may see "
                "a private, empty /tmp and /run: read files there with Read. While planning nothing "
                "else runs; in other modes the user may be asked first.",
                PARAMETERS, decide_now, judge=judge, preview=command_preview, run_decided=run)


def _result(outcome: Outcome, timeout: int, left: list[LeftProcess]) -> ToolResult:
    """The output, then one bracketed line: how it ended, and what it left running."""
    if outcome.timed_out:
        summary = f"timed out after {timeout} s"
        content, notes = f"The command timed out after {timeout} s and was stopped.\n{outcome.text}", []
    elif outcome.flooded:
        summary = f"stopped: it printed more than {FLOOD_LIMIT // 1_000_000} MB"
        content, notes = outcome.text, [summary]
    else:
        summary = f"exit code {outcome.returncode}"
        content, notes = outcome.text, [summary]
    if left:
        running = f"left running: {describe(left)}"
        summary += f" · {running}"
        notes.append(f"{running}; it goes on after this call, until it ends or plan mode begins")
    if notes:
        content += f"\n[{'; '.join(notes)}]"
    return ToolResult(content, is_error=outcome.timed_out or outcome.flooded or outcome.returncode != 0,
                      summary=summary)
