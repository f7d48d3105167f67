"""Run every benchmark and print its figures: .venv/bin/python bench/run_all.py

Each benchmark gets a temporary folder of its own as TMPDIR; whatever it leaves
there is reported (a benchmark must clean up after itself) and then removed.
A benchmark that misses a target exits non-zero; so does this, naming them.
The mutation score (bench/mutation.py) takes minutes and runs on its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = ["startup.py", "client_overhead.py", "loop_overhead.py", "prompt_size.py", "search.py", "bash_safety.py",
              "session_state.py", "render.py", "endpoints.py", "session_search.py",
              "subagents.py", "host_read.py", "left_running.py", "core_size.py", "page_export.py",
              "checkpoint.py"]


def main() -> int:
    missed = []
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-") as scratch:
        for name in BENCHMARKS:
            print(f"== {name}", flush=True)
            folder = Path(scratch) / name
            folder.mkdir()
            if subprocess.run([sys.executable, str(HERE / name)],
                              env={**os.environ, "TMPDIR": str(folder)}).returncode:
                missed.append(name)
            left = list(folder.iterdir())
            if left:
                print(f"   left behind in its temporary folder: {', '.join(p.name for p in left)}")
    if missed:
        print(f"== missed a target or failed: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
