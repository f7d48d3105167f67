"""Which model a run talks to: a script, a real endpoint, or the offline lesson.

With --script, the scripted model replays that file. With --lesson, or with
neither OPENAI_API_KEY nor OPENAI_BASE_URL set, the offline lesson model
(step42_plan_mode/lesson_model.py) plays the step-42 lesson, following the user's
answers, and says so in a banner (not that it follows answers in -p, where nobody
answers; none for --try-calls, where no model runs). Otherwise the real client talks to
OPENAI_BASE_URL (a key is optional there: a server on the LAN may need none), or
to OpenAI with the key. A base URL that is not an http(s) URL is refused at
start. openai itself is imported later (models/openai_chat.py), so the prompt
does not wait for it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from agent.plan_model import OFF
from models.base import Model, ModelError
from models.bounds import RequestBounds
from models.catalog import checked_name
from models.defaults import DEFAULT_DEADLINE_SECONDS, DEFAULT_MODEL
from models.scripted import load_script
from step42_plan_mode.lesson_model import LessonModel, load_lesson
from ui.safe_text import safe

if TYPE_CHECKING:
    from ui.console import ConsoleView

LESSON_BANNER = ("No OPENAI_API_KEY or OPENAI_BASE_URL: running the offline lesson model. It plays "
                 "the step-42 lesson")
CHOSEN_LESSON_BANNER = "--lesson: running the offline lesson model. It plays the step-42 lesson"
IN_REPL = " and follows your answers. Try: /plan add a greeting file"  # in -p nobody answers
REAL_MODEL = ("To use a real model, set OPENAI_API_KEY (or OPENAI_BASE_URL for a server on this "
              "machine) and start stepagent again; --model NAME picks one.")


def choose_model(script: Path | None, name: str | None, repl: bool = True, lesson: bool = False,
                 deadline: float = DEFAULT_DEADLINE_SECONDS, plan_name: str | None = None) -> tuple[Model, str]:
    """The model to talk to, and a banner to show (the offline lesson announces itself).

    `repl` says a person types at a REPL: only then do the lesson's words name its commands.
    `lesson` (--lesson) chooses the offline lesson whatever the environment says; `deadline`
    (--timeout) bounds each request to a real endpoint, retries included.

    A configured OPENAI_BASE_URL is used with or without a key. `name` (--model) is checked
    against the endpoint's catalog when it has one: an unknown name is a ModelError listing
    the nearest ids. The offline lesson has no other model: any `name` or `plan_name`
    (--plan-model, but off) is a ModelError there, before its banner is shown.
    """
    if script:
        return load_script(script), ""
    key = os.environ.get("OPENAI_API_KEY") or ""
    base_url = os.environ.get("OPENAI_BASE_URL") or None
    if lesson or not (key or base_url):
        banner = CHOSEN_LESSON_BANNER if lesson else LESSON_BANNER
        played = load_lesson(runs_in="repl" if repl else "headless")
        for wanted in (name, plan_name):
            if wanted and wanted != OFF:
                model_named(played, wanted)
        return played, banner + (IN_REPL if repl else ".")
    from models.openai_chat import OpenAIChatModel

    model = OpenAIChatModel(name or os.environ.get("OPENAI_MODEL") or DEFAULT_MODEL, key,
                            base_url and checked_base_url(base_url),
                            bounds=RequestBounds(deadline_seconds=deadline))
    if name:
        model.name = checked_name(name, model.list_models)
    return model, ""


def model_named(model: Model, name: str) -> str:
    """The catalog id `name` means at `model`'s endpoint; a ModelError in one line if it cannot be used.

    `/model NAME`, `/model plan NAME` and --plan-model check a name alike (the lesson has no other).
    """
    if isinstance(model, LessonModel):
        raise ModelError(f"Model: {model.name}, which plays the step-42 lesson without a network. "
                         f"It cannot switch to {safe(name)}: it has no other models to list or "
                         f"switch to. {REAL_MODEL}")
    list_models = getattr(model, "list_models", None)
    if list_models is None:
        raise ModelError(f"Model: {model.name}. This model has no catalog.")
    return checked_name(name, list_models)


def open_plan_model(name: str | None, model: Model) -> str | None:
    """--plan-model's name as the catalog has it ('' when not given, or off); None after an error.

    The error is one line on standard error: nothing has run yet.
    """
    if name is None or name == OFF:
        return ""
    try:
        return model_named(model, name)
    except ModelError as failure:
        print(f"stepagent: {safe(str(failure))}", file=sys.stderr)
        return None


def checked_base_url(url: str) -> str:
    """OPENAI_BASE_URL as given, if it is an http(s) URL with a host; else a ModelError saying so.

    urlsplit drops tabs and newlines where httpx refuses them, so any whitespace or control
    character is refused here first.
    """
    try:
        parts = urlsplit(url)
        usable = (parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
                  and not any(character.isspace() or not character.isprintable() for character in url))
    except ValueError:
        usable = False
    if not usable:
        raise ModelError(f"OPENAI_BASE_URL={url!r} is not an http(s) URL with a host, like "
                         "http://localhost:11434/v1 or https://api.openai.com/v1")
    return url


def open_model(script: Path | None, name: str | None, view: "ConsoleView", lesson: bool = False,
               deadline: float = DEFAULT_DEADLINE_SECONDS, plan_name: str | None = None,
               announce: bool = True) -> Model | None:
    """The chosen model, its notices on the screen and its banner shown; None after an error.

    `announce` False shows no banner (--try-calls: no model runs).
    The error is one line on standard error: nothing has run yet.
    """
    try:
        model, banner = choose_model(script, name, view.repl, lesson, deadline, plan_name)
    except ModelError as failure:
        print(f"stepagent: {safe(str(failure))}", file=sys.stderr)
        return None
    if banner and announce:
        view.notice(banner, style="bold yellow")
    if hasattr(model, "on_notice"):
        model.on_notice, model.on_reasoning = view.model_notice, view.on_reasoning
    return model
