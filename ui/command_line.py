"""stepagent's command line: every flag with its help, and the checks on their values.

Line zero of a start: `--help`, `--version` and a bad flag end here, before anything of the
agent is loaded. So this module and what it reads (the slash commands' help, the modes, the
model's defaults) import nothing heavier than argparse; index.py imports the product only
once the command line is known to be good (tests/test_launch.py checks what is loaded).
"""

from __future__ import annotations

import argparse
import os
import sys

from models.defaults import DEFAULT_DEADLINE_SECONDS, DEFAULT_MODEL
from session.busy import BUSY_TIMEOUT_SECONDS
from ui.modes import MODE_CYCLE
from ui.slash_help import HELP

TYPE_CHECKING = False  # typing's flag, read by type checkers; importing typing costs --help a tenth
if TYPE_CHECKING:
    from pathlib import Path
    from typing import NoReturn

VERSION = "0.1.0"

ENVIRONMENT = f"""environment:
  OPENAI_API_KEY   the endpoint's key (optional with OPENAI_BASE_URL; with neither set, or
                   with --lesson, the offline lesson model runs)
  OPENAI_BASE_URL  an OpenAI-compatible endpoint (default: https://api.openai.com/v1)
  OPENAI_MODEL     the model name (default: {DEFAULT_MODEL}; --model wins)
  STEPAGENT_HOME   where sessions, history, memory and checkpoints live (default: ~/.stepagent)
  STEPAGENT_BUSY_TIMEOUT  seconds a write to the session store waits while another stepagent
                   writes to it, before going on in memory (default: {BUSY_TIMEOUT_SECONDS:g})
  VISUAL, EDITOR   what /memory NAME and Ctrl+G at the plan review open (default: vi)"""

EXIT_CODES = """exit codes:
  0    answered (-p), or the REPL, --resume list, --export-html, --doctor or --check ended well
  1    the model, a limit or an internal error failed the run, or -p's answer was cut; --doctor or --check found a problem
  2    bad arguments, a --script, --model or --plan-model that cannot be used, or no session to resume
  3    the session to resume is open in another stepagent process (-p never forks it)
  4    -p: a plan awaits approval, nothing was changed (--approve-plan approves it)
  5    -p: answered, but calls that needed an answer nobody could give were denied (listed)
  130  interrupted (Ctrl-C)
  141  -p: the reader of the output went away (`| head -1`); the run ended there"""
