"""Docs that cannot drift: every file, function and command the README and the walkthroughs
(English and Chinese) name exists, every command they show runs and does what the text beside
it says, and every failure-mode number cited in the code is in the repository's list."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WALKTHROUGHS = [ROOT / "step42_plan_mode" / "README.md", ROOT / "step42_plan_mode" / "README.zh-CN.md"]
DOCS = [ROOT / "README.md", *WALKTHROUGHS]
FILE = re.compile(r"`((?:[\w.-]+/)*[\w.-]+\.(?:py|json|md))`")
FILE_AND_NAMES = re.compile(r"`((?:[\w-]+/)*[\w-]+\.py)`: ((?:`[\w.]+`(?:, )?)+)")
TABLE_ROW = re.compile(r"^\| `((?:[\w-]+/)*[\w-]+\.py)` \|(.*)$", re.M)
NAME = re.compile(r"`([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)`")
COMMAND = re.compile(r"\./bin/([\w-]+)")
WALKTHROUGH = ROOT / "step42_plan_mode" / "README.md"
COURSE_ROW = re.compile(r"^\| [^|\n]+ \| `((?:[\w-]+/)*[\w-]+\.py)` \| ((?:`[\w.]+`(?:, )?)+) \|$", re.M)
SHELL_BLOCK = re.compile(r"```bash\n(.*?)```", re.S)
DELTA_ROW = re.compile(r"^\| `((?:[\w-]+/)*[\w-]+\.py)` \|(.*)\| ([\d + ]+) \|$", re.M)


def doc_text(doc: Path) -> str:
    return doc.read_text(encoding="utf-8")


def resolve(doc: Path, name: str) -> Path:
    for base in (ROOT, doc.parent):
        if (base / name).exists():
            return base / name
    return ROOT / name


def defined(path: Path, dotted: str) -> bool:
    """Whether the last part of `dotted` is a name in the file (def, class, field or constant)."""
    last = dotted.split(".")[-1]
    return re.search(rf"\b{re.escape(last)}\b", path.read_text(encoding="utf-8")) is not None


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_named_file_exists(doc):
    missing = [name for name in FILE.findall(doc_text(doc)) if not resolve(doc, name).exists()]
    assert not missing


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_named_function_is_in_its_file(doc):
    text = doc_text(doc)
    pairs = [(f, n) for f, names in FILE_AND_NAMES.findall(text) for n in NAME.findall(names)]
    pairs += [(f, n) for f, row in TABLE_ROW.findall(text) for n in NAME.findall(row)
              if not n.endswith(".py")]
    assert pairs, "the doc names functions"
    missing = [f"{f}: {n}" for f, n in pairs if not defined(resolve(doc, f), n)]
    assert not missing


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_bin_command_exists(doc):
    missing = [c for c in COMMAND.findall(doc_text(doc)) if not (ROOT / "bin" / c).exists()]
    assert not missing


def test_every_cited_failure_mode_is_in_the_list():
    listed = set(re.findall(r"^(\d+)\. ", (ROOT / "step42_plan_mode" / "failure_modes.md").read_text(),
                            re.M))
    cited = set()
    for path in ROOT.rglob("*.py"):
        if ".venv" in path.parts:
            continue
        cited |= set(re.findall(r"failure[ _]mode[ _](\d+)", path.read_text(encoding="utf-8")))
    assert cited and cited <= listed


def definitions(tree: ast.AST, prefix: str = "") -> dict[str, ast.AST]:
    """Every def, class, constant and field by dotted name, at module and class level."""
    found: dict[str, ast.AST] = {}
    for node in getattr(tree, "body", []):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = [node.target.id]
        elif isinstance(node, ast.Assign):
            names = [target.id for target in node.targets if isinstance(target, ast.Name)]
        else:
            continue
        for name in names:
            found[prefix + name] = node
        if isinstance(node, ast.ClassDef):
            found.update(definitions(node, f"{prefix}{node.name}."))
    return found


def length(node: ast.AST) -> int:
    """Lines from the first decorator (or the definition itself) to the last line of its body."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return node.end_lineno - first + 1


def counted_lines(path: Path, row: str) -> str:
    """The lines cell a delta-table row should have: each named definition's length, or the file's."""
    defined = definitions(ast.parse(path.read_text(encoding="utf-8")))
    counts = []
    for name in NAME.findall(row):
        matches = [node for dotted, node in defined.items() if dotted == name or dotted.endswith("." + name)]
        if len(matches) == 1:
            counts.append(length(matches[0]))
    return " + ".join(map(str, counts or [len(path.read_text(encoding="utf-8").splitlines())]))


def test_the_step_41_delta_counts_the_lines_of_the_current_code():
    rows = DELTA_ROW.findall(doc_text(WALKTHROUGH))
    assert len(rows) >= 8, "the walkthrough's delta table has rows with line counts"
    drifted = [f"{file}: the table says {cell.strip()}, the code has {counted_lines(ROOT / file, row)}"
               for file, row, cell in rows if cell.strip() != counted_lines(ROOT / file, row)]
    assert not drifted


def test_the_readme_names_every_repl_command_and_every_flag():
    from ui.command_line import argument_parser
    from ui.slash import command_names

    readme = doc_text(ROOT / "README.md")
    code = "\n".join(re.findall(r"```.*?```", readme, re.S) + re.findall(r"`[^`\n]+`", readme))
    flags = [flag for action in argument_parser()._actions for flag in action.option_strings
             if flag.startswith("--")]
    assert "--approve-plan" in flags and "/lesson" in command_names()
    missing = [name for name in command_names() + flags
               if not re.search(rf"(?<![\w/-]){re.escape(name)}(?![\w-])", code)]
    assert not missing, f"README.md does not name: {missing}"


