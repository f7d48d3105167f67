"""/model: show the endpoint's models or switch to one, and `/model plan` for the model per phase.

The session's model is switched in place; while a plan model is chosen
(agent/plan_model.py), a switch names the model the build goes on with, and
planning keeps the plan model until approval.
"""

from __future__ import annotations

from agent.plan_model import OFF, plan_model_of
from models.base import ModelError
from models.catalog import format_catalog
from session.live import Session
from step42_plan_mode.lesson_model import LessonModel
from ui.model_choice import REAL_MODEL, model_named


def run_model(session: Session, name: str) -> tuple[str, bool]:
    """`/model [NAME]` or `/model plan [NAME|off]`: what to show, and whether it failed."""
    model = session.agent.model
    word, _, plan_name = name.partition(" ")
    if word == "plan":
        return _plan_model(session, plan_name.strip())
    if isinstance(model, LessonModel) and not name:
        return (f"Model: {model.name}, which plays the step-42 lesson without a network. "
                f"It has no other models to list or switch to. {REAL_MODEL}"), False
    list_models = getattr(model, "list_models", None)
    if list_models is None and not name:
        return f"Model: {model.name}. This model has no catalog.", False
    if not name:
        try:
            return format_catalog(list_models(), model.name), False
        except ModelError as failure:
            return f"Model: {model.name}; {str(failure).rstrip('.')}.", True
    try:
        name = model_named(model, name)
    except ModelError as failure:
        return str(failure), True
    per_phase = plan_model_of(session.agent.state)
    if per_phase is None:
        model.name = name
    else:
        per_phase.switch_session_model(name)
    if model.name != name:
        return f"Model → {name} after approval; planning goes on with {model.name}", False
    return f"Model → {name}", False


def _plan_model(session: Session, name: str) -> tuple[str, bool]:
    """`/model plan [NAME|off]`: show, choose or clear the model every request goes to while planning."""
    per_phase = plan_model_of(session.agent.state)
    if per_phase is None:
        return "This session has no model per phase.", True
    if name == OFF:
        per_phase.choose("", "/model plan off")
        return f"Plan model off: planning runs on the session's model, {per_phase.session_model}.", False
    if not name:
        if not per_phase.plan_model:
            return (f"No plan model: planning runs on the session's model, "
                    f"{per_phase.session_model}. /model plan NAME picks one."), False
        return (f"Plan model: {per_phase.plan_model} while planning, "
                f"{per_phase.session_model} after approval. /model plan off drops it."), False
    try:
        name = model_named(session.agent.model, name)
    except ModelError as failure:
        return str(failure), True
    per_phase.choose(name, f"/model plan {name}")
    return f"Plan model → {name} (while planning; {per_phase.session_model} after approval)", False
