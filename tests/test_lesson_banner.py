"""The offline lesson's banner says only what holds: --try-calls runs no model, so it shows no
banner; -p has nobody to answer, so the banner does not promise to follow answers."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.product_run import run_product


def lesson_env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key not in {"OPENAI_API_KEY", "OPENAI_BASE_URL"}}


def test_try_calls_shows_no_lesson_banner_and_p_does_not_promise_to_follow_answers(workspace: Path,
                                                                                  tmp_path: Path):
    calls = tmp_path / "calls.json"
    calls.write_text(json.dumps({"name": "Read", "arguments": {"file_path": "x.txt"}}))
    tried = run_product("--try-calls", str(calls), cwd=workspace, env=lesson_env())
    assert tried.returncode == 0, tried.stderr
    assert "Read" in tried.stdout + tried.stderr and "lesson model" not in tried.stdout + tried.stderr

    played = run_product("-p", "add a greeting file", cwd=workspace, env=lesson_env())
    shown = played.stdout + played.stderr
    assert "running the offline lesson model" in shown and "follows your answers" not in shown
