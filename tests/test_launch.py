"""What a start loads before it answers: `--help`, `--version` and a bad flag load nothing of
the agent, only the command line's own light modules; a plain start of the REPL draws its
prompt before it builds the agent, and the agent built behind it answers what was typed
meanwhile (bench/startup.py times both; this checks the structure that makes them fast,
never the clock)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pexpect
import pytest
from prompt_toolkit import PromptSession
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.renderer import Renderer

from models.defaults import DEFAULT_MODEL
from tests.terminal import Screen, Terminal
from ui.prompt import after_first_draw

ROOT = Path(__file__).resolve().parent.parent
# What the command line reads: its parser, the slash commands' help, the modes, the model's defaults,
# the session store's wait.
COMMAND_LINE = {"ui", "ui.command_line", "ui.modes", "ui.slash_help", "models", "models.defaults", "session",
                "session.busy"}
PROJECT_PACKAGES = {"agent", "hooks", "models", "session", "settings", "tools", "ui", "state",
                    "step42_plan_mode", "index"}
HEAVY = {"rich", "prompt_toolkit", "openai", "httpx", "sqlite3", "dataclasses", "typing", "pathlib",
         "shutil", "textwrap"}
AFTER_PARSING = """
import sys
from ui.command_line import parse_args
parse_args(sys.argv[1:])
print(" ".join(sys.modules))
"""


def imported(*command: str, cwd: Path) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run python with `command` under -X importtime; what it printed, and every module it imported."""
    env = {**os.environ, "STEPAGENT_HOME": str(cwd / "home")}
    ran = subprocess.run([sys.executable, "-X", "importtime", *command], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=60)
    names = {line.rsplit("|", 1)[1].strip() for line in ran.stderr.splitlines()
             if line.startswith("import time:")}
    return ran, names


def ours(names: set[str]) -> set[str]:
    return {name for name in names if name.split(".")[0] in PROJECT_PACKAGES}


@pytest.mark.parametrize("flag", ["--help", "--version", "--mode=nonsense"])
def test_help_version_and_a_bad_flag_load_only_the_command_line(tmp_path, flag):
    ran, names = imported(str(ROOT / "index.py"), flag, cwd=tmp_path)
    assert ran.returncode == (2 if "nonsense" in flag else 0), ran.stderr
    assert "stepagent" in ran.stdout + ran.stderr
    assert ours(names) == COMMAND_LINE
    assert not {name.split(".")[0] for name in names} & HEAVY


