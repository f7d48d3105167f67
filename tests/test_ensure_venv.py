"""bin/ensure-venv, the step before bin/stepagent and bin/test: it rebuilds .venv when the
requirements change, not when a comment does, and never rebuilds a venv it reaches through a
link (another checkout's). A stand-in python logs what would have been built."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = "# Runtime\nrich>=13\n# Tests\npytest>=8\n"
PYTHON = """#!/bin/sh
echo "$*" >> {log}
if [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; fi
"""


def checkout(where: Path, log: Path) -> tuple[Path, Path]:
    """A checkout holding bin/ensure-venv and requirements.txt; it and the stand-in python."""
    (where / "bin").mkdir(parents=True)
    shutil.copy(ROOT / "bin" / "ensure-venv", where / "bin" / "ensure-venv")
    (where / "requirements.txt").write_text(REQUIREMENTS)
    python = where.parent / f"{where.name}-python"
    python.write_text(PYTHON.format(log=log))
    python.chmod(0o755)
    return where, python


def ensure(where: Path, python: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(where / "bin" / "ensure-venv")], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHON": str(python)}, timeout=30)


def test_a_comment_change_rebuilds_nothing_and_a_requirement_change_does(tmp_path):
    log = tmp_path / "built.log"
    where, python = checkout(tmp_path / "project", log)
    assert ensure(where, python).returncode == 0 and "-m venv" in log.read_text()
    log.unlink()
    (where / "requirements.txt").write_text("# What it runs on\n\nrich>=13   # the console\n"
                                            "  pytest>=8\n")
    done = ensure(where, python)
    assert done.returncode == 0 and done.stderr == "" and not log.exists()
    (where / "requirements.txt").write_text(REQUIREMENTS + "hypothesis>=6\n")
    done = ensure(where, python)
    assert done.returncode == 0 and "requirements changed" in done.stderr
    assert "-m venv" in log.read_text()


def test_a_venv_reached_through_a_link_is_never_rebuilt(tmp_path):
    log = tmp_path / "built.log"
    main, python = checkout(tmp_path / "main", log)
    ensure(main, python)
    built = (main / ".venv").stat().st_mtime_ns, sorted(p.name for p in (main / ".venv").iterdir())
    log.unlink()
    other, _ = checkout(tmp_path / "worktree", log)
    (other / ".venv").symlink_to(main / ".venv")
    (other / "requirements.txt").write_text(REQUIREMENTS.replace("# Tests", "# The suite"))
    assert ensure(other, python).returncode == 0 and not log.exists()
    (other / "requirements.txt").write_text(REQUIREMENTS + "hypothesis>=6\n")
    done = ensure(other, python)
    assert done.returncode == 2 and f"rm {other / '.venv'}" in done.stderr and not log.exists()
    assert ((main / ".venv").stat().st_mtime_ns, sorted(p.name for p in (main / ".venv").iterdir())) == built


def test_a_venv_stamped_by_the_older_whole_file_hash_is_kept(tmp_path):
    log = tmp_path / "built.log"
    where, python = checkout(tmp_path / "project", log)
    (where / ".venv" / "bin").mkdir(parents=True)
    shutil.copy(python, where / ".venv" / "bin" / "python")
    (where / ".venv" / ".requirements.sha256").write_text(
        hashlib.sha256(REQUIREMENTS.encode()).hexdigest() + "\n")
    assert ensure(where, python).returncode == 0 and not log.exists()
    (where / "requirements.txt").write_text(REQUIREMENTS.replace("# Tests", "# The suite"))
    assert ensure(where, python).returncode == 0 and not log.exists()
