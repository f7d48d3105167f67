"""stepagent's command line: parse the flags, assemble the agent, wire the UI in.

    python index.py [--mode build|edit|yolo|plan] [--model NAME] [--script FILE] [MESSAGE]
                    [--record FILE] [--script FILE --check]
    python index.py -p PROMPT|- [--output-format text|json|stream-json] [--approve-plan]
    python index.py --doctor | --version | --help

The workspace is the current directory. This is the one file that knows every
part. It builds the state and the model, injects the UI callbacks into the
UI-free assembly (agent/assemble.py) — ExitPlanMode's `present` and the
permission `approve` — and hands the agent to the REPL or to one headless turn.
Nothing runs at import time.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from agent.assemble import assemble
from models.base import Model, ModelError
from models.catalog import checked_name
from models.endpoint import is_local
from models.scripted import load_script
from session.journal import Journal
from session.live import Session
from session.lock import SessionLock
from session.recording import Recorder, load_recording, replay_answers
from session.store import default_home
from state import MODE_CYCLE, AppState
from tools.bash.sandbox.status import detect_layers, layer_rows, sandbox_status

if TYPE_CHECKING:
    from ui.console import ConsoleView

LESSON_SCRIPT = Path(__file__).resolve().parent / "step42_plan_mode" / "lesson_scenario.json"
DEFAULT_MODEL = "gpt-4o-mini"
VERSION = "0.1.0"
LESSON_BANNER = ("No OPENAI_API_KEY: running the offline lesson model. It is a script that replays "
                 "the step-42 lesson. Try: /plan add a greeting file")


ENVIRONMENT = """environment:
  OPENAI_API_KEY   the endpoint's key (without one, and without a local OPENAI_BASE_URL,
                   the offline lesson model runs)
  OPENAI_BASE_URL  an OpenAI-compatible endpoint (default: https://api.openai.com/v1)
  OPENAI_MODEL     the model name (default: gpt-4o-mini; --model wins)
  STEPAGENT_HOME   where sessions, history and memory live (default: ~/.stepagent)
  EDITOR           what /memory NAME opens"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line, checked; bad values exit with status 2 and a usage line."""
    from ui.headless import OUTPUT_FORMATS
    from ui.slash import HELP

    parser = argparse.ArgumentParser(
        prog="stepagent", description="A coding agent that plans before it acts.",
        epilog=f"{ENVIRONMENT}\n\nin the REPL:\n{HELP}\n\n-p exit codes: 0 answered, 1 failed, "
               "2 no such session, 3 the session is open elsewhere, 4 a plan awaits approval (nothing changed), "
               "130 interrupted.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("message", nargs="?", help="start the REPL and send this message first")
    parser.add_argument("--version", action="version", version=f"%(prog)s {VERSION}")
    parser.add_argument("--mode", choices=MODE_CYCLE,
                        help="start in this mode (default: build, or the resumed session's)")
    parser.add_argument("-p", "--prompt", help="run one turn headless and print the final answer "
                        "(- reads the prompt from standard input)")
    parser.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text",
                        help="with -p: the answer as text, one JSON object, or JSON lines as it runs")
    parser.add_argument("--approve-plan", action="store_true",
                        help="with -p: approve the model's plan instead of stopping at it (exit code 4)")
    parser.add_argument("--model", help=f"model name (default: $OPENAI_MODEL or {DEFAULT_MODEL})")
    parser.add_argument("--script", type=Path, help="replay a scripted model from a JSON file")
    parser.add_argument("--record", type=Path, metavar="FILE",
                        help="write this session's model turns as a scenario --script replays")
    parser.add_argument("--check", action="store_true",
                        help="with --script: replay a recording and report tool results that differ")
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument("--resume", nargs="?", const="", metavar="ID",
                        help="resume a stored session (without ID: list this workspace's sessions)")
    resume.add_argument("--continue", dest="continue_latest", action="store_true",
                        help="resume the latest session of this workspace")
    parser.add_argument("--context-window", type=int, default=128_000, metavar="TOKENS",
                        help="the model's context window (default: %(default)s)")
    parser.add_argument("--doctor", action="store_true",
                        help="show which plan-mode sandbox layers this machine has, then exit")
    parser.add_argument("--compact-at", type=float, default=0.8, metavar="SHARE",
                        help="compact automatically past this share of the window (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.prompt == "-":
        args.prompt = sys.stdin.read()
    if args.prompt is not None and not args.prompt.strip():
        parser.error("-p needs a prompt")
    if args.prompt is not None and args.message:
        parser.error("give the prompt either with -p or as MESSAGE, not both")
    if not 0 < args.compact_at <= 1:
        parser.error("--compact-at must be a share between 0 and 1")
    if args.check and not args.script:
        parser.error("--check needs --script FILE (a recording)")
    return args


def choose_model(args: argparse.Namespace) -> tuple[Model, str]:
    """The model to talk to, and a banner to show (the offline lesson announces itself).

    A server on this machine needs no real key. `--model` is checked against the
    endpoint's catalog when it has one: an unknown name is a ModelError listing the nearest ids.
    """
    if args.script:
        return load_script(args.script), ""
    key = os.environ.get("OPENAI_API_KEY") or ""
    base_url = os.environ.get("OPENAI_BASE_URL") or None
    if not key and not (base_url and is_local(base_url)):
        return load_script(LESSON_SCRIPT, name="offline lesson model (scripted)"), LESSON_BANNER
    from models.openai_chat import OpenAIChatModel

    threading.Thread(target=lambda: __import__("openai"), daemon=True).start()
    model = OpenAIChatModel(args.model or os.environ.get("OPENAI_MODEL") or DEFAULT_MODEL, key, base_url)
    if args.model:
        model.name = checked_name(args.model, model.list_models)
    return model, ""


def show_model_notices(model: Model, view: "ConsoleView") -> None:
    """Retries, adaptations and reasoning from a real model client reach the screen, dimmed."""
    if hasattr(model, "on_notice"):
        model.on_notice, model.on_reasoning = view.model_notice, view.on_reasoning


def main(argv: list[str] | None = None) -> int:
    """Run stepagent; the return value is the process's exit code."""
    args = parse_args(argv)
    headless = args.prompt is not None
    workspace = Path.cwd()
    from rich.console import Console

    from ui import callbacks, startup
    from ui.ask import headless_ask, interactive_ask
    from ui.console import ConsoleView

    if args.doctor:
        from ui.doctor import endpoint_row, show_doctor

        return show_doctor(Console(), [*layer_rows(detect_layers()),
                                       endpoint_row(lambda: choose_model(args)[0])])
    view = ConsoleView(Console(stderr=headless), stream_markdown=not headless,
                       sandbox_status=sandbox_status)
    store = startup.open_store(default_home(), view)
    if args.resume == "":
        return startup.list_sessions(store, workspace, view)
    try:
        model, banner = choose_model(args)
    except ModelError as failure:
        view.error(str(failure))
        return 2
    if banner:
        view.notice(banner, style="bold yellow")
    show_model_notices(model, view)
    state = AppState()
    state.events.subscribe(view.on_event)
    confirm = None
    if headless:
        present = callbacks.headless_present(view, args.approve_plan)
        approve = callbacks.headless_approve(view)
        questions = headless_ask(view)
    else:
        from prompt_toolkit import prompt as ask

        present = callbacks.interactive_present(view, ask, lambda: state.permission_mode.value)
        approve, confirm = callbacks.interactive_approve(view, ask), callbacks.interactive_confirm(ask)
        questions = interactive_ask(view, ask)
    if args.check:
        present, approve = replay_answers(load_recording(args.script))
    if args.record:
        recorder = Recorder(args.record, state, workspace, f"Recorded with {model.name}")
        state.events.subscribe(recorder.on_event)
    agent = assemble(workspace, state, model, present, approve,
                     compact_after_tokens=(args.context_window, args.compact_at), home=default_home(),
                     store=store, ask=questions)
    agent.on_text, agent.on_reply_end = view.on_text, view.on_reply_end
    agent.preparers.append(lambda _agent: view.working())
    journal = Journal(store, state, workspace, view.error, SessionLock(default_home() / "locks"))
    state.events.subscribe(journal.on_event)
    session = Session(agent, journal, context_window=args.context_window)
    failed = startup.resume_if_asked(args.resume, args.continue_latest, session, view, confirm)
    if failed is not None:
        return failed
    if args.mode:
        state.select(args.mode, "--mode")
    if args.check:
        from ui.replay import run_check

        return run_check(agent, load_recording(args.script), view)
    if headless:
        from ui.headless import run_headless

        return run_headless(agent, args.prompt, view, args.output_format)
    from ui.repl import history_at, run_repl

    return run_repl(session, view, history_at(default_home() / "history"), args.message or "")


def run_guarded(argv: list[str] | None = None) -> int:
    """main() behind the last guard: an error nothing else caught is one line and exit code 1
    (STEPAGENT_DEBUG=1 shows the traceback instead)."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        return 130
    except Exception as failure:
        if os.environ.get("STEPAGENT_DEBUG"):
            raise
        from ui.safe_text import safe

        print(safe(f"stepagent: internal error: {type(failure).__name__}: {failure}"), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(run_guarded())
