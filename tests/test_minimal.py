"""The minimal driver plays the lesson on the core alone, and loads nothing but the core.

`python -m step42_plan_mode.minimal` is run as a user would, in a temporary
workspace, with its answer on standard input, and with no site-packages at all
(-S): a layer or a library in its imports would fail it at once.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.test_layout import CORE

ROOT = Path(__file__).resolve().parent.parent
LESSON = {"step42_plan_mode.lesson_model", "step42_plan_mode.minimal"}
# The lesson's aim (issue 20): the offline lesson model, this driver and the core
# (tests/test_layout.py: CORE) in at most 20 files and 2,200 lines; what is not the lesson
# attaches as a layer beside its feature, outside this count.
FILES_AT_MOST = 20
LINES_AT_MOST = 2_200
WALKTHROUGHS = {ROOT / "step42_plan_mode" / "README.md": r"(\d+) files, ([\d,]+) lines",
                ROOT / "step42_plan_mode" / "README.zh-CN.md": r"(\d+) 个文件、([\d,]+) 行"}
LOADED = """
import runpy, sys
try:
    runpy.run_module("step42_plan_mode.minimal", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
root = sys.argv[1]
names = [name for name, module in sys.modules.items()
         if (getattr(module, "__file__", None) or "").startswith(root)]
print(" ".join(sorted(names + ["step42_plan_mode.minimal"])), file=sys.stderr)
"""


def play(workspace: Path, answer: str, *command: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-S", *command], cwd=workspace, input=answer,
                          env=env, capture_output=True, text=True, timeout=60)


def test_y_approves_the_plan_and_the_file_is_written_after_it(tmp_path):
    ran = play(tmp_path, "y\n", "-m", "step42_plan_mode.minimal")
    assert ran.returncode == 0, ran.stderr
    written = tmp_path / "stepagent_lesson.txt"
    assert written.is_file() and written.read_text().strip()
    assert [p.name for p in (tmp_path / ".stepagent" / "plans").iterdir()][0].startswith("plan-")
    assert ran.stdout.index("Write deny: Denied by plan-mode-guard") < ran.stdout.index("--- plan ---")
    assert "Bash deny: Denied by plan-mode-guard" in ran.stdout
    assert "no tool named" not in ran.stdout, "the lesson calls only the tools the core offers"
    assert "**" not in ran.stdout and "[lesson script]" in ran.stdout, "plain text: nothing renders markdown here"
    assert "-p" not in ran.stdout.splitlines()[-2], "the last words name this driver, not -p"


def test_the_choices_it_offers_are_the_ones_it_takes(tmp_path):
    ran = play(tmp_path, "e\n", "-m", "step42_plan_mode.minimal")
    assert ran.returncode == 0, ran.stderr
    before_the_plan = ran.stdout[:ran.stdout.index("--- plan ---")]
    assert set(re.findall(r"`([a-z])`", before_the_plan)) == {"y", "n"}
    assert "[y/N]" in ran.stdout
    assert list(tmp_path.iterdir()) == [], "e is not offered here, so it approves nothing"


def test_n_rejects_the_plan_and_nothing_is_written(tmp_path):
    ran = play(tmp_path, "n\n", "-m", "step42_plan_mode.minimal")
    assert ran.returncode == 0, ran.stderr
    assert "--- plan ---" in ran.stdout and "Write deny" in ran.stdout
    assert list(tmp_path.iterdir()) == []


def test_end_of_input_is_a_no(tmp_path):
    ran = play(tmp_path, "", "-m", "step42_plan_mode.minimal")
    assert ran.returncode == 0, ran.stderr
    assert list(tmp_path.iterdir()) == []


def test_it_loads_the_core_and_the_lesson_only(tmp_path):
    ran = play(tmp_path, "y\n", "-c", LOADED, str(ROOT))
    assert ran.returncode == 0 and (tmp_path / "stepagent_lesson.txt").is_file(), ran.stderr
    names = set(ran.stderr.splitlines()[-1].split())
    assert names <= set(CORE) | LESSON, sorted(names - set(CORE) - LESSON)
    files = [ROOT / (name.replace(".", "/") + ".py") for name in names]
    files = [f if f.exists() else f.with_suffix("") / "__init__.py" for f in files]
    lines = sum(len(f.read_text(encoding="utf-8").splitlines()) for f in files)
    print(f"the minimal driver loads {len(files)} project files, {lines} lines")
    assert len(files) <= FILES_AT_MOST and lines <= LINES_AT_MOST


def test_the_walkthroughs_give_the_bound_as_the_figure():
    for walkthrough, figure in WALKTHROUGHS.items():
        files, lines = re.search(figure, walkthrough.read_text(encoding="utf-8")).groups()
        assert (int(files), int(lines.replace(",", ""))) == (FILES_AT_MOST, LINES_AT_MOST), walkthrough.name