def test_a_good_command_line_is_parsed_without_the_agent(tmp_path):
    ran = subprocess.run([sys.executable, "-c", AFTER_PARSING, "--mode", "plan", "--model", "m",
                          "--output-format", "json", "-p", "hi"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    names = set(ran.stdout.split())
    assert ours(names) == COMMAND_LINE
    assert not {name.split(".")[0] for name in names} & HEAVY


@pytest.mark.parametrize("columns", ["", "60", "200", "nonsense"])
def test_help_wraps_where_argparse_would(monkeypatch, columns):
    from ui.command_line import help_width

    monkeypatch.setenv("COLUMNS", columns)
    assert help_width() == shutil.get_terminal_size().columns - 2


def test_help_breaks_lines_between_words_only_and_within_the_width(monkeypatch):
    """At any width: no flag cut at its hyphens (textwrap cut `--approve-plan=edit`), no line too long."""
    from ui.command_line import argument_parser

    for columns in range(40, 161, 3):
        monkeypatch.setenv("COLUMNS", str(columns))
        parser = argument_parser()
        shown = parser.format_help()
        words = " ".join(shown.split())
        for action in parser._actions:
            assert " ".join((action.help or "").split()) % {"default": action.default} in words, columns
        flags = shown.split("\noptions:\n")[1].split("\nenvironment:")[0]
        helps = [line for line in flags.splitlines() if not line.lstrip().startswith("-")]
        assert all(len(line) <= columns - 2 or " " not in line.strip() for line in helps), columns


def test_help_shows_what_the_agent_defines(tmp_path):
    from ui.modes import MODE_CYCLE
    from models.defaults import DEFAULT_MODEL
    from ui.slash_help import command_names

    shown = subprocess.run([sys.executable, str(ROOT / "index.py"), "--help"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60).stdout
    assert "{" + ",".join(MODE_CYCLE) + "}" in shown and DEFAULT_MODEL in shown
    assert all(name in shown for name in command_names())


# What the first draw of a plain REPL start does not wait for: the model client, the store and
# SQLite, the user's settings, the tools' layers and the Bash parsers, the todo list's tools, the
# sandbox probe, the slash commands with the page export, rich with its markdown and highlighting
# (ui/prompt_first.py).
NOT_BEFORE_THE_PROMPT = {"openai", "httpx", "sqlite3", "tree_sitter", "bashlex", "rich", "pygments",
                         "agent.assemble", "agent.loop", "session.store", "ui.product", "ui.console",
                         "ui.slash", "ui.export", "settings.user_hooks", "tools.bash.sandbox.status",
                         "tools.todos", "tools.base", "step42_plan_mode.lesson_model"}


def plain_start(workspace: Path, tmp_path: Path, **env: str) -> Terminal:
    environment = {name: value for name, value in os.environ.items() if not name.startswith("OPENAI_")}
    return Terminal.start(workspace, env={**environment, "STEPAGENT_HOME": str(tmp_path / "home"), **env})


@pytest.mark.parametrize("model", ["lesson", "real"])
def test_a_plain_start_draws_the_prompt_before_building_the_agent(workspace, tmp_path, model):
    real = {"OPENAI_API_KEY": "x", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"} if model == "real" else {}
    terminal = Terminal.start(workspace, program=sys.executable, env={
        **{n: v for n, v in os.environ.items() if not n.startswith("OPENAI_")}, **real,
        "STEPAGENT_HOME": str(tmp_path / "home")}, *["-X", "importtime", str(ROOT / "index.py")])
    terminal.child.logfile_read = shown = io.StringIO()
    try:
        terminal.expect("›")
        before = {line.rsplit("|", 1)[1].strip() for line in shown.getvalue().splitlines()
                  if line.startswith("import time:") and "|" in line}
        assert "prompt_toolkit" in before and "state" in before
        assert not before & NOT_BEFORE_THE_PROMPT, sorted(before & NOT_BEFORE_THE_PROMPT)
        terminal.expect_text("Plan-mode sandbox:")  # the start-up line, above the prompt once built
    finally:
        terminal.close()


def test_a_line_typed_before_the_agent_is_built_is_answered(workspace, tmp_path):
    terminal = plain_start(workspace, tmp_path)
    try:
        terminal.expect("›")
        terminal.sendline("/todos")
        terminal.expect_text("stepagent · model offline lesson model")  # built behind the prompt
        terminal.expect_text("The todo list is empty.")
        terminal.sendline("/exit")
        terminal.expect(pexpect.EOF)
    finally:
        terminal.close()


def test_a_start_that_fails_behind_the_prompt_ends_it_with_its_exit_code(workspace, tmp_path):
    terminal = plain_start(workspace, tmp_path, OPENAI_BASE_URL="ftp://example.invalid")
    terminal.expect_text("is not an http(s) URL")
    terminal.expect(pexpect.EOF)
    terminal.child.close()
    assert terminal.child.exitstatus == 2


TODOS = [{"content": "Read the loader", "status": "completed"},
         {"content": "Trace the merge", "status": "in_progress", "activeForm": "Tracing the merge"},
         {"content": "Write the plan", "status": "pending"}]


def test_the_toolbar_drawn_before_the_agent_shows_its_todos_mode_and_model(server, workspace, tmp_path):
    """The toolbar of a plain start is given the todo list, the model and the context by callbacks
    (ui/prompt_first.py): once the agent is built, they are the session's."""
    server.reply_tool_calls(("TodoWrite", {"todos": TODOS}))
    server.reply_text("Listed the steps.")
    screen = Screen(tmp_path, workspace, env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.url})
    try:
        screen.wait_for("›")
        screen.keys("list the steps", "Enter")
        screen.wait_for("Listed the steps.")
        toolbar = last_line_with(screen, "todos 1/3")
    finally:
        screen.close()
    assert toolbar.startswith("mode: build  ·  todos 1/3: Tracing the merge  ·  context "), toolbar
    assert toolbar.endswith(f"model: {DEFAULT_MODEL}"), toolbar


def last_line_with(screen: Screen, wanted: str, timeout: float = 30) -> str:
    """The screen's last line (the toolbar, under the prompt), once it holds `wanted`."""
    def last(shown: str) -> str | None:
        line = shown.rstrip().splitlines()[-1].strip()
        return line if wanted in line else None

    return screen.wait_until(last, f"a last line with {wanted!r}", timeout)


class TerminalScreen(io.StringIO):
    """What a terminal shows, kept as text; a terminal answers cursor-position requests."""

    def isatty(self) -> bool:
        return True


def first_draw_then(answer: bool, enter_at_once: bool = False) -> tuple[list[bool], str]:
    """A prompt with a toolbar on a terminal that answers where its cursor is (or never does),
    "hello" typed at it, Enter pressed once the first draw's action has run (or at once): whether
    the toolbar was on screen when the action ran, and the line read."""
    screen, seen = TerminalScreen(), []
    ran = threading.Event()
    with create_pipe_input() as keys:
        output = Vt100_Output(screen, lambda: Size(rows=24, columns=80), term="xterm")
        prompt: PromptSession = PromptSession(input=keys, output=output, bottom_toolbar="mode: build")
        after_first_draw(prompt, lambda: (seen.append("mode: build" in screen.getvalue()), ran.set()))
        keys.send_text("hello" + ("\x1b[1;1R" if answer else "") + ("\r" if enter_at_once else ""))
        if not enter_at_once:
            threading.Thread(target=lambda: (ran.wait(30), keys.send_text("\r")), daemon=True).start()
        read = prompt.prompt("› ")
    ran.wait(30)
    return seen, read


def test_what_follows_the_first_draw_waits_until_the_toolbar_is_drawn():
    """The agent built behind the prompt does not compete with the drawing of its toolbar, which
    prompt-toolkit draws once the terminal has said where the cursor is."""
    assert first_draw_then(answer=True) == ([True], "hello")


def test_what_follows_the_first_draw_runs_when_the_terminal_never_answers(monkeypatch):
    """No toolbar is drawn then, and nothing waits forever: it runs when prompt-toolkit gives up on
    the answer."""
    monkeypatch.setattr(Renderer, "CPR_TIMEOUT", 0.2)
    assert first_draw_then(answer=False) == ([False], "hello")


def test_what_follows_the_first_draw_runs_at_once_when_the_line_is_entered_first(monkeypatch):
    """A line entered before the terminal answered is not kept waiting for the answer: the agent
    built behind the prompt must answer it."""
    monkeypatch.setattr(Renderer, "CPR_TIMEOUT", 3600)
    assert first_draw_then(answer=False, enter_at_once=True) == ([False], "hello")
