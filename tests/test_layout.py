"""The lesson's shape holds: the design card's top level, imports running one way,
a core that loads no layer, no UI below ui/, the plan flag that only
leave_plan_mode can turn off, and no heavy library loaded before it is needed."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from state import AppState

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"agent", "hooks", "models", "session", "settings", "tools", "ui"}
UI_LIBRARIES = {"ui", "rich", "prompt_toolkit"}
# Each costs start-up time (bench/startup.py) and is loaded only where it is first used:
# openai at the first request (or once the REPL's prompt is drawn), prompt_toolkit and asyncio
# for the REPL and its questions, markdown and syntax highlighting for the first answer shown.
LATE_LIBRARIES = {"openai", "prompt_toolkit", "asyncio", "rich.markdown", "rich.syntax"}
MODULES_AFTER_CHOOSING_A_REAL_MODEL = """
import sys, threading
import ui.product
from ui.model_choice import choose_model
choose_model(None, None)
for thread in threading.enumerate():
    if thread is not threading.main_thread():
        thread.join(timeout=60)
print(" ".join(sys.modules))
"""
CORE = [  # the lesson's core, lowest first, by exact module name: it imports no layer
    "agent.events",  # the event records and their bus: a leaf, so state and tools can emit events
    "models.base",  # what the loop needs from a model
    "state",
    "tools.workspace",  # paths in the workspace, and stepagent's own files there (plans)
    "tools.base", "tools.validate",  # the Tool record, its Judgement and Preview; arguments checked
    "tools.plan_mode",  # the plan-mode tools and their words
    "tools.files", "tools.plain_bash",  # plain Read/Write/Edit and a Bash with no judge
    "hooks.registry", "hooks.plan_mode_guard", "hooks.permission_ask",
    "agent.approval", "agent.history", "agent.prompt", "agent.executor", "agent.loop",
    "agent.assemble",  # the core composition: the core's parts, then the layers it is given
]
CORE_ENTRY = "agent.assemble"
LAYERS = [  # above the whole core, lowest first; a module stands where the longest of these
    # prefixes of its name stands
    "models",  # the real client, the scripted model, the catalog
    "tools",  # the tool layers: Bash hardening, safe reads, search, todos, memory, questions…
    "agent",  # the sub-agent layer (subagents.py, batch.py)
    "hooks",  # the "don't ask again" rules (session_rules.py), edit mode's configuration question
    "settings",  # the user's settings: hooks and rules (settings/user_layer.py attaches them)
    "session",  # the store, the journal, compaction, reminders
    "step42_plan_mode.lesson_model",  # the offline lesson's model, which ui/model_choice.py picks
    "ui",
    "index",  # the entry: the command line parsed, then the product (ui/product.py)
    "step42_plan_mode",  # the lesson reads the code; nothing imports it
]
NO_LAYER_IN_THE_CORE = {"sqlite3", "openai", "httpx", "rich", "prompt_toolkit", "tree_sitter",
                        "tree_sitter_bash", "asyncio", "ctypes"}


def source_files() -> list[Path]:
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True)
    files = [ROOT / name for name in tracked.stdout.split()] or list(ROOT.glob("**/*.py"))
    return [f for f in files if f.exists() and f.parts[len(ROOT.parts)] not in {"tests", "bench", ".venv"}]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every stepagent module this file imports, at any depth of the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def project_graph() -> dict[str, set[str]]:
    files = {module_name(f): f for f in source_files()}
    return {name: {m for m in imports_of(path) if m in files and m != name} for name, path in files.items()}


def test_top_level_is_the_design_cards():
    python_files = {p.name for p in ROOT.glob("*.py")}
    assert python_files <= {"index.py", "state.py"}
    folders = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")}
    assert folders - {"__pycache__"} <= PACKAGES | {"step42_plan_mode", "tests", "bench", "bin"}


def test_imports_have_no_cycles():
    graph = project_graph()
    visiting, done = set(), set()

    def visit(name: str, path: list[str]) -> None:
        assert name not in visiting, "import cycle: " + " → ".join(path + [name])
        if name in done:
            return
        visiting.add(name)
        for imported in graph[name]:
            visit(imported, path + [name])
        visiting.discard(name)
        done.add(name)

    for name in graph:
        visit(name, [])


def layer(module: str) -> int:
    """Where `module` stands: its place in CORE, else above the core where LAYERS' longest
    prefix of its name stands."""
    if module in CORE:
        return CORE.index(module)
    prefixes = [p for p in LAYERS if module == p or module.startswith(p + ".")]
    assert prefixes, f"{module} has no place in LAYERS"
    return len(CORE) + LAYERS.index(max(prefixes, key=len))


def test_imports_run_down_the_layers():
    upward = [f"{name} → {imported}" for name, imports in project_graph().items()
              for imported in imports if layer(imported) > layer(name)]
    assert not upward, "imports of a layer above: " + ", ".join(sorted(upward))


CORE_CLOSURE = f"""
import sys
import {CORE_ENTRY}
root = sys.argv[1]
for name, module in sorted(sys.modules.items()):
    path = getattr(module, "__file__", None) or ""
    print(name, "project" if path.startswith(root) else "site" if "-packages" in path else "std")