MAX_CONTEXT_WINDOW = 100_000_000
OUTPUT_FORMATS = ("text", "json", "stream-json")


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad argument said in one line on standard error (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        """Say what is wrong with the command line in one line, and exit with status 2."""
        self.exit(2, f"{self.prog}: {message} (stepagent --help lists every option)\n")


class WordWrappedHelp(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, with each flag's help wrapped between words only.

    argparse's own wrapping (textwrap) breaks at hyphens too, which cut `--approve-plan=edit`
    in two at some widths; and importing textwrap was a tenth of what `--help` costs.
    """

    def _split_lines(self, text: str, width: int) -> list[str]:
        lines: list[str] = []
        for word in text.split():
            if lines and len(lines[-1]) + 1 + len(word) <= width:
                lines[-1] += " " + word
            else:
                lines.append(word)
        return lines


def argument_parser() -> argparse.ArgumentParser:
    """Every flag stepagent takes, with its help (README.md names each one; a test checks)."""
    width = help_width()  # found once: argparse makes a formatter for every argument it adds
    parser = OneLineParser(
        prog="stepagent", description="A coding agent that plans before it acts.",
        epilog=f"{ENVIRONMENT}\n\nin the REPL:\n{HELP}\n\n{EXIT_CODES}",
        formatter_class=lambda prog: WordWrappedHelp(prog, width=width))
    parser.add_argument("message", nargs="?", help="start the REPL and send this message first")
    parser.add_argument("--version", action="version", version=f"%(prog)s {VERSION}")
    parser.add_argument("--mode", choices=MODE_CYCLE,
                        help="start in this mode (default: build, or the resumed session's)")
    parser.add_argument("-p", "--prompt", help="run one turn headless and print the final answer "
                        "(- reads the prompt from standard input)")
    parser.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text",
                        help="with -p: the answer as text, one JSON object, or JSON lines as it runs")
    parser.add_argument("--approve-plan", nargs="?", const="", metavar="MODE", help="with -p: approve the model's plan instead of stopping "
                        "at it (exit code 4), and go on in MODE (--approve-plan=edit lets the "
                        "implementation write; bare: the mode in force)")
    parser.add_argument("--model", help=f"model name (default: $OPENAI_MODEL or {DEFAULT_MODEL})")
    parser.add_argument("--plan-model", metavar="NAME",
                        help="send every request made while plan mode is on to this model, and "
                        "the session's model after approval (off: plan on the session's model; "
                        "a resumed session keeps its own unless this is given)")
    parser.add_argument("--script", type=path, help="replay a scripted model from a JSON file")
    parser.add_argument("--lesson", action="store_true",
                        help="play the offline step-42 lesson, whatever OPENAI_API_KEY and "
                        "OPENAI_BASE_URL say")
    parser.add_argument("--timeout", type=float, default=DEFAULT_DEADLINE_SECONDS, metavar="SECONDS",
                        help="give up on a model request after SECONDS, its retries included "
                        "(default: %(default)g)")
    parser.add_argument("--record", type=path, metavar="FILE",
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
    parser.add_argument("--try-calls", type=path, metavar="FILE",
                        help="run the tool calls in FILE through the hooks and rules without a model, "
                        "without running them, and print each decision")
    parser.add_argument("--ask-timeout", type=float, metavar="SECONDS",
                        help="let the model's questions (AskUserQuestion) go on unanswered after "
                        "SECONDS: silent for a fifth of it (at most 60 s), then a countdown; any key "
                        "stops it (default: wait for the user)")
    return parser


def help_width() -> int:
    """The width argparse would wrap the help to, found as shutil finds the terminal's size.

    Found here because argparse imports shutil for it, and shutil its compression modules:
    a tenth of what `--help` imports (tests/test_launch.py checks the width is argparse's).
    """
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns - 2


def path(text: str) -> Path:
    """A file named on the command line; pathlib is loaded only then, not for --help."""
    from pathlib import Path

    return Path(text)


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
    if args.approve_plan is not None and args.prompt is None:
        parser.error("--approve-plan works with -p only; in the REPL you review the plan yourself")
    if args.approve_plan not in (None, "", "build", "edit", "yolo"):
        parser.error(f"--approve-plan={args.approve_plan}: name the mode to build in, build, edit "
                     "or yolo (bare --approve-plan keeps the mode in force)")
    if args.output_format != "text" and args.prompt is None:
        parser.error(f"--output-format {args.output_format} works with -p only; the REPL draws "
                     "for a person")
    if args.ask_timeout is not None and not 0 < args.ask_timeout < float("inf"):
        parser.error("--ask-timeout must be a number of seconds above 0")
    if args.resume == "" and (args.prompt is not None or args.message):
        parser.error("--resume without an ID only lists the sessions; to run a prompt in one, "
                     "give its ID (--resume ID -p ...) or use --continue")
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
    if args.plan_model is not None and not args.plan_model.strip():
        parser.error("--plan-model needs a model name (or off)")
    if args.record is not None and not os.access(args.record.parent, os.W_OK | os.X_OK):
        parser.error(f"--record {args.record}: the folder {args.record.parent} does not exist "
                     "or cannot be written")
    return args


NO_TERMINAL = ("stepagent: the REPL needs a terminal, and standard input is not one; to run a "
               "prompt from a pipe or a file, use -p - (it reads the prompt from standard input)")


def starts_repl(args: argparse.Namespace) -> bool:
    """Whether this command line starts the REPL (rather than -p, a list, a page, a check…)."""
    return args.prompt is None and not (args.doctor or args.resume == "" or args.try_calls or
                                        args.check or args.export_html is not None)


def as_text(argument: str | None) -> str | None:
    """An argument as text: bytes that are not UTF-8 (Python keeps them as escapes) become U+FFFD."""
    if argument is None:
        return None
    return argument.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
