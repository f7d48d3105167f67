"""Grep and Glob on a large tree, next to ripgrep run directly with the same arguments.

The tree: 400 folders of 50 small Python files, plus an ignored build folder of
5,000 more that both must skip (.gitignore). "Directly" runs the same rg binary
with the arguments the tool builds (tools/search.py), so the difference is the
tool's own cost: starting rg through Python, sorting, capping the output.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from common import ROOT, median_seconds  # noqa: F401

from tools.ripgrep import ripgrep
from tools.search import glob_arguments, grep_arguments, make_search_tools

RUNS = 5
FOLDERS, FILES_PER_FOLDER, IGNORED = 400, 50, 5000


def make_tree(root: Path) -> tuple[int, int]:
    """Write the tree; returns (files searched, files ignored)."""
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".gitignore").write_text("build/\n")
    for folder in range(FOLDERS):
        package = root / "src" / f"pkg{folder}"
        package.mkdir(parents=True)
        for number in range(FILES_PER_FOLDER):
            body = "".join(f"def function_{number}_{line}(x):\n    return x + {line}\n" for line in range(20))
            if number == 7:
                body += "NEEDLE = 'found me'\n"
            (package / f"module{number}.py").write_text(body)
    (root / "build").mkdir()
    for number in range(IGNORED):
        (root / "build" / f"gen{number}.py").write_text("NEEDLE = 'ignored'\n")
    return len(list((root / "src").rglob("*.py"))), len(list((root / "build").iterdir()))


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-search-") as folder:
        root = Path(folder)
        searched, ignored = make_tree(root)
        tools = {tool.name: tool for tool in make_search_tools(root)}
        rg = [ripgrep(), "--color", "never"]
        cases = [
            ("Glob **/*.py", lambda: tools["Glob"].handler({"pattern": "**/*.py"}),
             [*rg, *glob_arguments("**/*.py")]),
            ("Grep NEEDLE", lambda: tools["Grep"].handler({"pattern": "NEEDLE"}),
             [*rg, *grep_arguments("NEEDLE")]),
        ]
        for label, through_tool, direct in cases:
            found = subprocess.run(direct, cwd=root, capture_output=True, text=True).stdout.count("\0")
            tool_time = median_seconds(through_tool, RUNS)
            rg_time = median_seconds(lambda command=direct: subprocess.run(command, cwd=root,
                                                                          capture_output=True), RUNS)
            print(f"{label} on {searched:,} files (+{ignored:,} ignored), {found:,} lines found: "
                  f"tool {tool_time * 1000:.1f} ms, rg directly with the same arguments "
                  f"{rg_time * 1000:.1f} ms, tool overhead {(tool_time - rg_time) * 1000:+.1f} ms "
                  f"(median of {RUNS})")


if __name__ == "__main__":
    main()
