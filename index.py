"""stepagent's composition root: parse the flags, build the pieces, wire the UI in.

    python index.py [--mode build|edit|yolo|plan] [-p PROMPT] [--model NAME] [--script FILE]

The workspace is the current directory. This is the one file that knows every
part: it builds the state, the tools (injecting ExitPlanMode's `present`), the
hook registry (plan-mode guard, then permission questions), the model, and hands
them to the REPL or to a single headless turn. Nothing runs at import time.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from pathlib import Path
from typing import Callable

from rich.console import Console

from agent import Agent
from compaction import AutoCompact
from executor import Executor
from hooks import permission_ask, plan_mode_guard
from hooks.registry import HookRegistry
from journal import Journal
from models.base import Model, ModelError
from models.openai_chat import OpenAIChatModel
from models.scripted import load_script
from readonly_bash.classify import classify
from readonly_bash.judgement import Judgement
from reminders import add_due_reminders
from sandbox.landlock import abi_version
from session import Session
from session_store import SessionStore, StoreUnavailable
from state import MODE_CYCLE, AppState
from tools.plan_mode import PlanReview
from tools.toolset import build_tools
from ui.callbacks import headless_approve, headless_present, interactive_approve, interactive_present
from ui.console import ConsoleView

HERE = Path(__file__).resolve().parent
LESSON_SCRIPT = HERE / "step42_plan_mode" / "lesson_scenario.json"
DEFAULT_MODEL = "gpt-4o-mini"
LESSON_BANNER = ("No OPENAI_API_KEY: running the offline lesson model. It is a script that replays "
                 "the step-42 lesson, whatever you type. Try: /plan add a greeting file")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="stepagent", description="A coding agent that plans before it acts.")
    parser.add_argument("--mode", choices=MODE_CYCLE,
                        help="start in this mode (default: build, or the resumed session's)")
    parser.add_argument("-p", "--prompt", help="run one turn headless and print the final answer")
    parser.add_argument("--model", help=f"model name (default: $OPENAI_MODEL or {DEFAULT_MODEL})")
    parser.add_argument("--script", type=Path, help="replay a scripted model from a JSON file")
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument("--resume", nargs="?", const="", metavar="ID",
                        help="resume a stored session (without ID: list this workspace's sessions)")
    resume.add_argument("--continue", dest="continue_latest", action="store_true",
                        help="resume the latest session of this workspace")
    parser.add_argument("--context-window", type=int, default=128_000, metavar="TOKENS",
                        help="the model's context window (default: %(default)s)")
    parser.add_argument("--compact-at", type=float, default=0.8, metavar="SHARE",
                        help="compact automatically past this share of the window (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.prompt is not None and not args.prompt.strip():
        parser.error("-p needs a prompt")
    if not 0 < args.compact_at <= 1:
        parser.error("--compact-at must be a share between 0 and 1")
    return args


def choose_model(args: argparse.Namespace, view: ConsoleView) -> Model:
    if args.script:
        return load_script(args.script)
    key = os.environ.get("OPENAI_API_KEY")
    if key:
        return OpenAIChatModel(args.model or os.environ.get("OPENAI_MODEL") or DEFAULT_MODEL, key,
                               os.environ.get("OPENAI_BASE_URL") or None)
    view.notice(LESSON_BANNER, style="bold yellow")
    return load_script(LESSON_SCRIPT, name="offline lesson model (scripted)")


def sandbox_status() -> str:
    abi = abi_version()
    if abi:
        return f"Bash runs inside a read-only Landlock sandbox (ABI {abi}) while planning."
    return "No Landlock sandbox on this system: the Bash classifier alone decides while planning."


def build_hooks() -> HookRegistry:
    hooks = HookRegistry()
    hooks.on_pre_tool_use(plan_mode_guard.NAME, plan_mode_guard.plan_mode_guard, "deny")
    hooks.on_pre_tool_use(permission_ask.NAME, permission_ask.permission_ask, "ask")
    return hooks


def assemble(workspace: Path, state: AppState, model: Model, present: Callable[[str], PlanReview],
             approve: Callable[[str], bool], classifier: Callable[[str], Judgement] = classify,
             compact_after_tokens: tuple[int, float] = (128_000, 0.8)) -> Agent:
    """The agent with its tools, hooks and preparers; the UI comes in as callbacks."""
    executor = Executor(build_tools(workspace, state, present, classifier), build_hooks(), state,
                        approve)
    return Agent(model, executor, state, workspace,
                 preparers=[AutoCompact(*compact_after_tokens), add_due_reminders])


def stepagent_home() -> Path:
    return Path(os.environ.get("STEPAGENT_HOME") or Path.home() / ".stepagent")


def open_store(view: ConsoleView) -> SessionStore | None:
    try:
        return SessionStore(stepagent_home() / "sessions.db")
    except StoreUnavailable as failure:
        view.error(f"{failure}. Going on in memory; this session will not be saved.")
        return None


def start_session(args: argparse.Namespace, session: Session, view: ConsoleView) -> int | None:
    """Resume what --resume ID or --continue asked for, then apply --mode.
    Returns an exit code when the session cannot start."""
    if args.resume or args.continue_latest:
        wanted = args.resume or session.latest_id()
        if not wanted:
            view.error("no earlier session in this workspace to continue")
            return 2
        try:
            session.resume(wanted)
        except StoreUnavailable as failure:
            view.error(str(failure))
            return 2
        view.notice(f"Resumed {wanted} ({len(session.agent.messages)} messages).")
    if args.mode:
        session.agent.state.select(args.mode, "--mode")
    return None


def list_sessions(store: SessionStore | None, workspace: Path, view: ConsoleView) -> int:
    sessions = store.sessions(workspace) if store else []
    for info in sessions:
        view.notice(info.summary)
    view.notice("Resume one with --resume ID." if sessions else "No stored sessions in this workspace.")
    return 0


def warm_up_openai() -> None:
    """Import openai in the background while the user types the first prompt."""
    threading.Thread(target=lambda: __import__("openai"), daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    headless = args.prompt is not None
    workspace = Path.cwd()
    view = ConsoleView(Console(stderr=headless), stream_markdown=not headless,
                       sandbox_status=sandbox_status)
    store = open_store(view)
    if args.resume == "":
        return list_sessions(store, workspace, view)
    state = AppState()
    state.events.subscribe(view.on_event)
    try:
        model = choose_model(args, view)
    except ModelError as failure:
        view.error(str(failure))
        return 2
    shown_plans: list[str] = []
    if headless:
        present, approve = headless_present(view, shown_plans), headless_approve(view)
    else:
        from prompt_toolkit import prompt as ask

        present, approve = interactive_present(view, ask), interactive_approve(ask)
    agent = assemble(workspace, state, model, present, approve,
                     compact_after_tokens=(args.context_window, args.compact_at))
    agent.on_text, agent.on_reply_end = view.on_text, view.on_reply_end
    journal = Journal(store, state, workspace, view.error)
    state.events.subscribe(journal.on_event)
    session = Session(agent, journal)
    exit_code = start_session(args, session, view)
    if exit_code is not None:
        return exit_code
    if headless:
        from headless import run_headless

        return run_headless(agent, args.prompt, view, shown_plans)
    from ui.repl import history_at, run_repl

    if isinstance(model, OpenAIChatModel):
        warm_up_openai()
    return run_repl(session, view, history_at(stepagent_home() / "history"), model.name)


if __name__ == "__main__":
    sys.exit(main())
