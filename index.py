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

from rich.console import Console

from agent import Agent
from executor import Executor
from hooks import permission_ask, plan_mode_guard
from hooks.registry import HookRegistry
from models.base import Model, ModelError
from models.openai_chat import OpenAIChatModel
from models.scripted import load_script
from sandbox.landlock import abi_version
from state import MODE_CYCLE, AppState
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
    parser.add_argument("--mode", choices=MODE_CYCLE, default="build",
                        help="start in this mode (default: build)")
    parser.add_argument("-p", "--prompt", help="run one turn headless and print the final answer")
    parser.add_argument("--model", help="model name (default: $OPENAI_MODEL or %(default)s)".replace(
        "%(default)s", DEFAULT_MODEL))
    parser.add_argument("--script", type=Path, help="replay a scripted model from a JSON file")
    return parser.parse_args(argv)


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


def warm_up_openai() -> None:
    """Import openai in the background while the user types the first prompt."""
    threading.Thread(target=lambda: __import__("openai"), daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    headless = args.prompt is not None
    workspace = Path.cwd()
    view = ConsoleView(Console(stderr=headless), stream_markdown=not headless)
    state = AppState()
    state.select(args.mode, "--mode")
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
    executor = Executor(build_tools(workspace, state, present), build_hooks(), state, approve,
                        report=view.on_call)
    agent = Agent(model, executor, state, workspace, view.on_text, view.on_reply_end)
    if headless:
        from headless import run_headless

        return run_headless(agent, args.prompt, view, shown_plans)
    from ui.repl import ModeAnnouncer, history_at, run_repl

    if isinstance(model, OpenAIChatModel):
        warm_up_openai()
    home = Path(os.environ.get("STEPAGENT_HOME") or Path.home() / ".stepagent")
    return run_repl(agent, view, ModeAnnouncer(state, view, sandbox_status),
                    history_at(home / "history"), model.name)


if __name__ == "__main__":
    sys.exit(main())
