"""Grep and Glob on a large tree, next to ripgrep run directly on the same tree.

The tree: 20,000 small Python files in 400 folders, plus an ignored build folder
of 5,000 more that both must skip (.gitignore).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from common import ROOT, median_seconds  # noqa: F401

from state import AppState
from tools.plan_mode import PlanReview
from tools.search import ripgrep
from tools.toolset import build_tools

RUNS = 5


def make_tree(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".gitignore").write_text("build/\n")
    for folder in range(400):
        package = root / "src" / f"pkg{folder}"
        package.mkdir(parents=True)
        for number in range(50):
            body = "".join(f"def function_{number}_{line}(x):\n    return x + {line}\n" for line in range(20))
            if number == 7:
                body += "NEEDLE = 'found me'\n"
            (package / f"module{number}.py").write_text(body)
    (root / "build").mkdir()
    for number in range(5000):
        (root / "build" / f"gen{number}.py").write_text("NEEDLE = 'ignored'\n")


def main() -> None:
    root = Path(tempfile.mkdtemp())
    make_tree(root)
    tools = build_tools(root, AppState(), lambda plan: PlanReview("reject"))
    rg = ripgrep()
    cases = [
        ("Glob **/*.py", lambda: tools["Glob"].handler({"pattern": "**/*.py"}),
         [rg, "--files", "--glob", "**/*.py"]),
        ("Grep NEEDLE", lambda: tools["Grep"].handler({"pattern": "NEEDLE"}),
         [rg, "--line-number", "--no-heading", "NEEDLE"]),
    ]
    for label, through_tool, direct in cases:
        tool_time = median_seconds(through_tool, RUNS)
        rg_time = median_seconds(lambda command=direct: subprocess.run(command, cwd=root, capture_output=True),
                                 RUNS)
        print(f"{label} on 20,000 files (+5,000 ignored): tool {tool_time * 1000:.1f} ms, "
              f"rg directly {rg_time * 1000:.1f} ms (median of {RUNS})")


if __name__ == "__main__":
    main()