"""


def test_the_core_loads_only_the_core_and_the_standard_library():
    # -S: no site-packages at all, so importing any installed library would fail
    ran = subprocess.run([sys.executable, "-S", "-c", CORE_CLOSURE, str(ROOT)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    loaded = dict(line.split() for line in ran.stdout.splitlines())
    project = {name for name, where in loaded.items() if where == "project"}
    assert project == set(CORE)
    assert not [name for name, where in loaded.items() if where == "site"]
    assert not {name.split(".")[0] for name in loaded} & NO_LAYER_IN_THE_CORE


FOLDERS_FOUND = """
import importlib.util, json, sys
print(json.dumps({name: list(importlib.util.find_spec(name).submodule_search_locations or [])
                  for name in sys.argv[1:]}))
"""


def test_each_folder_is_found_in_this_repository_only(tmp_path):
    # The folders are namespace packages: a regular package of the same name anywhere on the
    # path (an installed `tools`, say) would win over them, so none may be there. Run as the
    # README runs the minimal driver: from another folder, the project on PYTHONPATH.
    folders = sorted(PACKAGES | {"step42_plan_mode"})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ran = subprocess.run([sys.executable, "-c", FOLDERS_FOUND, *folders], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == {name: [str(ROOT / name)] for name in folders}


def test_only_the_ui_and_index_import_the_ui():
    for path in source_files():
        name = module_name(path)
        if name == "index" or name.split(".")[0] in {"ui", "step42_plan_mode"}:
            continue
        leaks = {m for m in imports_of(path) if m.split(".")[0] in UI_LIBRARIES}
        assert not leaks, f"{name} imports {leaks}"


def test_the_plan_flag_cannot_be_assigned_from_outside():
    state = AppState()
    state.enter_plan_mode("test")
    with pytest.raises(AttributeError):
        state.plan_mode = False
    assert state.plan_mode
    assert state.leave_plan_mode("test") and not state.plan_mode


def test_hooks_get_a_read_only_view():
    view = AppState().view()
    with pytest.raises(AttributeError):
        view.plan_mode = True  # type: ignore[misc]


def test_start_up_with_a_real_model_loads_no_late_library():
    env = {**os.environ, "OPENAI_API_KEY": "x", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    ran = subprocess.run([sys.executable, "-c", MODULES_AFTER_CHOOSING_A_REAL_MODEL], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert LATE_LIBRARIES.isdisjoint(ran.stdout.split())


def test_a_headless_turn_loads_no_late_library(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"text": "done"}]}))
    env = {**os.environ, "STEPAGENT_HOME": str(tmp_path / "home")}
    ran = subprocess.run([sys.executable, "-X", "importtime", str(ROOT / "index.py"), "-p", "hi",
                          "--script", str(script)], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 0 and "done" in ran.stdout, ran.stderr
    imported = {line.rsplit("|", 1)[1].strip() for line in ran.stderr.splitlines()
                if line.startswith("import time:")}
    assert "rich.console" in imported and LATE_LIBRARIES.isdisjoint(imported)
