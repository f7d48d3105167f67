"""stepagent's command line: parse the flags, assemble the agent, wire the UI in.

    python index.py [--mode build|edit|yolo|plan] [--model NAME] [--script FILE] [MESSAGE]
                    [--record FILE] [--script FILE --check]
    python index.py -p PROMPT|- [--output-format text|json|stream-json]
                    [--approve-plan[=MODE]]
    python index.py --doctor | --version | --help

The workspace is the current directory. This is the one file that knows every
part: `product_layers` lists the layers the product attaches to the core
(agent/assemble.py), each one function beside its feature. main builds the
state and the model, injects the UI callbacks — ExitPlanMode's `present`, the
permission `approve` and AskUserQuestion's `ask` (ui/callbacks.py) — and hands
the agent to the REPL or to one headless turn. Which model runs is
ui/model_choice.py's; the store, its journal and resume are ui/startup.py's.
Nothing runs at import time.
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial
from pathlib import Path
from typing import Callable, NoReturn

from rich.console import Console

from agent.assemble import Layer, assemble
from agent.subagents import subagent_layer
from models.base import Model
from models.bounds import DEFAULT_DEADLINE_SECONDS
from session.compaction import compaction_layer
from session.context_tool import session_context_layer
from session.mentions import mentions_layer
from session.recording import Recorder, load_recording, replay_answers
from session.reminders import reminders_layer
from session.rewind.layer import rewind_layer
from session.store import SessionStore, default_home
from settings.user_hooks import UserHooks, load_user_settings
from settings.user_layer import user_events_layer, user_rules_layer
from state import MODE_CYCLE, AppState
from tools.ask_user import Answers, Questionnaire, ask_user_layer
from tools.bash.classifier.classify import classify
from tools.bash.layer import bash_layer
from tools.bash.sandbox.status import sandbox_status
from tools.bash.stop_left_running import stop_left_running_layer
from tools.judgement import Judgement
from tools.list_models import list_models_layer
from tools.memory import memory_layer
from tools.plan_mode import PlanReview
from tools.safe_read import hardened_reads_layer
from tools.search import search_layer
from tools.todos import todo_layer
from ui import startup
from ui.callbacks import callbacks_for
from ui.console import ConsoleView
from ui.model_choice import DEFAULT_MODEL, choose_model, open_model
from ui.workspace_trust import trusted_workspace

VERSION = "0.1.0"

ENVIRONMENT = """environment:
  OPENAI_API_KEY   the endpoint's key (optional with OPENAI_BASE_URL; with neither set, or
                   with --lesson, the offline lesson model runs)
  OPENAI_BASE_URL  an OpenAI-compatible endpoint (default: https://api.openai.com/v1)
  OPENAI_MODEL     the model name (default: gpt-4o-mini; --model wins)
  STEPAGENT_HOME   where sessions, history, memory and checkpoints live (default: ~/.stepagent)
  EDITOR           what /memory NAME opens"""

EXIT_CODES = """exit codes:
  0    answered (-p), or the REPL, --resume list, --export-html, --doctor or --check ended well
  1    the model, a limit or an internal error failed the run, or -p's answer was cut; --doctor or --check found a problem
  2    bad arguments, a --script or --model that cannot be used, or no session to resume
  3    the session to resume is open in another stepagent process (-p never forks it)
  4    -p: a plan awaits approval, nothing was changed (--approve-plan approves it)
  5    -p: answered, but calls that needed an answer nobody could give were denied (listed)
  130  interrupted (Ctrl-C)
  141  -p: the reader of the output went away (`| head -1`); the run ended there"""
MAX_CONTEXT_WINDOW = 100_000_000


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad argument said in one line on standard error (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        """Say what is wrong with the command line in one line, and exit with status 2."""
        self.exit(2, f"{self.prog}: {message} (stepagent --help lists every option)\n")


def product_layers(home: Path | None = None, store: SessionStore | None = None,
                   ask: Callable[[Questionnaire], Answers] | None = None,
                   ask_timeout: float | None = None, window: tuple[int, float] = (128_000, 0.8),
                   classifier: Callable[[str], Judgement] = classify,
                   model_named: Callable[[str], Model] | None = None,
                   user_hooks: UserHooks | None = None) -> list[Layer]:
    """The product: what attaches to the core, in order. Sub-agents get the tool layers only.

    Without `home` there is no memory and no rewind, without `store` no ReadSessionContext
    (and rewind's checkpoints last only as long as the process), without `user_hooks` none of
    the user's settings (hooks and permission rules).
    """
    tool_layers: list[Layer] = [
        hardened_reads_layer,  # Read, Write and Edit read host files the safe way
        partial(bash_layer, classifier=classifier),  # judged once, sandboxed while planning
        search_layer,  # Glob and Grep: ripgrep, in a read-only view
        todo_layer,  # TodoWrite and TodoRead
        list_models_layer,  # ListModels: the endpoint's catalog
    ]
    if home is not None:
        tool_layers.append(partial(memory_layer, home=home))  # Remember, Forget, the memory section
    if store is not None:
        tool_layers.append(partial(session_context_layer, store=store))  # ReadSessionContext
    if user_hooks is not None:
        tool_layers.append(partial(user_rules_layer, hooks=user_hooks))  # deny/ask/allow rules, tool hooks
    prompt_layers = [partial(user_events_layer, hooks=user_hooks)] if user_hooks is not None else []
    layers = [
        *tool_layers,
        partial(ask_user_layer, ask=ask, timeout=ask_timeout),  # AskUserQuestion
        stop_left_running_layer,  # plan mode stops what Bash calls left running
        partial(subagent_layer, child_layers=tool_layers, model_named=model_named),  # Agent
        partial(compaction_layer, window_tokens=window[0], share=window[1]),
        reminders_layer,  # plan-mode, plan-ended and todo reminders
        mentions_layer,  # a #sess_… in the user's message points at ReadSessionContext
        *prompt_layers,  # the user's UserPromptSubmit, SessionStart and Stop hooks
    ]
    if home is not None:  # a checkpoint before each prompt, and /rewind
        layers.append(partial(rewind_layer, home=home, store=store))
    return layers


def argument_parser() -> argparse.ArgumentParser:
    """Every flag stepagent takes, with its help (README.md names each one; a test checks)."""
    from ui.headless import OUTPUT_FORMATS
    from ui.slash import HELP

    parser = OneLineParser(
        prog="stepagent", description="A coding agent that plans before it acts.",
        epilog=f"{ENVIRONMENT}\n\nin the REPL:\n{HELP}\n\n{EXIT_CODES}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("message", nargs="?", help="start the REPL and send this message first")
    parser.add_argument("--version", action="version", version=f"%(prog)s {VERSION}")
    parser.add_argument("--mode", choices=MODE_CYCLE,
                        help="start in this mode (default: build, or the resumed session's)")
    parser.add_argument("-p", "--prompt", help="run one turn headless and print the final answer "
                        "(- reads the prompt from standard input)")
    parser.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text",
                        help="with -p: the answer as text, one JSON object, or JSON lines as it runs")
    parser.add_argument("--approve-plan", nargs="?", const="", choices=("", "build", "edit", "yolo"),
                        metavar="MODE", help="with -p: approve the model's plan instead of stopping "
                        "at it (exit code 4), and go on in MODE (--approve-plan=edit lets the "
                        "implementation write; bare: the mode in force)")
    parser.add_argument("--model", help=f"model name (default: $OPENAI_MODEL or {DEFAULT_MODEL})")
    parser.add_argument("--script", type=Path, help="replay a scripted model from a JSON file")
    parser.add_argument("--lesson", action="store_true",
                        help="play the offline step-42 lesson, whatever OPENAI_API_KEY and "
                        "OPENAI_BASE_URL say")
    parser.add_argument("--timeout", type=float, default=DEFAULT_DEADLINE_SECONDS, metavar="SECONDS",
                        help="give up on a model request after SECONDS, its retries included "
                        "(default: %(default)g)")
    parser.add_argument("--record", type=Path, metavar="FILE",
                        help="write this session's model turns as a scenario --script replays")
    parser.add_argument("--check", action="store_true",
                        help="with --script: replay a recording and report tool results that differ")
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument("--resume", nargs="?", const="", metavar="ID",
                        help="resume a stored session (without ID: list this workspace's sessions)")
    resume.add_argument("--continue", dest="continue_latest", action="store_true",
                        help="resume the latest session of this workspace")
    parser.add_argument("--export-html", metavar="FILE",
                        help="with --resume ID or --continue: write that session as one HTML page to "
                        "FILE, then exit (the session is only read)")
    parser.add_argument("--context-window", type=int, default=128_000, metavar="TOKENS",
                        help="the model's context window (default: %(default)s)")
    parser.add_argument("--doctor", action="store_true",
                        help="show which plan-mode sandbox layers this machine has and try the model "
                        "endpoint with one small request, then exit")
    parser.add_argument("--compact-at", type=float, default=0.8, metavar="SHARE",
                        help="compact automatically past this share of the window (default: %(default)s)")
    parser.add_argument("--trust-workspace", action="store_true",
                        help="run this workspace's own hooks and allow rules (.stepagent/settings.json) "
                        "this run; -p never runs them otherwise, the REPL asks once")
    parser.add_argument("--try-calls", type=Path, metavar="FILE",
                        help="run the tool calls in FILE through the hooks and rules without a model, "
                        "without running them, and print each decision")
    parser.add_argument("--ask-timeout", type=float, metavar="SECONDS",
                        help="let the model's questions (AskUserQuestion) go on unanswered after "
                        "SECONDS: silent for a fifth of it (at most 60 s), then a countdown; any key "
                        "stops it (default: wait for the user)")
    return parser


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line, checked; a bad value exits with status 2 and one line saying why."""
    parser = argument_parser()
    args = parser.parse_args(argv)
    if args.prompt == "-":
        args.prompt = sys.stdin.buffer.read().decode("utf-8", "replace")
    args.prompt, args.message = map(as_text, (args.prompt, args.message))
    if args.prompt is not None and not args.prompt.strip():
        parser.error("-p needs a prompt")
    if args.prompt is not None and args.message:
        parser.error("give the prompt either with -p or as MESSAGE, not both")
    if not 0 < args.compact_at <= 1:
        parser.error("--compact-at must be a share between 0 and 1")
    if args.check and not args.script:
        parser.error("--check needs --script FILE (a recording)")
    if args.ask_timeout is not None and not 0 < args.ask_timeout < float("inf"):
        parser.error("--ask-timeout must be a number of seconds above 0")
    if args.export_html is not None and not (args.resume or args.continue_latest):
        parser.error("--export-html needs the session: --resume ID or --continue")
    if args.export_html is not None and (args.prompt is not None or args.message):
        parser.error("--export-html only writes a page; run the prompt separately")
    if not 0 < args.timeout < float("inf"):
        parser.error("--timeout must be a number of seconds above 0")
    if not 1000 <= args.context_window <= MAX_CONTEXT_WINDOW:
        parser.error(f"--context-window must be a number of tokens from 1000 to {MAX_CONTEXT_WINDOW}")
    if args.model is not None and not args.model.strip():
        parser.error("--model needs a model name")
    if args.record is not None and not os.access(args.record.parent, os.W_OK | os.X_OK):
        parser.error(f"--record {args.record}: the folder {args.record.parent} does not exist "
                     "or cannot be written")
    return args


def as_text(argument: str | None) -> str | None:
    """An argument as text: bytes that are not UTF-8 (Python keeps them as escapes) become U+FFFD."""
    if argument is None:
        return None
    return argument.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def main(argv: list[str] | None = None) -> int:
    """Run stepagent; the return value is the process's exit code."""
    args = parse_args(argv)
    headless, workspace, home = args.prompt is not None or args.try_calls, Path.cwd(), default_home()
    if args.doctor:
        from ui.doctor import run_doctor

        return run_doctor(lambda: choose_model(args.script, args.model, lesson=args.lesson,
                                               deadline=args.timeout)[0])
    view = ConsoleView(Console(stderr=headless, soft_wrap=headless), stream_markdown=not headless,
                       repl=not headless,
                       sandbox_status=sandbox_status)
    if args.resume == "":
        return startup.list_sessions(startup.open_store(home, view), workspace, view)
    if args.export_html is not None:
        from ui.export import export_from_command_line

        return export_from_command_line(startup.open_store(home, view), workspace, args.resume or "",
                                        args.export_html, view)
    model = open_model(args.script, args.model, view, lesson=args.lesson, deadline=args.timeout)
    if model is None:
        return 2
    store = startup.open_store(home, view)
    state = AppState()
    callbacks = callbacks_for(view, state, headless, args.approve_plan)
    present, approve, ask, confirm = callbacks[:4]
    user_hooks = open_user_settings(home, workspace, view, confirm, args.trust_workspace)
    if args.try_calls:
        return try_calls_from(args, state, model, present, view, user_hooks)
    state.events.subscribe(view.on_event)
    if args.check:
        present, approve = replay_answers(load_recording(args.script))
    if args.record:
        recorder = Recorder(args.record, state, workspace, f"Recorded with {model.name}")
        state.events.subscribe(recorder.on_event)
    agent = assemble(workspace, state, model, present, approve,
                     product_layers(home, store, ask, args.ask_timeout,
                                    (args.context_window, args.compact_at), user_hooks=user_hooks))
    startup.show_agent_on(view, agent)
    session = startup.open_session(agent, store, home, view, args.context_window)
    session.user_hooks = user_hooks
    callbacks.bind(session)
    failed = startup.resume_if_asked(args.resume, args.continue_latest, session, view, confirm)
    if failed is not None:
        return failed
    if args.mode:
        planning = state.plan_mode
        state.select(args.mode, f"--mode {args.mode}")
        if planning and not state.plan_mode:
            view.notice(f"The resumed session was planning: --mode {args.mode} left plan mode, and "
                        "no plan was approved.", style="yellow")
    if args.check:
        from ui.replay import run_check

        return run_check(agent, load_recording(args.script), view)
    if headless:
        from ui.headless import run_headless

        return run_headless(agent, args.prompt, view, args.output_format)
    from ui.repl import history_at, run_repl

    return run_repl(session, view, history_at(home / "history"), args.message or "", callbacks)


def open_user_settings(home: Path, workspace: Path, view: ConsoleView,
                       confirm: Callable[[str], bool] | None, trust_flag: bool) -> UserHooks:
    """The user's hooks and rules for this run: trust asked about once, each problem one line."""
    loaded = load_user_settings(home, workspace, trusted_workspace(home, workspace, view, confirm,
                                                                   trust_flag))
    for problem in loaded.settings.problems:
        view.error(problem)
    if loaded.off:
        view.notice(loaded.off, style="yellow")
    return UserHooks(loaded.settings, workspace, home, notify=view.error, waiting=loaded.waiting_for_trust)


def try_calls_from(args: argparse.Namespace, state: AppState, model: Model,
                   present: Callable[[str], PlanReview], view: ConsoleView, user_hooks: UserHooks) -> int:
    """--try-calls FILE: the calls decided by the hooks and rules, nothing run (ui/try_calls.py)."""
    from ui.try_calls import NotCalls, read_calls, try_calls, would_ask

    try:
        calls = read_calls(args.try_calls)
    except NotCalls as failure:
        view.error(str(failure))
        return 2
    agent = assemble(Path.cwd(), state, model, present, would_ask,
                     product_layers(default_home(), user_hooks=user_hooks))
    if args.mode:
        state.select(args.mode, "--mode")
    return try_calls(agent, calls, view)


def run_guarded(argv: list[str] | None = None) -> int:
    """main() behind the last guard: an error nothing else caught is one line and exit code 1.

    STEPAGENT_DEBUG=1 shows the traceback instead.
    """
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
