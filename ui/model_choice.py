"""Which model a run talks to: a script, a real endpoint, or the offline lesson.

With --script, the scripted model replays that file. Without a key and without a
server on this machine, the offline lesson model (step42_plan_mode/lesson_model.py)
plays the step-42 lesson, following the user's answers, and says so in a banner. Otherwise the real client talks to OPENAI_BASE_URL; openai
itself is imported later (models/openai_chat.py), so the prompt does not wait for it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from models.base import Model, ModelError
from models.catalog import checked_name
from models.endpoint import is_local
from models.scripted import load_script
from step42_plan_mode.lesson_model import load_lesson

if TYPE_CHECKING:
    from ui.console import ConsoleView

DEFAULT_MODEL = "gpt-4o-mini"
LESSON_BANNER = ("No OPENAI_API_KEY: running the offline lesson model. It plays the step-42 lesson "
                 "and follows your answers.")
LESSON_TRY = " Try: /plan add a greeting file"


def choose_model(script: Path | None, name: str | None, repl: bool = True) -> tuple[Model, str]:
    """The model to talk to, and a banner to show (the offline lesson announces itself).

    `repl` says a person types at a REPL: only then do the lesson's words name its commands.

    A server on this machine needs no real key. `name` (--model) is checked against the
    endpoint's catalog when it has one: an unknown name is a ModelError listing the nearest ids.
    """
    if script:
        return load_script(script), ""
    key = os.environ.get("OPENAI_API_KEY") or ""
    base_url = os.environ.get("OPENAI_BASE_URL") or None
    if not key and not (base_url and is_local(base_url)):
        return load_lesson(repl=repl), LESSON_BANNER + LESSON_TRY * repl
    from models.openai_chat import OpenAIChatModel

    model = OpenAIChatModel(name or os.environ.get("OPENAI_MODEL") or DEFAULT_MODEL, key, base_url)
    if name:
        model.name = checked_name(name, model.list_models)
    return model, ""


def open_model(script: Path | None, name: str | None, view: "ConsoleView") -> Model | None:
    """The chosen model with its banner shown and its notices on the screen; None after an error shown."""
    try:
        model, banner = choose_model(script, name, view.repl)
    except ModelError as failure:
        view.error(str(failure))
        return None
    if banner:
        view.notice(banner, style="bold yellow")
    if hasattr(model, "on_notice"):
        model.on_notice, model.on_reasoning = view.model_notice, view.on_reasoning
    return model
