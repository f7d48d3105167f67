"""How much a reader must read: the core beside the product, by project files and lines.

  import closure   the project files importing the core (agent/assemble.py), the minimal
                   driver's run, and the product (ui/product.py, which index.py runs) load
  lesson path      the project files whose code runs during one plan-mode lesson turn
                   (enter, research, a write denied, the plan approved, the file written),
                   through the core alone and through the product's layers

Each is measured in a fresh interpreter. The targets are ratios, core over product, and the
minimal driver's files and lines against the lesson's aim (issue 20: 20 files, 2,200 lines);
tests/test_minimal.py holds the figures reached as its bound, so they cannot grow.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from common import ROOT, Targets

MINIMAL_FILES, MINIMAL_LINES = 20, 2_200
CLOSURE = """
import os, runpy, sys
root = sys.argv[1]
if sys.argv[2] == "minimal":
    sys.stdin = open(os.devnull)
    try:
        runpy.run_module("step42_plan_mode.minimal", run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
    __import__("step42_plan_mode.minimal")
else:
    __import__(sys.argv[2])
files = {m.__file__ for m in list(sys.modules.values())
         if (getattr(m, "__file__", None) or "").startswith(root + "/") and "/.venv/" not in m.__file__}
print(len(files), sum(len(open(f, encoding="utf-8").read().splitlines()) for f in files))
"""
LESSON_PATH = """
import os, sys, threading
from pathlib import Path
from agent.assemble import assemble
from state import AppState, PermissionMode
from step42_plan_mode.lesson_model import load_lesson
from tools.plan_mode import PlanReview
root = sys.argv[1]
layers = __import__("ui.product").product.product_layers() if sys.argv[2] == "product" else ()
state = AppState(permission_mode=PermissionMode.EDIT)
agent = assemble(Path.cwd(), state, load_lesson(runs_in="minimal"), lambda plan: PlanReview("approve"),
                 lambda request: True, layers)
ran = set()
def trace(frame, event, arg):
    if frame.f_code.co_filename.startswith(root + "/"):
        ran.add(frame.f_code.co_filename)
sys.settrace(trace)
threading.settrace(trace)
agent.run_turn("add a greeting file")
sys.settrace(None)
assert (Path.cwd() / "stepagent_lesson.txt").is_file()
print(len(ran), sum(len(open(f, encoding="utf-8").read().splitlines()) for f in ran))
"""


def measure(script: str, what: str) -> tuple[int, int]:
    """Files and lines, from a fresh interpreter in an empty folder."""
    with tempfile.TemporaryDirectory() as folder:
        ran = subprocess.run([sys.executable, "-c", script, str(ROOT), what], cwd=folder,
                             env={**os.environ, "PYTHONPATH": str(ROOT)},
                             capture_output=True, text=True, timeout=120, check=True)
    files, lines = ran.stdout.splitlines()[-1].split()
    return int(files), int(lines)


def main() -> int:
    targets = Targets()
    core, minimal, product = (measure(CLOSURE, what) for what in ("agent.assemble", "minimal", "ui.product"))
    print(f"import closure: core {core[0]} files, {core[1]:,} lines; minimal driver {minimal[0]} "
          f"files, {minimal[1]:,} lines; product {product[0]} files, {product[1]:,} lines")
    print(f"  minimal driver: {minimal[0]} files "
          f"{targets.check('minimal driver files', minimal[0], MINIMAL_FILES, str(MINIMAL_FILES))}, "
          f"{minimal[1]:,} lines "
          f"{targets.check('minimal driver lines', minimal[1], MINIMAL_LINES, f'{MINIMAL_LINES:,}')}")
    share = core[1] / product[1]
    print(f"  core / product: {share:.2f} of the lines "
          f"{targets.check('core closure', share, 0.25, 'a quarter')}")
    alone, layered = measure(LESSON_PATH, "core"), measure(LESSON_PATH, "product")
    print(f"lesson path: core {alone[0]} files, {alone[1]:,} lines; product {layered[0]} files, "
          f"{layered[1]:,} lines")
    share = alone[1] / layered[1]
    print(f"  core / product: {share:.2f} of the lines {targets.check('lesson path', share, 0.4, '0.4')}")
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
