"""stepagent's command line: parse the flags, then load the product and run it.

    python index.py [--mode build|edit|yolo|plan] [--model NAME] [--plan-model NAME]
                    [--script FILE] [MESSAGE]
                    [--record FILE] [--script FILE --check]
    python index.py -p PROMPT|- [--output-format text|json|stream-json]
                    [--approve-plan[=MODE]]
    python index.py --doctor | --version | --help

The workspace is the current directory. The flags are parsed first, by a module that
loads nothing of the agent (ui/command_line.py), so `--help`, `--version` and a bad flag
answer at the speed of argparse; only then comes the product (ui/product.py: the layers
on the core, the UI callbacks injected, the REPL or one headless turn). A plain start of
the REPL draws its prompt first and builds the product behind it (ui/prompt_first.py).
Nothing runs at import time.
"""

from __future__ import annotations

import argparse
import os
import sys

from ui.command_line import NO_TERMINAL, parse_args, starts_repl


def main(argv: list[str] | None = None) -> int:
    """Run stepagent; the return value is the process's exit code.

    The REPL is refused (exit code 2) when standard input is no terminal, as a pipe is.
    """
    args = parse_args(argv)
    if starts_repl(args) and not sys.stdin.isatty():
        print(NO_TERMINAL, file=sys.stderr)
        return 2
    if draws_prompt_first(args):
        from ui.prompt_first import run_prompt_first

        return run_prompt_first(args)
    from ui.product import run

    return run(args)


def draws_prompt_first(args: argparse.Namespace) -> bool:
    """Whether this is a plain start of the REPL at a terminal, with nothing before the prompt.

    Nothing to show or ask first: no message to send, no session to resume, no mode to set,
    no script, recording or check, and no settings the workspace brings (trusting them is
    asked first).
    """
    from pathlib import Path

    from settings.paths import project_settings_path

    interactive = sys.stdin.isatty() and sys.stdout.isatty() and args.prompt is None
    asked = (args.message, args.script, args.record, args.check, args.mode, args.doctor,
             args.try_calls, args.resume is not None, args.continue_latest, args.export_html)
    return interactive and not any(asked) and not project_settings_path(Path.cwd()).exists()


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