def course_names(doc: Path) -> list[tuple[str, list[str]]]:
    """The walkthrough's table from the course's names to this code: each file with its names."""
    return [(file, NAME.findall(names)) for file, names in COURSE_ROW.findall(doc_text(doc))]


@pytest.mark.parametrize("doc", WALKTHROUGHS, ids=lambda d: d.name)
def test_every_course_name_maps_to_a_definition_in_its_file(doc):
    rows = course_names(doc)
    assert len(rows) >= 8, "the walkthrough maps the course's names to the code"
    missing = []
    for file, names in rows:
        defined_there = definitions(ast.parse((ROOT / file).read_text(encoding="utf-8")))
        missing += [f"{file}: {name}" for name in names
                    if not any(dotted == name or dotted.endswith("." + name) for dotted in defined_there)]
    assert not missing, "named in the walkthrough, defined nowhere in that file"


def test_both_walkthroughs_map_the_course_names_alike():
    english, chinese = (course_names(doc) for doc in WALKTHROUGHS)
    assert english == chinese


PENDING_PLAN = ("`s`", "`/plan show`", "`/plan approve`")


@pytest.mark.parametrize("doc", WALKTHROUGHS, ids=lambda d: d.name)
def test_each_walkthrough_says_how_to_come_back_to_a_plan_saved_for_later(doc):
    """One paragraph names the key that saves a plan and the two commands that bring it back."""
    paragraphs = doc_text(doc).split("\n\n")
    assert any(all(name in paragraph for name in PENDING_PLAN) for paragraph in paragraphs)


def shown_commands(doc: Path) -> list[str]:
    """Every command in the doc's bash blocks, without its comment."""
    return [line.split("#")[0].strip() for block in SHELL_BLOCK.findall(doc_text(doc))
            for line in block.splitlines() if line.split("#")[0].strip()]


def run_shown(command: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["PYTHONPATH"] = str(ROOT)
    words = command.split()
    if words[0] == "python":
        words[0] = sys.executable
    elif words[0].startswith("./bin/"):
        words[0] = str(ROOT / words[0])
    return subprocess.run(words, cwd=cwd, env=env, input=stdin, capture_output=True, text=True,
                          timeout=120)


def repl_at_a_terminal(workspace: Path) -> int:
    """./bin/stepagent in a terminal without an endpoint: the offline lesson, left with /exit."""
    import pexpect

    from tests.terminal import Terminal

    terminal = Terminal.start(workspace, program=str(ROOT / "bin" / "stepagent"),
                              env={"STEPAGENT_HOME": str(workspace.parent / "home")})
    try:
        terminal.expect_text("offline lesson")
        terminal.sendline("/exit")
        terminal.expect(pexpect.EOF)
    finally:
        terminal.child.close()
    return terminal.child.exitstatus


def with_folder(command: str, folder: Path) -> str:
    return re.sub(r"--dir \S+", f"--dir {folder}", command)


@pytest.mark.slow
def test_every_command_the_walkthroughs_show_does_what_they_say(tmp_path):
    """Each command is run; what is checked is what the sentence beside it promises."""
    shown = {command for doc in WALKTHROUGHS for command in shown_commands(doc)}
    checked = set()

    def check(command: str, ok, cwd: Path = ROOT, stdin: str = "") -> None:
        checked.add(command)
        done = run_shown(command, cwd, stdin)
        assert ok(done), f"{command}: exit {done.returncode}\n{done.stdout[-800:]}\n{done.stderr[-800:]}"

    workspace = tmp_path / "workspace"
    workspace.mkdir()
    promises = {
        "python -m step42_plan_mode.minimal": (
            lambda d: d.returncode == 0 and (workspace / "stepagent_lesson.txt").exists(), workspace, "y\n" * 4),
        "./bin/practice list": (lambda d: d.returncode == 0 and "step41-baseline" in d.stdout, ROOT, ""),
        "./bin/practice diff step41-baseline": (
            lambda d: d.returncode == 0 and "+++ project/hooks/plan_mode_guard.py" in d.stdout, ROOT, ""),
        "./bin/quiz plan": (lambda d: d.returncode == 0 and "Score: 0/" in d.stdout, ROOT, ""),
        "./bin/quiz bash": (lambda d: d.returncode == 0 and "Score: 0/" in d.stdout, ROOT, ""),
    }
    for command, (ok, cwd, stdin) in promises.items():
        if command in shown:
            check(command, ok, cwd, stdin)
    if "./bin/stepagent" in shown:  # the REPL, so in a terminal
        checked.add("./bin/stepagent")
        assert repl_at_a_terminal(workspace) == 0
    for command in sorted(c for c in shown if c.startswith("./bin/practice start ")):
        name = command.split()[2]
        folder = tmp_path / name
        checked.add(command)
        started = run_shown(with_folder(command, folder), ROOT)
        assert started.returncode == 0 and "practice: write" in started.stdout + "".join(
            p.read_text() for p in folder.rglob("*.py") if ".venv" not in p.parts), started.stderr
        for judge in sorted(c for c in shown if c.startswith(f"./bin/practice check {name} ")):
            # That check is 0 only when the tests pass, and not on a fresh stub, is proven for every
            # exercise with these very arguments by tests/test_practice.py (one child pytest each);
            # here: it judges the folder the start beside it made.
            checked.add(judge)
            assert judge.split()[1:3] == ["check", name] and judge.split("--dir ")[1].split()[0] == \
                command.split("--dir ")[1].split()[0], f"{judge} judges another folder than {command}"
    assert shown <= checked, f"commands the walkthroughs show that this test does not run: {shown - checked}"
