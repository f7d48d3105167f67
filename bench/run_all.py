"""Run every benchmark and print its figures: .venv/bin/python bench/run_all.py"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = ["startup.py", "loop_overhead.py", "prompt_size.py", "search.py", "bash_safety.py",
              "session_state.py", "render.py", "endpoints.py"]

if __name__ == "__main__":
    failed = 0
    for name in BENCHMARKS:
        print(f"== {name}", flush=True)
        failed |= subprocess.run([sys.executable, str(HERE / name)]).returncode
    sys.exit(failed)
